import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { messages } from '@/config/messages'
import { apiServer, networkError, rpc, setupApiServer, writeTable } from '@/testing/api-server'
import { labelRow, range } from '@/testing/factories'
import { renderPage, searchOf, stubIntersectionObserver } from '@/testing/render-page'
import { LabelsPage } from './labels-page'

setupApiServer()

const cards = () => screen.queryAllByRole('article')
const pageOf = (labels: ReturnType<typeof labelRow>[], args: Record<string, unknown>) => {
  const size = args.items_per_page as number
  const start = ((args.page_number as number) - 1) * size
  return labels.slice(start, start + size)
}

describe('Labels page', () => {
  it('lists labels to discover, 20 at a time, with their count', async () => {
    const scroll = stubIntersectionObserver()
    const labels = range(1, 25).map((id) => labelRow(id))
    apiServer.use(
      rpc('get_unfollowed_labels', (args) => pageOf(labels, args)),
      rpc('count_unfollowed_labels', () => 25),
    )
    renderPage(<LabelsPage />)
    expect(await screen.findByText('25 available labels')).toBeTruthy()
    expect(cards()).toHaveLength(20)
    expect(within(cards()[0]).getByRole('link', { name: 'Label 1' }).getAttribute('href')).toBe('https://label1.bandcamp.com')
    await scroll.scrollToEnd()
    await waitFor(() => expect(cards()).toHaveLength(25))
  })

  it('reads the tab and the tag from the URL and passes them to the server', async () => {
    const calls: Record<string, unknown>[] = []
    apiServer.use(
      rpc('get_followed_labels', () => [labelRow(7, { tags: ['dub'] })], calls),
      rpc('count_followed_labels', () => 1),
    )
    renderPage(<LabelsPage />, '/labels?tab=following&tag=dub')
    expect(await screen.findByText('1 followed labels')).toBeTruthy()
    expect(screen.getByRole('tab', { name: 'Following' }).getAttribute('aria-selected')).toBe('true')
    expect(screen.getByText('Tag: dub')).toBeTruthy()
    expect(calls[0]).toMatchObject({ tag_filter: 'dub', page_number: 1, items_per_page: 20 })
    expect(calls[0]).not.toHaveProperty('search_term')
  })

  it('writes a tab switch to the URL and shows the empty Following tab', async () => {
    apiServer.use(
      rpc('get_unfollowed_labels', () => [labelRow(1)]),
      rpc('count_unfollowed_labels', () => 1),
      rpc('get_followed_labels', () => []),
      rpc('count_followed_labels', () => 0),
    )
    const { router } = renderPage(<LabelsPage />, '/labels')
    await screen.findByText('1 available labels')
    fireEvent.click(screen.getByRole('tab', { name: 'Following' }))
    expect(await screen.findByText(messages.empty.labelsFollowing)).toBeTruthy()
    expect(searchOf(router).get('tab')).toBe('following')
    await router.navigate(-1)
    expect(await screen.findByText('1 available labels')).toBeTruthy()
  })

  it('follows a label: it leaves Discover and the count drops', async () => {
    apiServer.use(
      rpc('get_unfollowed_labels', () => [labelRow(1), labelRow(2)]),
      rpc('count_unfollowed_labels', () => 2),
      ...writeTable('user_follow_labels', 201),
    )
    renderPage(<LabelsPage />)
    await screen.findByText('2 available labels')
    const card = screen.getByRole('article', { name: 'Label 1' })
    fireEvent.click(within(card).getByRole('button', { name: 'Follow' }))
    expect((await screen.findByRole('status')).textContent).toContain(messages.follow.followed)
    await waitFor(() => expect(screen.queryByRole('article', { name: 'Label 1' })).toBeNull())
    expect(screen.getByText('1 available labels')).toBeTruthy()
  })

  it('keeps a label whose follow failed, with both messages', async () => {
    apiServer.use(
      rpc('get_unfollowed_labels', () => [labelRow(1)]),
      rpc('count_unfollowed_labels', () => 1),
      ...writeTable('user_follow_labels', 403),
    )
    renderPage(<LabelsPage />)
    const card = await screen.findByRole('article', { name: 'Label 1' })
    const button = within(card).getByRole('button', { name: 'Follow' })
    fireEvent.click(button)
    expect((await screen.findByText(messages.follow.failed)).closest('[role="alert"]')).not.toBeNull()
    expect(within(card).getByText(messages.follow.inlineFailed)).toBeTruthy()
    expect(button.getAttribute('aria-pressed')).toBe('false')
  })

  it('reports a failed load', async () => {
    apiServer.use(
      rpc('get_unfollowed_labels', networkError),
      rpc('count_unfollowed_labels', () => 0),
    )
    renderPage(<LabelsPage />)
    expect((await screen.findByRole('alert')).textContent).toContain(messages.load.labels('discover'))
    expect(screen.getByText(messages.empty.labelsDiscover)).toBeTruthy()
  })
})
