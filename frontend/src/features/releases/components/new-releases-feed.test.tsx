import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { http, HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { extraMessages, messages } from '@/config/messages'
import { apiServer, networkError, rpc, selectRows, setupApiServer, writeTable } from '@/testing/api-server'
import { range, releaseRow } from '@/testing/factories'
import { renderPage, stubIntersectionObserver } from '@/testing/render-page'
import { NewReleasesFeed } from './new-releases-feed'

setupApiServer()

const cards = () => screen.queryAllByRole('article')

describe('New Releases feed', () => {
  it('shows the first page of releases and loads the next when scrolled to the end', async () => {
    const scroll = stubIntersectionObserver()
    const pages: number[] = []
    apiServer.use(
      selectRows('user_follow_labels', [{ label_id: 100 }]),
      rpc('get_latest_releases', (args) => {
        pages.push(args.page as number)
        return args.page === 1 ? range(1, 9).map((id) => releaseRow(id)) : [releaseRow(10)]
      }),
    )
    renderPage(<NewReleasesFeed />)
    await waitFor(() => expect(cards()).toHaveLength(9))
    const first = screen.getByRole('article', { name: 'Release 1 by Artist 1' })
    expect(within(first).getByRole('link', { name: 'Label 101' })).toBeTruthy()
    expect(within(first).getByText('ambient')).toBeTruthy()

    await scroll.scrollToEnd()
    await waitFor(() => expect(cards()).toHaveLength(10))
    // A short page is the last one: scrolling again asks for nothing more.
    await scroll.scrollToEnd()
    expect(pages).toEqual([1, 2])
  })

  it('invites the user to follow labels when nothing is followed', async () => {
    apiServer.use(
      selectRows('user_follow_labels', []),
      rpc('get_latest_releases', () => []),
    )
    renderPage(<NewReleasesFeed />)
    expect(await screen.findByText(messages.empty.feedNothingFollowed)).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Browse Labels' }).getAttribute('href')).toBe('/labels')
  })

  it('says there is nothing new when followed labels have no releases', async () => {
    apiServer.use(
      selectRows('user_follow_labels', [{ label_id: 100 }]),
      rpc('get_latest_releases', () => []),
    )
    renderPage(<NewReleasesFeed />)
    expect(await screen.findByText(messages.empty.feedNoReleases)).toBeTruthy()
  })

  it.each([
    ['a network failure', networkError],
    ['a server failure', () => HttpResponse.json({ message: 'boom', code: 'XX000' }, { status: 500 })],
  ])('shows a failed load (%s) as an error with a retry, never "Try following more labels!"', async (_name, failure) => {
    let fail = true
    apiServer.use(
      selectRows(
        'user_follow_labels',
        range(100, 8).map((label_id) => ({ label_id })),
      ),
      rpc('get_latest_releases', () => (fail ? failure() : [releaseRow(1)])),
    )
    renderPage(<NewReleasesFeed />)
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain(messages.load.releases(''))
    expect(screen.queryByText(messages.empty.feedNoReleases)).toBeNull()
    expect(screen.getAllByRole('alert')).toHaveLength(1)
    fail = false
    fireEvent.click(within(alert).getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByRole('article', { name: 'Release 1 by Artist 1' })).toBeTruthy()
  })

  it('does not guess the empty state when the follows failed to load', async () => {
    apiServer.use(
      http.get('*/rest/v1/user_follow_labels', () => HttpResponse.json({ message: 'boom' }, { status: 500 })),
      rpc('get_latest_releases', () => []),
    )
    renderPage(<NewReleasesFeed />)
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain(messages.load.followedLabels)
    // Said once: in place of the empty state, not in a toast as well.
    expect(screen.getAllByText(messages.load.followedLabels)).toHaveLength(1)
    expect(within(alert).getByRole('button', { name: 'Try Again' })).toBeTruthy()
    expect(screen.queryByText(messages.empty.feedNoReleases)).toBeNull()
    expect(screen.queryByText(messages.empty.feedNothingFollowed)).toBeNull()
  })

  it('ends with "you\'re all caught up" once the last page is in, and not before', async () => {
    const scroll = stubIntersectionObserver()
    apiServer.use(
      selectRows('user_follow_labels', [{ label_id: 100 }]),
      rpc('get_latest_releases', (args) => (args.page === 1 ? range(1, 9).map((id) => releaseRow(id)) : [releaseRow(10)])),
    )
    renderPage(<NewReleasesFeed />)
    await waitFor(() => expect(cards()).toHaveLength(9))
    expect(screen.queryByText(extraMessages.feedEnd)).toBeNull()
    await scroll.scrollToEnd()
    expect(await screen.findByText(extraMessages.feedEnd)).toBeTruthy()
  })

  it('marks a release as listened and keeps it marked', async () => {
    const writes: { method: string; url: string }[] = []
    apiServer.use(
      selectRows('user_follow_labels', [{ label_id: 100 }]),
      rpc('get_latest_releases', () => [releaseRow(1)]),
      ...writeTable('user_listened_releases', 201, writes),
    )
    renderPage(<NewReleasesFeed />)
    const button = await screen.findByRole('button', { name: 'Mark as Listened' })
    expect(button.getAttribute('aria-pressed')).toBe('false')
    fireEvent.click(button)
    expect((await screen.findByRole('status')).textContent).toContain(messages.listen.marked)
    await waitFor(() => expect(button.getAttribute('aria-busy')).toBeNull())
    expect(button.getAttribute('aria-pressed')).toBe('true')
    expect(writes).toEqual([expect.objectContaining({ method: 'POST' })])
  })

  it('rolls a failed listen toggle back with the spec messages', async () => {
    apiServer.use(
      selectRows('user_follow_labels', [{ label_id: 100 }]),
      rpc('get_latest_releases', () => [releaseRow(1)]),
      ...writeTable('user_listened_releases', 403),
    )
    renderPage(<NewReleasesFeed />)
    const button = await screen.findByRole('button', { name: 'Mark as Listened' })
    fireEvent.click(button)
    expect((await screen.findByText(messages.listen.failed)).closest('[role="alert"]')).not.toBeNull()
    expect(screen.getByText(messages.listen.inlineFailed)).toBeTruthy()
    expect(button.getAttribute('aria-pressed')).toBe('false')
  })
})
