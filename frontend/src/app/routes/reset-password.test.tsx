import { render, screen } from '@testing-library/react'
import { createMemoryRouter, RouterProvider } from 'react-router'
import { beforeEach, describe, expect, it } from 'vitest'
import { ToastProvider } from '@/components/ui/toast'
import { factorHandlers, storeSession, submitCode, totpFactor, type Calls } from '@/features/security/testing'
import { AuthProvider } from '@/lib/auth'
import { apiServer, setupApiServer } from '@/testing/api-server'
import { QueryProvider } from '../provider'
import ResetPasswordRoute from './reset-password'

setupApiServer()

let calls: Calls
beforeEach(() => {
  calls = { requests: [], verifyBodies: [] }
  window.localStorage.clear()
  window.sessionStorage.clear()
})

function renderReset() {
  const router = createMemoryRouter([{ path: '/reset-password', element: <ResetPasswordRoute /> }], { initialEntries: ['/reset-password'] })
  render(
    <ToastProvider>
      <QueryProvider defaults={{ queries: { retry: false } }}>
        {/* Opened from a reset link: the address said type=recovery. */}
        <AuthProvider link={{ recovery: true, error: null }}>
          <RouterProvider router={router} />
        </AuthProvider>
      </QueryProvider>
    </ToastProvider>,
  )
}

describe('reset password with an authenticator app', () => {
  it('asks for the code before the new password', async () => {
    // The link's session: the mailbox alone (aal1) on an account with a verified factor.
    storeSession('aal1', [totpFactor('verified')])
    apiServer.use(...factorHandlers(calls, () => [totpFactor('verified')]))
    renderReset()
    expect(await screen.findByRole('heading', { name: 'Two-Step Verification' })).toBeTruthy()
    expect(screen.queryByLabelText('New password')).toBeNull()
    await submitCode('246810')
    expect(await screen.findByRole('heading', { name: 'Choose a New Password' })).toBeTruthy()
    expect(calls.verifyBodies).toEqual([{ challenge_id: expect.any(String), code: '246810' }])
  })

  it('goes straight to the new password without a factor', async () => {
    storeSession('aal1', [])
    renderReset()
    expect(await screen.findByRole('heading', { name: 'Choose a New Password' })).toBeTruthy()
  })
})
