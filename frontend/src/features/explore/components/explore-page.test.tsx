import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { extraMessages, messages } from '@/config/messages'
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

  it('shows a failed load as an error with a retry, not as "no releases found"', async () => {
    let fail = true
    apiServer.use(rpc('get_random_releases', () => (fail ? networkError() : [releaseRow(1)])))
    renderPage(<ExplorePage renderRelease={renderRelease} />, '/explore')
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain(messages.load.releases(''))
    expect(screen.queryByText(messages.empty.explore)).toBeNull()
    fail = false
    fireEvent.click(within(alert).getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByRole('article', { name: 'Release 1' })).toBeTruthy()
  })

  it("offers every genre of the panel's time range from the first visit", async () => {
    const genreCalls: Record<string, unknown>[] = []
    apiServer.use(
      rpc('get_random_releases', () => [releaseRow(1, { genres: ['ambient'] })]),
      rpc(
        'get_explore_genres',
        (args) =>
          args.time_range_days === 6
            ? [{ genre: 'dub', releases: 2 }]
            : [
                { genre: 'ambient', releases: 9 },
                { genre: 'dub', releases: 4 },
                { genre: 'jazz', releases: 1 },
              ],
        genreCalls,
      ),
    )
    renderPage(<ExplorePage renderRelease={renderRelease} />, '/explore')
    await screen.findByRole('article', { name: 'Release 1' })
    fireEvent.click(screen.getByRole('button', { name: 'Filters' }))
    const panel = await screen.findByRole('group', { name: 'Genres' })
    await waitFor(() =>
      expect(
        within(panel)
          .getAllByRole('button')
          .map((b) => b.textContent),
      ).toEqual(['ambient', 'dub', 'jazz']),
    )
    expect(genreCalls[0]).toEqual({ time_range_days: 90 })
    // Another range in the panel: its own genres.
    fireEvent.change(screen.getByRole('slider'), { target: { value: '1' } })
    await waitFor(() =>
      expect(
        within(panel)
          .getAllByRole('button')
          .map((b) => b.textContent),
      ).toEqual(['dub']),
    )
  })

  it('starts over once Shuffle has shown every match, and keeps the cards in place while it loads', async () => {
    const calls: Record<string, unknown>[] = []
    const pool = range(1, 12)
    apiServer.use(
      rpc(
        'get_random_releases',
        (args) =>
          pool
            .filter((id) => !(args.exclude_ids as number[]).includes(id))
            .slice(0, 9)
            .map((id) => releaseRow(id)),
        calls,
      ),
    )
    renderPage(<ExplorePage renderRelease={renderRelease} />, '/explore')
    await waitFor(() => expect(cards()).toHaveLength(9))
    fireEvent.click(screen.getByRole('button', { name: 'Shuffle' }))
    // The grid is not dimmed as a whole while the next pick loads.
    expect(document.querySelector('.opacity-60')).toBeNull()
    await waitFor(() => expect(cards()).toHaveLength(3))
    fireEvent.click(screen.getByRole('button', { name: 'Shuffle' }))
    expect(await screen.findByText(extraMessages.exploreAllShown)).toBeTruthy()
    expect(calls[2]).toMatchObject({ exclude_ids: range(1, 12) })
    fireEvent.click(screen.getByRole('button', { name: 'Shuffle' }))
    await waitFor(() => expect(cards()).toHaveLength(9))
    expect(calls[3]).toMatchObject({ exclude_ids: [] })
  })
})
