import { act } from '@testing-library/react'
import type { ReactNode } from 'react'
import { createMemoryRouter, RouterProvider } from 'react-router'
import { renderWithProviders } from './test-utils'

/**
 * Renders a page at `url` (path and query string) inside a router and the app's providers;
 * returns the router so a test can read the URL the page wrote.
 */
export function renderPage(page: ReactNode, url = '/') {
  const router = createMemoryRouter([{ path: '*', element: page }], { initialEntries: [url] })
  const view = renderWithProviders(<RouterProvider router={router} />)
  return { router, ...view }
}

/** The query string of the router's current location, as an object of arrays. */
export function searchOf(router: ReturnType<typeof createMemoryRouter>) {
  return new URLSearchParams(router.state.location.search)
}

/**
 * happy-dom's IntersectionObserver never reports; this one lets a test scroll the sentinel of
 * an infinite list into view.
 */
export function stubIntersectionObserver() {
  const observers = new Set<{ callback: IntersectionObserverCallback; targets: Element[] }>()
  class FakeObserver {
    private entry: { callback: IntersectionObserverCallback; targets: Element[] }
    constructor(callback: IntersectionObserverCallback) {
      this.entry = { callback, targets: [] }
      observers.add(this.entry)
    }
    observe(target: Element) {
      this.entry.targets.push(target)
    }
    unobserve() {}
    disconnect() {
      observers.delete(this.entry)
    }
    takeRecords() {
      return []
    }
  }
  window.IntersectionObserver = FakeObserver as unknown as typeof IntersectionObserver
  return {
    /** Reports every observed element as intersecting. */
    async scrollToEnd() {
      await act(async () => {
        for (const { callback, targets } of [...observers]) {
          callback(
            targets.map((target) => ({ target, isIntersecting: true }) as IntersectionObserverEntry),
            {} as IntersectionObserver,
          )
        }
      })
    },
  }
}
