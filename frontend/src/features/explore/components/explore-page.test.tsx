import { fireEvent, screen, waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { messages } from '@/config/messages'
import { apiServer, networkError, rpc, setupApiServer } from '@/testing/api-server'
import { range, releaseRow } from '@/testing/factories'
import { renderPage, searchOf } from '@/testing/render-page'
import type { Release } from '@/types/api'
import { ExplorePage, type ExploreCardOptions } from './explore-page'

setupApiServer()

/** A bare card: the release cards themselves belong to the releases feature. */
function renderRelease(release: Release, { onGenreClick }: ExploreCardOptions) {
  return (
    <article key={release.id} aria-label={release.title}>
      {release.genres.map((genre) => (
        <button key={genre} type="button" onClick={() => onGenreClick(genre)}>
          Filter by genre {genre}
        </button>
      ))}
    </article>
  )
}

const cards = () => screen.queryAllByRole('article')

describe('Explore page', () => {
  it('shows nine random releases and shuffles without repeating them', async () => {
    const calls: Record<string, unknown>[] = []
    apiServer.use(rpc('get_random_releases', () => (calls.length === 1 ? range(1, 9) : range(10, 9)).map((id) => releaseRow(id)), calls))
    renderPage(<ExplorePage renderRelease={renderRelease} />, '/explore')
    await waitFor(() => expect(cards()).toHaveLength(9))
    expect(calls[0]).toMatchObject({ num_releases: 9, exclude_ids: [], time_range_days: 90 })
    expect(calls[0]).not.toHaveProperty('genre_filters')

    fireEvent.click(screen.getByRole('button', { name: 'Shuffle' }))
    await screen.findByRole('article', { name: 'Release 10' })
    expect(calls[1]).toMatchObject({ exclude_ids: range(1, 9) })
  })

  it('drops releases without genres and says when nothing is left', async () => {
    apiServer.use(rpc('get_random_releases', () => [releaseRow(1, { genres: [] })]))
    renderPage(<ExplorePage renderRelease={renderRelease} />, '/explore')
    expect(await screen.findByText(messages.empty.explore)).toBeTruthy()
  })

  it('applies filters from the URL and writes a clicked genre to it', async () => {
    const calls: Record<string, unknown>[] = []
    apiServer.use(rpc('get_random_releases', () => [releaseRow(1, { genres: ['ambient', 'dub'] })], calls))
    const { router } = renderPage(<ExplorePage renderRelease={renderRelease} />, '/explore?range=30&genre=ambient')
    await screen.findByRole('article', { name: 'Release 1' })
    expect(calls[0]).toMatchObject({ time_range_days: 30, genre_filters: ['ambient'] })
    expect(screen.getByRole('group', { name: 'Genre filters' }).textContent).toContain('ambient')

    fireEvent.click(screen.getByRole('button', { name: 'Filter by genre dub' }))
    await waitFor(() => expect(calls).toHaveLength(2))
    expect(calls[1]).toMatchObject({ genre_filters: ['ambient', 'dub'], exclude_ids: [] })
    expect(searchOf(router).getAll('genre')).toEqual(['ambient', 'dub'])
  })

  it('reports a failed load', async () => {
    apiServer.use(rpc('get_random_releases', networkError))
    renderPage(<ExplorePage renderRelease={renderRelease} />, '/explore')
    expect((await screen.findByRole('alert')).textContent).toContain(messages.load.releases(''))
    expect(screen.getByText(messages.empty.explore)).toBeTruthy()
  })
})
