import { act, render, screen } from '@testing-library/react'
import { useState, type ReactNode } from 'react'
import { createMemoryRouter, RouterProvider } from 'react-router'
import { describe, expect, it } from 'vitest'
import { messages } from '@/config/messages'
import { ResetPasswordForm } from '@/features/auth/components/reset-password-form'
import { QueryProvider } from '@/app/provider'
import { ToastProvider } from '@/components/ui/toast'
import { AuthContext, type AuthContextValue, type AuthStatus } from '@/lib/auth'
import type { AuthLinkError } from '@/lib/auth-link'
import { authValue, renderWithProviders } from '@/testing/test-utils'
import { ProtectedRoute, PublicOnlyRoute } from './guards'

function renderAt(path: string, status: AuthStatus, auth: Partial<AuthContextValue>) {
  const router = createMemoryRouter(
    [
      { element: <PublicOnlyRoute />, children: [{ path: '/login', element: <p>login page</p> }] },
      {
        element: <ProtectedRoute />,
        children: [
          { path: '/', element: <p>home page</p> },
          { path: '/labels', element: <p>labels page</p> },
          { path: '/change-password', element: <p>change password page</p> },
        ],
      },
      { path: '/reset-password', element: <ResetPasswordForm /> },
      { path: '/forgot-password', element: <p>forgot page</p> },
    ],
    { initialEntries: [path] },
  )
  renderWithProviders(<RouterProvider router={router} />, status, auth)
  return router
}

describe('a password-reset link, wherever it lands', () => {
  it.each(['/', '/labels', '/login'])('sends a recovery session from %s to choose a new password', async (path) => {
    const router = renderAt(path, 'signed-in', { recovery: true })
    expect(await screen.findByRole('heading', { name: 'Choose a New Password' })).toBeTruthy()
    expect(router.state.location.pathname).toBe('/reset-password')
    expect(screen.queryByText('home page')).toBeNull()
  })

  it('shows a used or expired link its message, signed out, from the site root', async () => {
    const router = renderAt('/', 'signed-out', { linkError: { code: 'otp_expired', description: 'Email link is invalid or has expired' } })
    expect(await screen.findByText(messages.auth.recoveryLinkInvalid)).toBeTruthy()
    expect(router.state.location.pathname).toBe('/reset-password')
    expect(screen.getByRole('link', { name: 'Request a New Link' }).getAttribute('href')).toBe('/forgot-password')
    expect(screen.queryByRole('button', { name: 'Set New Password' })).toBeNull()
  })

  it("shows another link error in the server's words, and Change Password to a signed-in member", async () => {
    renderAt('/labels', 'signed-in', { linkError: { code: 'flow_state_not_found', description: 'No associated flow state found.' } })
    expect(await screen.findByText('No associated flow state found.')).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Change Password' }).getAttribute('href')).toBe('/change-password')
  })

  it('sends a member signed in the ordinary way to Change Password (the current password is asked there)', async () => {
    const router = renderAt('/reset-password', 'signed-in', { recovery: false })
    expect(await screen.findByText('change password page')).toBeTruthy()
    expect(router.state.location.pathname).toBe('/change-password')
  })

  it('tells a signed-out visitor without a session that the link no longer works', async () => {
    renderAt('/reset-password', 'signed-out', {})
    expect(await screen.findByText(messages.auth.recoveryLinkInvalid)).toBeTruthy()
    expect(screen.queryByRole('link', { name: 'Change Password' })).toBeNull()
  })

  it('leaves ordinary routing alone without a link', async () => {
    renderAt('/labels', 'signed-in', {})
    expect(await screen.findByText('labels page')).toBeTruthy()
  })

  it('shows a link error once: going on elsewhere afterwards is not sent back', async () => {
    function StatefulAuth({ children }: { children: ReactNode }) {
      const [linkError, setLinkError] = useState<AuthLinkError | null>({ code: 'otp_expired', description: '' })
      return <AuthContext.Provider value={authValue('signed-in', { linkError, dismissLinkError: () => setLinkError(null) })}>{children}</AuthContext.Provider>
    }
    const router = createMemoryRouter(
      [
        {
          element: <ProtectedRoute />,
          children: [
            { path: '/', element: <p>home page</p> },
            { path: '/labels', element: <p>labels page</p> },
          ],
        },
        { path: '/reset-password', element: <ResetPasswordForm /> },
      ],
      { initialEntries: ['/'] },
    )
    render(
      <ToastProvider>
        <QueryProvider defaults={{ queries: { retry: false } }}>
          <StatefulAuth>
            <RouterProvider router={router} />
          </StatefulAuth>
        </QueryProvider>
      </ToastProvider>,
    )
    expect(await screen.findByText(messages.auth.recoveryLinkInvalid)).toBeTruthy()
    await act(() => router.navigate('/labels'))
    expect(await screen.findByText('labels page')).toBeTruthy()
    expect(router.state.location.pathname).toBe('/labels')
  })
})
