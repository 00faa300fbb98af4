import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { http, HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { apiServer, networkError, rpc, setupApiServer } from '@/testing/api-server'
import { renderPage, searchOf } from '@/testing/render-page'
import { testUser } from '@/testing/test-utils'
import { ADMIN_LIST_LIMIT } from '@/config/constants'
import { adminMessages } from '../messages'
import { AdminPage } from './admin-page'
import { checkInviteForm } from './invites-panel'

setupApiServer()

const submission = (id: number, status: string, extra: Record<string, unknown> = {}) => ({
  id,
  label_url: `https://sub${id}.bandcamp.com`,
  status,
  reason: status === 'refused' ? 'not a Bandcamp label' : null,
  submitter_id: 'u1',
  submitter_email: 'sub@example.test',
  submitted_at: '2026-11-20T10:00:00Z',
  processed_at: status === 'pending' ? null : '2026-11-21T03:00:00Z',
  attempts: 1,
  last_attempt_at: null,
  label_id: status === 'done' ? 9 : null,
  ...extra,
})
const refusedForMembers = () => HttpResponse.json({ code: '42501', message: 'Only admins may do this', details: null, hint: null }, { status: 403 })
const cards = (list: string) => within(screen.getByRole('list', { name: list })).getAllByRole('listitem')

describe('Admin console', () => {
  it('shows the queue filtered by ?status= with submitter and reason', async () => {
    const calls: Record<string, unknown>[] = []
    apiServer.use(rpc('admin_submissions', () => [submission(2, 'refused')], calls))
    renderPage(<AdminPage />, '/admin?status=refused')
    expect(await screen.findByText('https://sub2.bandcamp.com')).toBeTruthy()
    expect(calls[0]).toEqual({ p_status: 'refused' })
    expect(screen.getByText('not a Bandcamp label')).toBeTruthy()
    expect(screen.getByText('sub@example.test')).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Refused' }).getAttribute('aria-pressed')).toBe('true')
    expect(screen.getByRole('tab', { name: 'Queue' }).getAttribute('aria-selected')).toBe('true')
  })

  it('retries a submission and reloads the queue', async () => {
    const retried: Record<string, unknown>[] = []
    let loads = 0
    apiServer.use(
      rpc('admin_submissions', () => (loads++ === 0 ? [submission(2, 'refused')] : [submission(2, 'pending')])),
      rpc('admin_retry_submission', () => null, retried),
    )
    renderPage(<AdminPage />)
    fireEvent.click(await screen.findByRole('button', { name: 'Retry https://sub2.bandcamp.com' }))
    expect(await screen.findByText(adminMessages.queue.retried)).toBeTruthy()
    expect(retried).toEqual([{ p_id: 2 }])
    await waitFor(() => expect(screen.getByText('pending')).toBeTruthy())
  })

  it('rejects only with a reason, and sends it', async () => {
    const rejected: Record<string, unknown>[] = []
    apiServer.use(
      rpc('admin_submissions', () => [submission(1, 'pending')]),
      rpc('admin_reject_submission', () => null, rejected),
    )
    renderPage(<AdminPage />)
    fireEvent.click(await screen.findByRole('button', { name: 'Reject https://sub1.bandcamp.com' }))
    const reason = screen.getByLabelText(adminMessages.queue.reasonLabel)
    await waitFor(() => expect(document.activeElement).toBe(reason))
    fireEvent.click(screen.getByRole('button', { name: 'Reject submission' }))
    expect(screen.getByRole('alert').textContent).toBe(adminMessages.queue.reasonRequired)
    expect(rejected).toEqual([])
    fireEvent.change(reason, { target: { value: 'a shop, not a label' } })
    fireEvent.click(screen.getByRole('button', { name: 'Reject submission' }))
    expect(await screen.findByText(adminMessages.queue.rejected)).toBeTruthy()
    expect(rejected).toEqual([{ p_id: 1, p_reason: 'a shop, not a label' }])
  })

  it('shows a refused member that the page is for admins', async () => {
    apiServer.use(http.post('*/rest/v1/rpc/admin_submissions', refusedForMembers))
    renderPage(<AdminPage />)
    expect(await screen.findByText(adminMessages.forbidden)).toBeTruthy()
  })

  it('shows a load error with a retry that loads again', async () => {
    let fail = true
    apiServer.use(rpc('admin_submissions', () => (fail ? networkError() : [])))
    renderPage(<AdminPage />)
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain(adminMessages.loadFailed('the submission queue'))
    fail = false
    fireEvent.click(within(alert).getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByText(adminMessages.empty.queue(null))).toBeTruthy()
  })

  it('switches tabs with the arrow keys and keeps the tab in the URL', async () => {
    apiServer.use(
      rpc('admin_submissions', () => []),
      rpc('admin_crawl_status', () => ({ next_pass_at: '2026-11-27T03:00:00Z', open_requests: 0, running: false, last_succeeded_at: null })),
      rpc('admin_crawl_runs', () => []),
      rpc('admin_label_failures', () => []),
    )
    const { router } = renderPage(<AdminPage />, '/admin?status=pending')
    await screen.findByText(adminMessages.empty.queue('pending'))
    const queueTab = screen.getByRole('tab', { name: 'Queue' })
    queueTab.focus()
    fireEvent.keyDown(queueTab, { key: 'ArrowRight' })
    expect(await screen.findByText('27 Nov 2026, 03:00 UTC')).toBeTruthy()
    expect(searchOf(router).get('tab')).toBe('crawls')
    expect(searchOf(router).get('status')).toBeNull()
    expect(document.activeElement).toBe(screen.getByRole('tab', { name: 'Crawls' }))
    expect(screen.getByText(adminMessages.empty.runs)).toBeTruthy()
  })

  it('asks for a crawl now and shows passes with stop reason and failures', async () => {
    const requested: Record<string, unknown>[] = []
    apiServer.use(
      rpc('admin_crawl_status', () => ({ next_pass_at: null, open_requests: 1, running: false, last_succeeded_at: null })),
      rpc('admin_crawl_runs', () => [
        {
          id: 7,
          started_at: '2026-11-26T03:00:00Z',
          finished_at: '2026-11-26T03:01:00Z',
          status: 'failed',
          stop_reason: 'all_failed',
          labels_checked: 2,
          labels_valid: 1,
          labels_invalid: 1,
          labels_retried: 0,
          releases_added: 5,
          releases_updated: 0,
          network_failures: 3,
          parse_failures: 1,
          error: 'all_failed',
        },
      ]),
      rpc('admin_label_failures', () => [
        {
          label_id: 4,
          label_name: 'Broken Label',
          url: 'https://broken.bandcamp.com/music',
          reason: 'no release list',
          first_seen_at: '2026-11-25T03:00:00Z',
          last_seen_at: '2026-11-26T03:00:00Z',
        },
      ]),
      rpc('admin_request_crawl', () => 12, requested),
    )
    renderPage(<AdminPage />, '/admin?tab=crawls')
    expect(await screen.findByText('stopped: all_failed')).toBeTruthy()
    expect(within(cards('Labels that failed to parse')[0]).getByText('no release list')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Crawl now' }))
    expect(await screen.findByText(adminMessages.crawls.requested)).toBeTruthy()
    expect(requested).toEqual([{}])
  })

  it('hides a label, searches from ?q=, and links to Bandcamp', async () => {
    const calls: Record<string, unknown>[] = []
    const hidden: Record<string, unknown>[] = []
    apiServer.use(
      rpc(
        'admin_labels',
        () => [
          {
            id: 3,
            label_name: 'Night Shift',
            label_url: 'https://nightshift.bandcamp.com',
            tags: [],
            hidden: false,
            crawled_at: null,
            parse_failure: null,
            followers: 2,
          },
        ],
        calls,
      ),
      rpc('admin_set_label_hidden', () => null, hidden),
    )
    renderPage(<AdminPage />, '/admin?tab=labels&q=night')
    expect(await screen.findByText('Night Shift')).toBeTruthy()
    expect(calls[0]).toEqual({ p_search: 'night', p_limit: 100 })
    expect((screen.getByRole('searchbox') as HTMLInputElement).value).toBe('night')
    expect(screen.getByRole('link', { name: /Open on Bandcamp/ }).getAttribute('href')).toBe('https://nightshift.bandcamp.com')
    fireEvent.click(screen.getByRole('button', { name: 'Hide Night Shift' }))
    expect(await screen.findByText(adminMessages.labels.hidden('Night Shift'))).toBeTruthy()
    expect(hidden).toEqual([{ p_label_id: 3, p_hidden: true }])
  })

  it('manages members: no ban or demotion of oneself, make admin, reset link by mail', async () => {
    const promoted: Record<string, unknown>[] = []
    const recovered: unknown[] = []
    const member = (id: string, email: string, extra = {}) => ({
      id,
      email,
      joined_at: '2026-11-01T00:00:00Z',
      invite_code: 'abcd-efgh',
      invite_note: 'friends',
      follows: 4,
      banned: false,
      banned_until: null,
      is_admin: false,
      last_sign_in_at: null,
      ...extra,
    })
    apiServer.use(
      rpc('admin_members', () => [
        member(testUser.id, testUser.email, { is_admin: true }),
        member('u2', 'jo@example.test', { banned: true, banned_until: '2126-01-01T00:00:00Z' }),
      ]),
      rpc('admin_set_admin', () => null, promoted),
      http.post('*/auth/v1/recover', async ({ request }) => {
        recovered.push(await request.json())
        return HttpResponse.json({})
      }),
    )
    renderPage(<AdminPage />, '/admin?tab=members')
    expect(await screen.findByText('jo@example.test')).toBeTruthy()
    expect(screen.getByRole('button', { name: `Ban ${testUser.email}` }).hasAttribute('disabled')).toBe(true)
    expect(screen.getByRole('button', { name: `Remove admin from ${testUser.email}` }).hasAttribute('disabled')).toBe(true)
    expect(screen.getByRole('button', { name: 'Unban jo@example.test' }).hasAttribute('disabled')).toBe(false)
    expect(within(cards('Members')[1]).getByText('abcd-efgh (friends)')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Make admin jo@example.test' }))
    expect(await screen.findByText(adminMessages.members.madeAdmin('jo@example.test'))).toBeTruthy()
    expect(promoted).toEqual([{ p_user_id: 'u2', p_admin: true }])
    fireEvent.click(screen.getByRole('button', { name: 'Send reset link to jo@example.test' }))
    expect(await screen.findByText(adminMessages.members.resetSent('jo@example.test'))).toBeTruthy()
    expect(recovered).toMatchObject([{ email: 'jo@example.test' }])
  })

  it('says when the members list was cut at the limit, and asks for no more than it', async () => {
    const calls: Record<string, unknown>[] = []
    const rows = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        id: `u${i}`,
        email: `m${i}@example.test`,
        joined_at: '2026-11-01T00:00:00Z',
        invite_code: null,
        invite_note: null,
        follows: 0,
        banned: false,
        banned_until: null,
        is_admin: false,
        last_sign_in_at: null,
      }))
    let n = ADMIN_LIST_LIMIT
    apiServer.use(rpc('admin_members', () => rows(n), calls))
    const { unmount } = renderPage(<AdminPage />, '/admin?tab=members')
    expect(await screen.findByText(adminMessages.limited.members(ADMIN_LIST_LIMIT))).toBeTruthy()
    expect(calls[0]).toEqual({ p_limit: ADMIN_LIST_LIMIT })
    unmount()
    n = ADMIN_LIST_LIMIT - 1
    renderPage(<AdminPage />, '/admin?tab=members&q=m1')
    expect(await screen.findByText('m1@example.test')).toBeTruthy()
    expect(screen.queryByText(adminMessages.limited.members(ADMIN_LIST_LIMIT))).toBeNull()
  })

  it('says when the labels list was cut at the limit', async () => {
    const rows = Array.from({ length: ADMIN_LIST_LIMIT }, (_, i) => ({
      id: i + 1,
      label_name: `Label ${i}`,
      label_url: `https://label${i}.bandcamp.com`,
      tags: [],
      hidden: false,
      crawled_at: null,
      parse_failure: null,
      followers: 0,
    }))
    apiServer.use(rpc('admin_labels', () => rows))
    renderPage(<AdminPage />, '/admin?tab=labels')
    expect(await screen.findByText(adminMessages.limited.labels(ADMIN_LIST_LIMIT))).toBeTruthy()
  })

  it('creates an invite after checking the form, shows the code, and revokes one', async () => {
    const created: Record<string, unknown>[] = []
    const revoked: Record<string, unknown>[] = []
    apiServer.use(
      rpc('admin_invites', () => [
        {
          id: 5,
          code: 'wxyz-2345',
          max_uses: 1,
          uses: 0,
          expires_at: null,
          revoked_at: null,
          note: 'for Jo',
          created_at: '2026-11-25T00:00:00Z',
          status: 'active',
          used_by: [],
        },
      ]),
      rpc('admin_create_invite', () => [{ id: 6, code: 'k7mq-2xwz-aaaa-bbbb-cccc-dddd', max_uses: 3, expires_at: null, note: 'band' }], created),
      rpc('admin_revoke_invite', () => null, revoked),
    )
    renderPage(<AdminPage />, '/admin?tab=invites')
    await screen.findByText('wxyz-2345')
    fireEvent.change(screen.getByLabelText('Uses'), { target: { value: '0' } })
    fireEvent.click(screen.getByRole('button', { name: 'Create invite' }))
    expect(await screen.findByText(adminMessages.invites.usesInvalid)).toBeTruthy()
    expect(created).toEqual([])
    fireEvent.change(screen.getByLabelText('Uses'), { target: { value: '3' } })
    fireEvent.change(screen.getByLabelText('Expires in (hours)'), { target: { value: '' } })
    fireEvent.change(screen.getByLabelText('Note'), { target: { value: ' band ' } })
    fireEvent.click(screen.getByRole('button', { name: 'Create invite' }))
    expect(await screen.findByText('k7mq-2xwz-aaaa-bbbb-cccc-dddd')).toBeTruthy()
    expect(created).toEqual([{ p_max_uses: 3, p_note: 'band' }])
    fireEvent.click(screen.getByRole('button', { name: 'Revoke invite wxyz-2345' }))
    expect(await screen.findByText(adminMessages.invites.revoked)).toBeTruthy()
    expect(revoked).toEqual([{ p_id: 5 }])
  })

  it('checks the invite form', () => {
    expect(checkInviteForm('1', '72', '')).toEqual({})
    expect(checkInviteForm('1', '', 'x')).toEqual({})
    expect(Object.keys(checkInviteForm('1.5', '0', 'x'.repeat(201)))).toEqual(['uses', 'expires', 'note'])
    expect(checkInviteForm('10001', '87601', '').expires).toBe(adminMessages.invites.expiryInvalid)
  })
})
