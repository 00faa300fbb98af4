import { fireEvent, screen, waitFor } from '@testing-library/react'
import { http, HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { LIVE_TOPICS } from '@/config/constants'
import { apiServer, rpc, setupApiServer } from '@/testing/api-server'
import { fakeLive } from '@/testing/live'
import { renderPage } from '@/testing/render-page'
import { adminMessages } from '../messages'
import { AdminPage } from './admin-page'
import { formatBytes } from './storage-panel'

setupApiServer()

const submission = (id: number) => ({
  id,
  label_url: `https://sub${id}.bandcamp.com`,
  status: 'pending',
  reason: null,
  submitter_id: 'u1',
  submitter_email: 'sub@example.test',
  submitted_at: '2026-11-20T10:00:00Z',
  processed_at: null,
  attempts: 0,
  last_attempt_at: null,
  label_id: null,
})

describe('Admin console, live', () => {
  it('reloads the queue when the database says it changed, and ignores other messages', async () => {
    let loads = 0
    apiServer.use(rpc('admin_submissions', () => (++loads === 1 ? [submission(1)] : [submission(1), submission(2)])))
    const view = renderPage(<AdminPage />)
    await screen.findByText('https://sub1.bandcamp.com')
    await waitFor(() => expect(fakeLive.listening(LIVE_TOPICS.admin, 'changed')).toBe(1))

    fakeLive.emit(LIVE_TOPICS.admin, 'changed', { view: 'members' })
    fakeLive.emit(LIVE_TOPICS.admin, 'changed', {})
    expect(loads).toBe(1)

    fakeLive.emit(LIVE_TOPICS.admin, 'changed', { view: 'queue' })
    expect(await screen.findByText('https://sub2.bandcamp.com')).toBeTruthy()
    expect(loads).toBe(2)
    view.unmount()
    expect(fakeLive.listening(LIVE_TOPICS.admin, 'changed')).toBe(0)
  })

  it('says a retry or a rejection succeeded even when the live queue drops its card first', async () => {
    // The queue's trigger broadcasts when the procedure commits, before its HTTP answer is
    // back: the reload can remove the card (and its mutation observer) before the answer.
    let rows = [submission(1), submission(2)]
    const answers: Array<() => void> = []
    const held = async () => {
      await new Promise<void>((resolve) => answers.push(resolve))
      return HttpResponse.json(null)
    }
    apiServer.use(
      rpc('admin_submissions', () => rows),
      http.post('*/rest/v1/rpc/admin_retry_submission', held),
      http.post('*/rest/v1/rpc/admin_reject_submission', held),
    )
    renderPage(<AdminPage />, '/admin?status=pending')
    await waitFor(() => expect(fakeLive.listening(LIVE_TOPICS.admin, 'changed')).toBe(1))

    fireEvent.click(await screen.findByRole('button', { name: 'Retry https://sub1.bandcamp.com' }))
    await waitFor(() => expect(answers).toHaveLength(1))
    rows = [submission(2)]
    fakeLive.emit(LIVE_TOPICS.admin, 'changed', { view: 'queue' })
    await waitFor(() => expect(screen.queryByText('https://sub1.bandcamp.com')).toBeNull())
    answers[0]()
    expect(await screen.findByText(adminMessages.queue.retried)).toBeTruthy()

    fireEvent.click(screen.getByRole('button', { name: 'Reject https://sub2.bandcamp.com' }))
    fireEvent.change(screen.getByLabelText(adminMessages.queue.reasonLabel), { target: { value: 'a shop' } })
    fireEvent.click(screen.getByRole('button', { name: 'Reject submission' }))
    await waitFor(() => expect(answers).toHaveLength(2))
    rows = []
    fakeLive.emit(LIVE_TOPICS.admin, 'changed', { view: 'queue' })
    await waitFor(() => expect(screen.queryByText('https://sub2.bandcamp.com')).toBeNull())
    answers[1]()
    expect(await screen.findByText(adminMessages.queue.rejected)).toBeTruthy()
  })

  it('reloads the crawl view when a crawl run starts or ends', async () => {
    let loads = 0
    const run = (id: number) => ({
      id,
      started_at: '2026-11-26T03:00:00Z',
      finished_at: null,
      status: 'running',
      stop_reason: null,
      labels_checked: 0,
      labels_valid: 0,
      labels_invalid: 0,
      labels_retried: 0,
      releases_added: id,
      releases_updated: 0,
      network_failures: 0,
      parse_failures: 0,
      error: null,
    })
    apiServer.use(
      rpc('admin_crawl_status', () => ({ next_pass_at: null, open_requests: 0, running: loads > 1, last_succeeded_at: null })),
      rpc('admin_crawl_runs', () => (++loads === 1 ? [] : [run(41)])),
      rpc('admin_label_failures', () => []),
    )
    renderPage(<AdminPage />, '/admin?tab=crawls')
    expect(await screen.findByText(adminMessages.empty.runs)).toBeTruthy()
    await waitFor(() => expect(fakeLive.listening(LIVE_TOPICS.admin, 'changed')).toBe(1))

    fakeLive.emit(LIVE_TOPICS.admin, 'changed', { view: 'queue' })
    expect(loads).toBe(1)
    fakeLive.emit(LIVE_TOPICS.admin, 'changed', { view: 'crawls' })
    await waitFor(() => expect(screen.queryByText(adminMessages.empty.runs)).toBeNull())
    expect(loads).toBe(2)
  })

  it('shows storage use per bucket', async () => {
    apiServer.use(
      rpc('admin_submissions', () => []),
      rpc('admin_storage_use', () => [{ bucket_id: 'avatars', bucket_name: 'avatars', public: false, objects: 3, bytes: 1536 }]),
    )
    renderPage(<AdminPage />)
    fireEvent.click(await screen.findByRole('tab', { name: 'Storage' }))
    expect(await screen.findByText('1.5 KB')).toBeTruthy()
    expect(screen.getByText('private')).toBeTruthy()
    expect(screen.getByText('3')).toBeTruthy()
  })

  it('formats sizes', () => {
    expect(formatBytes(0)).toBe('0 B')
    expect(formatBytes(1023)).toBe('1023 B')
    expect(formatBytes(2 * 1024 * 1024)).toBe('2.0 MB')
    expect(formatBytes(50 * 1024 * 1024)).toBe('50 MB')
    expect(formatBytes(-5)).toBe('0 B')
  })
})
