import { fireEvent, render, screen } from '@testing-library/react'
import { http, HttpResponse } from 'msw'
import { createMemoryRouter, RouterProvider } from 'react-router'
import { beforeEach, describe, expect, it } from 'vitest'
import { ToastProvider } from '@/components/ui/toast'
import { extraMessages, messages } from '@/config/messages'
import { factorHandlers, gotrueError, sessionBody, storeSession, submitCode, totpFactor, type Calls } from '@/features/security/testing'
import { AuthProvider } from '@/lib/auth'
import { apiServer, setupApiServer } from '@/testing/api-server'
import { QueryProvider } from '../provider'
import { ProtectedRoute, PublicOnlyRoute } from './guards'
import LoginRoute from './login'

setupApiServer()

let calls: Calls
beforeEach(() => {
  calls = { requests: [], verifyBodies: [] }
  window.localStorage.clear()
})

/** The sign-in route and a protected page behind the real auth state (supabase-js and MSW). */
function renderApp(path: string) {
  const router = createMemoryRouter(
    [
      { element: <PublicOnlyRoute />, children: [{ path: '/login', element: <LoginRoute /> }] },
      { element: <ProtectedRoute />, children: [{ path: '/labels', element: <p>labels page</p> }] },
    ],
    { initialEntries: [path] },
  )
  render(
    <ToastProvider>
      <QueryProvider defaults={{ queries: { retry: false } }}>
        <AuthProvider>
          <RouterProvider router={router} />
        </AuthProvider>
      </QueryProvider>
    </ToastProvider>,
  )
  return router
}

const codeField = () => screen.findByLabelText('Authentication code')

describe('sign-in with an authenticator app', () => {
  it('asks for the code after the password, then opens the page the user wanted', async () => {
    const verified = [totpFactor('verified')]
    apiServer.use(
      ...factorHandlers(calls, () => verified),
      http.post('*/auth/v1/token', () => HttpResponse.json(sessionBody('aal1', verified))),
    )
    const router = renderApp('/labels')
    fireEvent.change(await screen.findByLabelText('Email'), { target: { value: 'member@example.test' } })
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'password1' } })
    fireEvent.click(screen.getByRole('button', { name: 'Sign In' }))

    expect(await screen.findByRole('heading', { name: 'Two-Step Verification' })).toBeTruthy()
    expect(screen.queryByText('labels page')).toBeNull()
    expect(screen.queryByText(messages.auth.loginSuccess)).toBeNull()
    await submitCode('123456')
    expect(await screen.findByText('labels page')).toBeTruthy()
    expect(router.state.location.pathname).toBe('/labels')
    expect(await screen.findByText(messages.auth.loginSuccess)).toBeTruthy()
    expect(calls.verifyBodies).toEqual([{ challenge_id: expect.any(String), code: '123456' }])
  })

  it('keeps a stored aal1 session at the code step, even on a protected page', async () => {
    storeSession('aal1', [totpFactor('verified')])
    apiServer.use(...factorHandlers(calls, () => [totpFactor('verified')]))
    const router = renderApp('/labels')
    expect(await codeField()).toBeTruthy()
    expect(router.state.location.pathname).toBe('/login')
    expect(screen.queryByText('labels page')).toBeNull()
  })

  it('lets an aal2 session and an account without a factor straight in', async () => {
    storeSession('aal2', [totpFactor('verified')])
    apiServer.use(...factorHandlers(calls, () => [totpFactor('verified')]))
    renderApp('/labels')
    expect(await screen.findByText('labels page')).toBeTruthy()
  })

  it('shows why a code was refused and clears the field', async () => {
    storeSession('aal1', [totpFactor('verified')])
    const answers = [gotrueError(422, 'mfa_verification_failed', 'Invalid TOTP code entered'), gotrueError(429, 'over_request_rate_limit', 'Too many requests')]
    apiServer.use(
      ...factorHandlers(
        calls,
        () => [totpFactor('verified')],
        () => answers.shift(),
      ),
    )
    renderApp('/login')
    await codeField()
    await submitCode('000000')
    expect(await screen.findByText(extraMessages.mfa.codeInvalid)).toBeTruthy()
    expect((screen.getByLabelText('Authentication code') as HTMLInputElement).value).toBe('')
    await submitCode('000001')
    expect(await screen.findByText(extraMessages.mfa.codeRateLimited)).toBeTruthy()
    expect(screen.getByRole('heading', { name: 'Two-Step Verification' })).toBeTruthy()
  })

  it('signs out from the code step to use another account', async () => {
    storeSession('aal1', [totpFactor('verified')])
    apiServer.use(
      ...factorHandlers(calls, () => [totpFactor('verified')]),
      http.post('*/auth/v1/logout', () => new HttpResponse(null, { status: 204 })),
    )
    renderApp('/login')
    await codeField()
    fireEvent.click(screen.getByRole('button', { name: 'Use a different account' }))
    expect(await screen.findByRole('button', { name: 'Sign In' })).toBeTruthy()
  })
})
