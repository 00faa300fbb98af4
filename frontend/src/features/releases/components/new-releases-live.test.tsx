import { fireEvent, screen, waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { LIVE_TOPICS } from '@/config/constants'
import { extraMessages } from '@/config/messages'
import { fakeLive } from '@/testing/live'
import { apiServer, rpc, selectRows, setupApiServer } from '@/testing/api-server'
import { releaseRow } from '@/testing/factories'
import { renderPage } from '@/testing/render-page'
import { testUser } from '@/testing/test-utils'
import { useLiveListens } from '../hooks/use-live-listens'
import { NewReleasesFeed } from './new-releases-feed'

setupApiServer()

function FeedWithLiveListens() {
  useLiveListens(testUser.id)
  return <NewReleasesFeed />
}

describe('New Releases feed, live', () => {
  it('counts releases added to followed labels only, and shows them on tap', async () => {
    const pages: number[] = []
    let latest = [releaseRow(1)]
    apiServer.use(
      selectRows('user_follow_labels', [{ label_id: 100 }]),
      rpc('get_latest_releases', (args) => {
        pages.push(args.page as number)
        return latest
      }),
    )
    renderPage(<NewReleasesFeed />)
    await screen.findByRole('article', { name: 'Release 1 by Artist 1' })
    await waitFor(() => expect(fakeLive.listening(LIVE_TOPICS.releases, 'added')).toBe(1))

    // Label 999 is not followed; a malformed count is ignored.
    fakeLive.emit(LIVE_TOPICS.releases, 'added', { labels: { '100': 2, '999': 5, '101': 'x' } })
    const notice = await screen.findByRole('button', { name: extraMessages.newReleases(2) })
    fakeLive.emit(LIVE_TOPICS.releases, 'added', { labels: { '100': 1 } })
    expect(notice.textContent).toBe('3 new releases')
    // The feed does not move under the reader until asked.
    expect(pages).toEqual([1])

    latest = [releaseRow(2), releaseRow(1)]
    fireEvent.click(notice)
    await screen.findByRole('article', { name: 'Release 2 by Artist 2' })
    expect(pages).toEqual([1, 1])
    expect(screen.queryByRole('button', { name: /new release/ })).toBeNull()
  })

  it('shows nothing for messages about unfollowed labels or without labels', async () => {
    apiServer.use(
      selectRows('user_follow_labels', [{ label_id: 100 }]),
      rpc('get_latest_releases', () => [releaseRow(1)]),
    )
    renderPage(<NewReleasesFeed />)
    await screen.findByRole('article', { name: 'Release 1 by Artist 1' })
    fakeLive.emit(LIVE_TOPICS.releases, 'added', { labels: { '5': 3 } })
    fakeLive.emit(LIVE_TOPICS.releases, 'added', {})
    fakeLive.emit(LIVE_TOPICS.releases, 'added', { labels: null })
    expect(screen.queryByRole('button', { name: /new release/ })).toBeNull()
  })

  it('applies marks and unmarks made on another device, and stops listening when closed', async () => {
    apiServer.use(
      selectRows('user_follow_labels', [{ label_id: 100 }]),
      rpc('get_latest_releases', () => [releaseRow(1)]),
    )
    const view = renderPage(<FeedWithLiveListens />)
    const button = await screen.findByRole('button', { name: 'Mark as Listened' })
    const topic = LIVE_TOPICS.listens(testUser.id)
    expect(fakeLive.listening(topic, 'listen')).toBe(1)

    fakeLive.emit(topic, 'listen', { release_id: 1, listened: true })
    await waitFor(() => expect(button.getAttribute('aria-pressed')).toBe('true'))
    // Bad payloads change nothing.
    fakeLive.emit(topic, 'listen', { release_id: 'one', listened: false })
    fakeLive.emit(topic, 'listen', { release_id: 1, listened: 'no' })
    expect(button.getAttribute('aria-pressed')).toBe('true')

    fakeLive.emit(topic, 'listen', { release_id: 1, listened: false })
    await waitFor(() => expect(button.getAttribute('aria-pressed')).toBe('false'))

    view.unmount()
    expect(fakeLive.listening(topic, 'listen')).toBe(0)
    expect(fakeLive.listening(LIVE_TOPICS.releases, 'added')).toBe(0)
  })
})
