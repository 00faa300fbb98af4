import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { HttpResponse } from 'msw'
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
    // It fades out first (a short transition), hidden from assistive technology meanwhile.
    await waitFor(() => expect(document.querySelector('[data-label-id="1"][data-leaving]')).not.toBeNull())
    await waitFor(() => expect(screen.queryByRole('article', { name: 'Label 1' })).toBeNull())
    await waitFor(() => expect(document.querySelector('[data-label-id="1"]')).toBeNull())
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

  it.each([
    ['a network failure', networkError],
    ['a server failure', () => HttpResponse.json({ message: 'boom', code: 'XX000' }, { status: 500 })],
  ])('shows a failed load (%s) as an error with a retry, never a count above an empty state', async (_name, failure) => {
    let fail = true
    apiServer.use(
      rpc('get_unfollowed_labels', () => (fail ? failure() : [labelRow(1)])),
      rpc('count_unfollowed_labels', () => 1),
    )
    renderPage(<LabelsPage />)
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain(messages.load.labels('discover'))
    expect(screen.queryByText(messages.empty.labelsDiscover)).toBeNull()
    expect(screen.queryByText('1 available labels')).toBeNull()
    // Said once: no toast repeats the panel.
    expect(screen.getAllByText(messages.load.labels('discover'))).toHaveLength(1)
    fail = false
    fireEvent.click(within(alert).getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByText('1 available labels')).toBeTruthy()
    expect(screen.getByRole('article', { name: 'Label 1' })).toBeTruthy()
  })

  it('shows a failed next page at the end of the list, with a retry', async () => {
    const scroll = stubIntersectionObserver()
    const labels = range(1, 25).map((id) => labelRow(id))
    let fail = true
    apiServer.use(
      rpc('get_unfollowed_labels', (args) => (args.page_number === 2 && fail ? networkError() : pageOf(labels, args))),
      rpc('count_unfollowed_labels', () => 25),
    )
    renderPage(<LabelsPage />)
    await screen.findByText('25 available labels')
    await scroll.scrollToEnd()
    const alert = await screen.findByRole('alert')
    expect(cards()).toHaveLength(20)
    expect(screen.getByText('25 available labels')).toBeTruthy()
    fail = false
    fireEvent.click(within(alert).getByRole('button', { name: 'Try Again' }))
    await waitFor(() => expect(cards()).toHaveLength(25))
  })

  it('offers Discover from an empty Following tab', async () => {
    apiServer.use(
      rpc('get_followed_labels', () => []),
      rpc('count_followed_labels', () => 0),
      rpc('get_unfollowed_labels', () => [labelRow(1)]),
      rpc('count_unfollowed_labels', () => 1),
    )
    const { router } = renderPage(<LabelsPage />, '/labels?tab=following')
    expect(await screen.findByText(messages.empty.labelsFollowing)).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Discover Labels' }))
    expect(await screen.findByText('1 available labels')).toBeTruthy()
    expect(searchOf(router).get('tab')).toBeNull()
  })

  it('keeps the tag row in place when a tag is chosen, and reaches every tag through More tags', async () => {
    const tags = range(1, 16).map((n) => ({ tag: `tag-${String(n).padStart(2, '0')}`, labels: 100 - n }))
    apiServer.use(
      rpc('get_label_tags', (args) => (args.followed ? [] : tags)),
      rpc('get_unfollowed_labels', (args) => [labelRow(1, { tags: [String(args.tag_filter ?? 'techno')] })]),
      rpc('count_unfollowed_labels', () => 1),
    )
    const { router } = renderPage(<LabelsPage />)
    const row = await screen.findByRole('list', { name: 'Filter by tag' })
    const before = within(row)
      .getAllByRole('button')
      .map((b) => b.textContent)
    expect(before).toEqual(tags.slice(0, 12).map((t) => t.tag))
    fireEvent.click(within(row).getByRole('button', { name: 'tag-05' }))
    await waitFor(() => expect(searchOf(router).get('tag')).toBe('tag-05'))
    await screen.findByText('Tag: tag-05')
    const after = within(screen.getByRole('list', { name: 'Filter by tag' }))
      .getAllByRole('button')
      .map((b) => b.textContent)
    expect(after).toEqual(before)

    fireEvent.click(screen.getByRole('button', { name: 'More tags (4)' }))
    fireEvent.change(screen.getByLabelText('Find a tag'), { target: { value: '16' } })
    const all = screen.getByRole('list', { name: 'All tags' })
    expect(
      within(all)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['tag-16'])
    fireEvent.click(within(all).getByRole('button', { name: 'tag-16' }))
    await waitFor(() => expect(searchOf(router).get('tag')).toBe('tag-16'))
    expect(
      within(screen.getByRole('list', { name: 'Filter by tag' }))
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(before)
  })

  it('drops a tag that no label of the new tab carries on a tab switch, and keeps one that applies', async () => {
    apiServer.use(
      rpc('get_label_tags', (args) =>
        args.followed
          ? [{ tag: 'dub', labels: 2 }]
          : [
              { tag: 'dub', labels: 3 },
              { tag: 'techno', labels: 9 },
            ],
      ),
      rpc('get_unfollowed_labels', () => [labelRow(1)]),
      rpc('count_unfollowed_labels', () => 1),
      rpc('get_followed_labels', () => [labelRow(2, { tags: ['dub'] })]),
      rpc('count_followed_labels', () => 1),
    )
    const { router } = renderPage(<LabelsPage />, '/labels?tag=techno')
    await screen.findByText('1 available labels')
    await screen.findByRole('list', { name: 'Filter by tag' })
    await waitFor(() => expect(screen.getAllByRole('list', { name: 'Filter by tag' })).toHaveLength(1))
    fireEvent.click(screen.getByRole('tab', { name: 'Following' }))
    await screen.findByText('1 followed labels')
    expect(searchOf(router).get('tag')).toBeNull()
    expect(screen.queryByText('Tag: techno')).toBeNull()

    fireEvent.click(within(screen.getByRole('list', { name: 'Filter by tag' })).getByRole('button', { name: 'dub' }))
    await screen.findByText('Tag: dub')
    fireEvent.click(screen.getByRole('tab', { name: 'Discover' }))
    await screen.findByText('1 available labels')
    expect(searchOf(router).get('tag')).toBe('dub')
  })

  it('shows a followed label as a quiet Following that offers Unfollow, with Undo after it', async () => {
    const calls: { method: string; url: string }[] = []
    apiServer.use(
      rpc('get_followed_labels', () => (calls.some((c) => c.method === 'POST') || calls.length === 0 ? [labelRow(3)] : [])),
      rpc('count_followed_labels', () => 1),
      ...writeTable('user_follow_labels', 201, calls),
    )
    renderPage(<LabelsPage />, '/labels?tab=following')
    const card = await screen.findByRole('article', { name: 'Label 3' })
    const button = within(card).getByRole('button', { name: 'Follow' })
    expect(button.getAttribute('aria-pressed')).toBe('true')
    expect(button.textContent).toContain('Following')
    expect(button.textContent).toContain('Unfollow')
    expect(button.className).not.toContain('bg-violet-600')
    fireEvent.click(button)
    const toast = await screen.findByRole('status')
    expect(toast.textContent).toContain(messages.follow.unfollowed)
    await waitFor(() => expect(screen.queryByRole('article', { name: 'Label 3' })).toBeNull())
    expect(calls.map((c) => c.method)).toEqual(['DELETE'])
    // Past the toggle throttle, Undo follows it again and it comes back to the tab.
    await new Promise((resolve) => setTimeout(resolve, 320))
    fireEvent.click(within(toast).getByRole('button', { name: 'Undo' }))
    expect(await screen.findByRole('article', { name: 'Label 3' })).toBeTruthy()
    expect(calls.map((c) => c.method)).toEqual(['DELETE', 'POST'])
  })
})
