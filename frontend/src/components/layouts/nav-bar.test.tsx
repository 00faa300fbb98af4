import { fireEvent, render, screen } from '@testing-library/react'
import { createMemoryRouter, RouterProvider } from 'react-router'
import { describe, expect, it, vi } from 'vitest'
import { AuthContext } from '@/lib/auth'
import type { AuthUser } from '@/lib/supabase'
import { testUser } from '@/testing/test-utils'
import { NavBar } from './nav-bar'

function renderNav(user: AuthUser, avatarUrl: string | null = null) {
  const router = createMemoryRouter([{ path: '*', element: <NavBar avatarUrl={avatarUrl} /> }], { initialEntries: ['/'] })
  render(
    <AuthContext.Provider
      value={{
        status: 'signed-in',
        user,
        recovery: false,
        linkError: null,
        endRecovery: vi.fn(),
        dismissLinkError: vi.fn(),
        signOut: vi.fn(async () => {}),
      }}
    >
      <RouterProvider router={router} />
    </AuthContext.Provider>,
  )
}

describe('NavBar', () => {
  it('offers the admin console in both menus to an admin', () => {
    renderNav({ ...testUser, isAdmin: true })
    fireEvent.click(screen.getByRole('button', { name: /^Account menu for / }))
    expect(screen.getByRole('link', { name: 'Admin' }).getAttribute('href')).toBe('/admin')
    fireEvent.click(screen.getByRole('button', { name: 'Open menu' }))
    expect(screen.getAllByRole('link', { name: 'Admin' })).toHaveLength(2)
  })

  it('does not offer it to a member', () => {
    renderNav(testUser)
    fireEvent.click(screen.getByRole('button', { name: /^Account menu for / }))
    fireEvent.click(screen.getByRole('button', { name: 'Open menu' }))
    expect(screen.getAllByRole('link', { name: 'Change Password' }).length).toBeGreaterThan(0)
    expect(screen.queryByRole('link', { name: 'Admin' })).toBeNull()
  })

  it('shows the member’s picture in the header when there is one, else the initial', () => {
    renderNav(testUser, 'http://localhost/storage/v1/render/image/sign/avatars/x?token=t')
    expect(screen.getByTestId('header-avatar').getAttribute('src')).toContain('/render/image/sign/avatars/')
  })

  it('shows the initial without a picture', () => {
    renderNav(testUser)
    expect(screen.queryByTestId('header-avatar')).toBeNull()
  })
})
