import { fireEvent, screen, waitFor, within } from '@testing-library/react'
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
})
