import { fireEvent, screen, within } from '@testing-library/react'
import { http } from 'msw'
import { beforeEach, describe, expect, it } from 'vitest'
import { extraMessages } from '@/config/messages'
import { factorHandlers, gotrueError, storeSession, submitCode, totpFactor, type Calls } from '@/features/security/testing'
import { apiServer, rpc, setupApiServer } from '@/testing/api-server'
import { renderPage } from '@/testing/render-page'
import AdminRoute from './admin'

setupApiServer()

let calls: Calls
let adminCalls: Record<string, unknown>[]
beforeEach(() => {
  calls = { requests: [], verifyBodies: [] }
  adminCalls = []
  window.localStorage.clear()
})

const queueRow = {
  id: 1,
  label_url: 'https://sub1.bandcamp.com',
  status: 'pending',
  reason: null,
  submitter_id: 'u1',
  submitter_email: 'sub@example.test',
  submitted_at: '2026-11-20T10:00:00Z',
  processed_at: null,
  attempts: 0,
  last_attempt_at: null,
  label_id: null,
}

/**
 * The console behind its second step. The stored session is aal1 and was saved before the
 * factor was verified (its user lists no factor, so the app counts it as signed in); the server
 * (GET /user) knows the verified factor. That is the session the database now refuses admin
 * rights to.
 */
describe('Admin console, second step', () => {
  it('asks for the code and shows nothing of the console before it', async () => {
    storeSession('aal1', [])
    apiServer.use(
      ...factorHandlers(calls, () => [totpFactor('verified')]),
      rpc('admin_submissions', () => [queueRow], adminCalls),
    )
    renderPage(<AdminRoute />, '/admin')
    expect(await screen.findByRole('heading', { name: 'Two-Step Verification' })).toBeTruthy()
    expect(await screen.findByLabelText('Authentication code')).toBeTruthy()
    expect(screen.queryByRole('heading', { name: 'Admin' })).toBeNull()
    expect(screen.queryByRole('tab')).toBeNull()
    expect(adminCalls).toEqual([])
    expect(calls.requests).toContain('GET /user')
  })

  it('shows the console after a correct code', async () => {
    storeSession('aal1', [])
    apiServer.use(
      ...factorHandlers(calls, () => [totpFactor('verified')]),
      rpc('admin_submissions', () => [queueRow], adminCalls),
    )
    renderPage(<AdminRoute />, '/admin')
    await screen.findByLabelText('Authentication code')
    await submitCode('123 456')
    expect(await screen.findByText('https://sub1.bandcamp.com')).toBeTruthy()
    expect(screen.getByRole('heading', { name: 'Admin' })).toBeTruthy()
    expect(screen.queryByLabelText('Authentication code')).toBeNull()
    expect(calls.verifyBodies).toEqual([{ challenge_id: expect.any(String), code: '123456' }])
    expect(adminCalls).toHaveLength(1)
  })

  it('shows the error on a wrong code and keeps the console closed', async () => {
    storeSession('aal1', [])
    apiServer.use(
      ...factorHandlers(
        calls,
        () => [totpFactor('verified')],
        () => gotrueError(422, 'mfa_verification_failed', 'Invalid TOTP code entered'),
      ),
      rpc('admin_submissions', () => [queueRow], adminCalls),
    )
    renderPage(<AdminRoute />, '/admin')
    await screen.findByLabelText('Authentication code')
    await submitCode('111111')
    expect(await screen.findByText(extraMessages.mfa.codeInvalid)).toBeTruthy()
    expect((screen.getByLabelText('Authentication code') as HTMLInputElement).value).toBe('')
    expect(screen.queryByRole('tab')).toBeNull()
    expect(adminCalls).toEqual([])
  })

  it('refuses a code that is not six digits before any request', async () => {
    storeSession('aal1', [])
    apiServer.use(
      ...factorHandlers(calls, () => [totpFactor('verified')]),
      rpc('admin_submissions', () => [queueRow], adminCalls),
    )
    renderPage(<AdminRoute />, '/admin')
    await screen.findByLabelText('Authentication code')
    await submitCode('12 34')
    expect(await screen.findByText(extraMessages.mfa.codeFormat)).toBeTruthy()
    expect(calls.verifyBodies).toEqual([])
    expect(adminCalls).toEqual([])
  })

  it('opens at once for a session that passed the code', async () => {
    storeSession('aal2', [totpFactor('verified')])
    apiServer.use(
      ...factorHandlers(calls, () => [totpFactor('verified')]),
      rpc('admin_submissions', () => [queueRow], adminCalls),
    )
    renderPage(<AdminRoute />, '/admin')
    expect(await screen.findByText('https://sub1.bandcamp.com')).toBeTruthy()
    expect(screen.queryByLabelText('Authentication code')).toBeNull()
  })

  it('opens at once for an account without an authenticator app', async () => {
    storeSession('aal1', [])
    apiServer.use(
      ...factorHandlers(calls, () => []),
      rpc('admin_submissions', () => [queueRow], adminCalls),
    )
    renderPage(<AdminRoute />, '/admin')
    expect(await screen.findByText('https://sub1.bandcamp.com')).toBeTruthy()
    expect(screen.queryByLabelText('Authentication code')).toBeNull()
  })

  it('shows a failed check with a retry, and nothing of the console', async () => {
    storeSession('aal1', [])
    let fail = true
    apiServer.use(
      ...factorHandlers(calls, () => [totpFactor('verified')]),
      rpc('admin_submissions', () => [queueRow], adminCalls),
    )
    apiServer.use(http.get('*/auth/v1/user', () => (fail ? gotrueError(500, 'unexpected_failure', 'boom') : undefined)))
    renderPage(<AdminRoute />, '/admin')
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain(extraMessages.mfa.levelsFailed)
    expect(screen.queryByRole('tab')).toBeNull()
    expect(adminCalls).toEqual([])
    fail = false
    fireEvent.click(within(alert).getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByLabelText('Authentication code')).toBeTruthy()
  })
})
