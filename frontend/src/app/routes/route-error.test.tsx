import { fireEvent, screen } from '@testing-library/react'
import { createMemoryRouter, RouterProvider } from 'react-router'
import { describe, expect, it, vi } from 'vitest'
import { extraMessages } from '@/config/messages'
import { renderWithProviders } from '@/testing/test-utils'
import { RouteError } from './route-error'

function Broken(): never {
  throw new Error('render failed')
}

describe('RouteError', () => {
  it('replaces a failing page with a way to reload or go home', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const router = createMemoryRouter(
      [
        {
          ErrorBoundary: RouteError,
          children: [
            { path: '/labels', Component: Broken },
            { path: '/', element: <p>home page</p> },
          ],
        },
      ],
      { initialEntries: ['/labels'] },
    )
    renderWithProviders(<RouterProvider router={router} />)
    expect(await screen.findByRole('heading', { name: extraMessages.routeErrorTitle })).toBeTruthy()
    expect(screen.getByText(extraMessages.routeError)).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Reload Page' })).toBeTruthy()
    fireEvent.click(screen.getByRole('link', { name: 'Go home' }))
    expect(await screen.findByText('home page')).toBeTruthy()
  })
})
