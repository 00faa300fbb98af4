import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { HttpResponse } from 'msw'
import { useState } from 'react'
import { beforeEach, describe, expect, it } from 'vitest'
import { COLLECTION_SEED_STORAGE_KEY } from '@/config/constants'
import { messages } from '@/config/messages'
import { apiServer, networkError, rpc, setupApiServer } from '@/testing/api-server'
import { labelRow, range, releaseRow } from '@/testing/factories'
import { renderPage, searchOf } from '@/testing/render-page'
import type { Release } from '@/types/api'
import { CollectionPage } from './collection-page'

setupApiServer()

const renderRelease = (release: Release) => <p>{release.title}</p>
const labelCards = () => screen.queryAllByRole('article')
const collectionLabel = (id: number, checked = false) => ({ ...labelRow(id), is_fully_checked: checked })
const releasesOf = (args: Record<string, unknown>) =>
  (args.p_label_ids as number[]).flatMap((labelId) => (labelId === 3 ? [] : [releaseRow(labelId * 10, { label_id: labelId })]))

describe('Collection page', () => {
  beforeEach(() => window.sessionStorage.setItem(COLLECTION_SEED_STORAGE_KEY, '42'))

  it('pages through the followed labels, five at a time, with their latest releases', async () => {
    apiServer.use(
      rpc('get_all_filtered_labels_by_listen_status', () => range(1, 7).map((id) => collectionLabel(id))),
      rpc('get_latest_releases_per_label', releasesOf),
    )
    const { router } = renderPage(<CollectionPage renderRelease={renderRelease} />, '/collection')
    expect(await screen.findByText(messages.collection.subtitle)).toBeTruthy()
    await waitFor(() => expect(screen.getAllByText('Page 1 of 2')).toHaveLength(2))
    expect(labelCards()).toHaveLength(5)
    const first = labelCards()[0]
    const id = Number(first.getAttribute('data-label-id'))
    await within(first).findByText(id === 3 ? messages.empty.collectionNoReleases : `Release ${id * 10}`)

    fireEvent.click(screen.getAllByRole('button', { name: 'Next page' })[0])
    await waitFor(() => expect(screen.getAllByText('Page 2 of 2')).toHaveLength(2))
    expect(labelCards()).toHaveLength(2)
    expect(searchOf(router).get('page')).toBe('2')
  })

  it('opens the tab and page named in the URL', async () => {
    const calls: Record<string, unknown>[] = []
    apiServer.use(
      rpc('get_all_filtered_labels_by_listen_status', () => range(1, 7).map((id) => collectionLabel(id, true)), calls),
      rpc('get_latest_releases_per_label', releasesOf),
    )
    renderPage(<CollectionPage renderRelease={renderRelease} />, '/collection?tab=checked&page=2')
    await waitFor(() => expect(screen.getAllByText('Page 2 of 2')).toHaveLength(2))
    expect(calls[0]).toMatchObject({ filter_type: 'checked' })
    expect(screen.getByRole('tab', { name: 'All Listened' }).getAttribute('aria-selected')).toBe('true')
    expect(labelCards()[0].getAttribute('data-fully-listened')).toBe('true')
  })

  it('shows the empty states of both tabs', async () => {
    apiServer.use(rpc('get_all_filtered_labels_by_listen_status', () => []))
    const { router } = renderPage(<CollectionPage renderRelease={renderRelease} />, '/collection')
    expect(await screen.findByText(messages.empty.collectionNothingFollowed)).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Go to Labels' }).getAttribute('href')).toBe('/labels')
    fireEvent.click(screen.getByRole('tab', { name: 'All Listened' }))
    expect(await screen.findByText(messages.empty.collectionChecked)).toBeTruthy()
    expect(searchOf(router).get('tab')).toBe('checked')
  })

  it('reports a failed load', async () => {
    apiServer.use(rpc('get_all_filtered_labels_by_listen_status', networkError))
    renderPage(<CollectionPage renderRelease={renderRelease} />, '/collection')
    expect((await screen.findByRole('alert')).textContent).toContain(messages.load.collectionLabels)
  })

  it('dims a label with a check as soon as its last release is marked, and reverts on unmark', async () => {
    const flagCalls: Record<string, unknown>[] = []
    apiServer.use(
      // Label 2 has older releases than its strip shows: the server decides whether they are listened.
      rpc('get_latest_releases_per_label', () => [
        releaseRow(11, { label_id: 1 }),
        releaseRow(12, { label_id: 1 }),
        ...range(21, 5).map((id) => releaseRow(id, { label_id: 2 })),
      ]),
    )
    let serverSaysDone = false
    apiServer.use(
      rpc('get_all_filtered_labels_by_listen_status', (args) =>
        args.filter_type === 'all'
          ? (flagCalls.push(args), [collectionLabel(1), collectionLabel(2, serverSaysDone)])
          : [collectionLabel(1), collectionLabel(2)],
      ),
    )
    function Harness() {
      const [listened, setListened] = useState<ReadonlySet<number>>(new Set([11]))
      const toggle = (id: number) =>
        setListened((set) => {
          const next = new Set(set)
          if (next.has(id)) next.delete(id)
          else next.add(id)
          return next
        })
      return (
        <CollectionPage
          isListened={(release) => listened.has(release.id)}
          renderRelease={(release) => (
            <button type="button" aria-pressed={listened.has(release.id)} onClick={() => toggle(release.id)}>
              {release.title}
            </button>
          )}
        />
      )
    }
    renderPage(<Harness />, '/collection')
    const card1 = await screen.findByRole('article', { name: 'Label 1' })
    await within(card1).findByRole('button', { name: 'Release 12' })
    expect(card1.hasAttribute('data-fully-listened')).toBe(false)

    // A strip with fewer than five releases holds them all: done at once, without asking.
    fireEvent.click(within(card1).getByRole('button', { name: 'Release 12' }))
    expect(card1.getAttribute('data-fully-listened')).toBe('true')
    expect(within(card1).getByText('All releases listened')).toBeTruthy()
    expect(flagCalls).toHaveLength(0)
    fireEvent.click(within(card1).getByRole('button', { name: 'Release 11' }))
    expect(card1.hasAttribute('data-fully-listened')).toBe(false)

    // A full strip asks the server once all five shown are listened.
    const card2 = screen.getByRole('article', { name: 'Label 2' })
    serverSaysDone = true
    for (const id of range(21, 5)) fireEvent.click(within(card2).getByRole('button', { name: `Release ${id}` }))
    await waitFor(() => expect(card2.getAttribute('data-fully-listened')).toBe('true'))
    expect(flagCalls.length).toBeGreaterThan(0)
    fireEvent.click(within(card2).getByRole('button', { name: 'Release 23' }))
    expect(card2.hasAttribute('data-fully-listened')).toBe(false)
  })

  it('shows a failed load as an error with a retry, and card-shaped placeholders while loading', async () => {
    let fail = true
    apiServer.use(
      rpc('get_all_filtered_labels_by_listen_status', () => (fail ? HttpResponse.json({ message: 'boom' }, { status: 500 }) : [collectionLabel(1)])),
      rpc('count_filtered_labels_by_listen_status', () => HttpResponse.json({ message: 'boom' }, { status: 500 })),
      rpc('get_filtered_labels_by_listen_status', () => HttpResponse.json({ message: 'boom' }, { status: 500 })),
      rpc('get_latest_releases_per_label', () => [releaseRow(11, { label_id: 1 })]),
    )
    renderPage(<CollectionPage renderRelease={renderRelease} />, '/collection')
    expect(screen.getAllByTestId('collection-card-skeleton')).toHaveLength(3)
    expect(screen.getAllByTestId('release-skeleton')).toHaveLength(15)
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain(messages.load.collectionLabels)
    expect(screen.queryByText(messages.empty.collectionNothingFollowed)).toBeNull()
    fail = false
    fireEvent.click(within(alert).getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByRole('article', { name: 'Label 1' })).toBeTruthy()
  })

  it("shows failed strips as an error with a retry, not as 'No releases available'", async () => {
    let fail = true
    apiServer.use(
      rpc('get_all_filtered_labels_by_listen_status', () => [collectionLabel(1), collectionLabel(2)]),
      rpc('get_latest_releases_per_label', (args) => (fail ? HttpResponse.json({ message: 'boom' }, { status: 503 }) : releasesOf(args))),
    )
    renderPage(<CollectionPage renderRelease={renderRelease} />, '/collection')
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain(messages.load.releases(''))
    expect(screen.queryByText(messages.empty.collectionNoReleases)).toBeNull()
    expect(screen.getAllByTestId('strip-failed')).toHaveLength(2)
    fail = false
    fireEvent.click(within(alert).getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByText('Release 10')).toBeTruthy()
    expect(screen.queryByRole('alert')).toBeNull()
  })
})
