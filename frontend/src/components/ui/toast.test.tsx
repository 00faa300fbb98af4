import { act, fireEvent, render, screen, within } from '@testing-library/react'
import { useEffect } from 'react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Modal } from './modal'
import { ToastProvider, useToast, type ToastApi } from './toast'

const grabbed: { api?: ToastApi } = {}
function Grab() {
  const api = useToast()
  useEffect(() => {
    grabbed.api = api
  }, [api])
  return null
}
const toast = {
  success: (...args: Parameters<ToastApi['success']>) => grabbed.api?.success(...args),
  error: (...args: Parameters<ToastApi['error']>) => grabbed.api?.error(...args),
  info: (...args: Parameters<ToastApi['info']>) => grabbed.api?.info(...args),
}

function renderToasts(children: React.ReactNode = null) {
  return render(
    <ToastProvider>
      <Grab />
      {children}
    </ToastProvider>,
  )
}

beforeEach(() => {
  // happy-dom's <dialog> has no showModal; the real one is exercised by the browser journeys.
  HTMLDialogElement.prototype.showModal ??= function (this: HTMLDialogElement) {
    this.setAttribute('open', '')
  }
})
afterEach(() => vi.useRealTimers())

describe('toasts', () => {
  it('do not stack the same message: it shows once and its timer starts again', () => {
    vi.useFakeTimers()
    renderToasts()
    act(() => toast.success('Marked as listened', 1500))
    act(() => vi.advanceTimersByTime(1000))
    act(() => toast.success('Marked as listened', 1500))
    expect(screen.getAllByText('Marked as listened')).toHaveLength(1)
    act(() => vi.advanceTimersByTime(1000))
    expect(screen.getAllByText('Marked as listened')).toHaveLength(1)
    act(() => vi.advanceTimersByTime(600))
    expect(screen.queryByText('Marked as listened')).toBeNull()
  })

  it('keep different messages apart', () => {
    renderToasts()
    act(() => {
      toast.success('Following label', 1500)
      toast.error('Failed to update. Please try again.', 3000)
    })
    expect(screen.getByRole('status').textContent).toContain('Following label')
    expect(screen.getByRole('alert').textContent).toContain('Failed to update. Please try again.')
  })

  it('render inside an open dialog (the top layer), and back in the page when it closes', () => {
    const view = renderToasts(
      <Modal open onClose={() => {}} title="Submit a label">
        <p>form</p>
      </Modal>,
    )
    act(() => toast.info('This label is already in the queue', 3000))
    const dialog = document.querySelector('dialog') as HTMLDialogElement
    expect(within(dialog).getByRole('region', { name: 'Notifications' }).textContent).toContain('This label is already in the queue')
    view.rerender(
      <ToastProvider>
        <Grab />
      </ToastProvider>,
    )
    expect(document.querySelector('dialog')).toBeNull()
    expect(screen.getByRole('region', { name: 'Notifications' }).textContent).toContain('This label is already in the queue')
  })

  it('offer an action, which runs once and closes the toast', () => {
    const undo = vi.fn()
    renderToasts()
    act(() => toast.success('Unfollowed label', 1500, { label: 'Undo', onClick: undo }))
    fireEvent.click(screen.getByRole('button', { name: 'Undo' }))
    expect(undo).toHaveBeenCalledTimes(1)
    expect(screen.queryByText('Unfollowed label')).toBeNull()
  })

  it('wait while pointed at, so the action can be reached', () => {
    vi.useFakeTimers()
    renderToasts()
    act(() => toast.success('Unmarked as listened', 1500, { label: 'Undo', onClick: () => {} }))
    fireEvent.pointerEnter(screen.getByRole('status'))
    act(() => vi.advanceTimersByTime(5000))
    expect(screen.getByText('Unmarked as listened')).toBeTruthy()
    fireEvent.pointerLeave(screen.getByRole('status'))
    act(() => vi.advanceTimersByTime(1500))
    expect(screen.queryByText('Unmarked as listened')).toBeNull()
  })

  it('on a phone, go to the half of the screen away from the press', () => {
    const matchMedia = vi
      .spyOn(window, 'matchMedia')
      .mockImplementation((query) => ({ matches: true, media: query, addEventListener: () => {}, removeEventListener: () => {} }) as unknown as MediaQueryList)
    renderToasts()
    const region = () => screen.getByRole('region', { name: 'Notifications' })
    fireEvent.pointerDown(document.body, { clientY: window.innerHeight - 20 })
    act(() => toast.success('Marked as listened', 1500))
    expect(region().dataset.edge).toBe('top')
    fireEvent.pointerDown(document.body, { clientY: 10 })
    act(() => toast.success('Unmarked as listened', 1500))
    expect(region().dataset.edge).toBe('bottom')
    matchMedia.mockRestore()
  })
})
