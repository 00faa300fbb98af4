import { screen } from '@testing-library/react'
import { createMemoryRouter, RouterProvider } from 'react-router'
import { describe, expect, it } from 'vitest'
import type { AuthStatus } from '@/lib/auth'
import { renderWithProviders } from '@/testing/test-utils'
import { ProtectedRoute, PublicOnlyRoute } from './guards'

function renderAt(path: string, status: AuthStatus) {
  const router = createMemoryRouter(
    [
      { element: <PublicOnlyRoute />, children: [{ path: '/login', element: <p>login page</p> }] },
      {
        element: <ProtectedRoute />,
        children: [
          { path: '/', element: <p>home page</p> },
          { path: '/labels', element: <p>labels page</p> },
        ],
      },
    ],
    { initialEntries: [path] },
  )
  renderWithProviders(<RouterProvider router={router} />, status)
  return router
}

describe('route guards', () => {
  it('shows a spinner while auth loads', () => {
    renderAt('/labels', 'loading')
    expect(screen.getByRole('status').textContent).toContain('Loading')
    expect(screen.queryByText('labels page')).toBeNull()
  })

  it('sends signed-out visitors of a protected page to /login', async () => {
    const router = renderAt('/labels', 'signed-out')
    expect(await screen.findByText('login page')).toBeTruthy()
    expect(router.state.location.pathname).toBe('/login')
    expect(router.state.location.state).toEqual({ from: '/labels' })
  })

  it('lets signed-in users through', async () => {
    renderAt('/labels', 'signed-in')
    expect(await screen.findByText('labels page')).toBeTruthy()
  })

  it('redirects signed-in users away from /login', async () => {
    const router = renderAt('/login', 'signed-in')
    expect(await screen.findByText('home page')).toBeTruthy()
    expect(router.state.location.pathname).toBe('/')
  })

  it('shows /login to signed-out visitors', async () => {
    renderAt('/login', 'signed-out')
    expect(await screen.findByText('login page')).toBeTruthy()
  })
})
