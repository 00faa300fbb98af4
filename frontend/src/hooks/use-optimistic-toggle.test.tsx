import { act, fireEvent, screen, waitFor } from '@testing-library/react'
import { useState } from 'react'
import { describe, expect, it, vi } from 'vitest'
import { messages } from '@/config/messages'
import { createThrottle } from '@/lib/throttle'
import { renderWithProviders } from '@/testing/test-utils'
import { useOptimisticToggle, type OptimisticToggleOptions } from './use-optimistic-toggle'

function Harness(props: Omit<OptimisticToggleOptions, 'mutationKey' | 'successMessage' | 'errorToast' | 'inlineError'>) {
  const toggle = useOptimisticToggle({
    ...props,
    mutationKey: ['test-toggle'],
    successMessage: (next) => (next ? 'on' : 'off'),
    errorToast: () => 'toast failure',
    inlineError: 'inline failure',
  })
  return (
    <ul>
      {[1, 2].map((id) => {
        const value = toggle.valueOf(id, false)
        return (
          <li key={id}>
            <button type="button" onClick={() => toggle.toggle(id, value)} aria-busy={toggle.isSaving(id)}>
              item {id}: {value ? 'yes' : 'no'}
            </button>
            {toggle.errorOf(id) && <p>{toggle.errorOf(id)}</p>}
          </li>
        )
      })}
    </ul>
  )
}

function deferred() {
  let resolve!: () => void
  let reject!: (e: unknown) => void
  const promise = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

const noThrottle = () => createThrottle(0)

describe('useOptimisticToggle', () => {
  it('flips at once, ignores clicks while saving, then confirms', async () => {
    const pending = deferred()
    const persist = vi.fn(() => pending.promise)
    const onSaved = vi.fn()
    renderWithProviders(<Harness persist={persist} onSaved={onSaved} throttle={noThrottle()} />)
    fireEvent.click(screen.getByText('item 1: no'))
    expect((await screen.findByText('item 1: yes')).getAttribute('aria-busy')).toBe('true')
    fireEvent.click(screen.getByText('item 1: yes'))
    expect(persist).toHaveBeenCalledTimes(1)
    expect(persist).toHaveBeenCalledWith(1, true)
    await act(async () => pending.resolve())
    expect(screen.getByRole('status').textContent).toContain('on')
    expect(onSaved).toHaveBeenCalledWith(1, true)
    // The harness's server state never took the value, so it shows again once saved.
    await waitFor(() => expect(screen.getByText('item 1: no').getAttribute('aria-busy')).toBe('false'))
  })

  it('rolls back and shows both errors when saving fails', async () => {
    const pending = deferred()
    renderWithProviders(<Harness persist={() => pending.promise} throttle={noThrottle()} />)
    fireEvent.click(screen.getByText('item 2: no'))
    await screen.findByText('item 2: yes')
    await act(async () => pending.reject(new Error('nope')))
    await screen.findByText('item 2: no')
    expect(screen.getByText('inline failure')).toBeTruthy()
    expect(screen.getByRole('alert').textContent).toContain('toast failure')
  })

  it('refuses a second toggle within the throttle window', async () => {
    let now = 0
    const throttle = createThrottle(300, () => now)
    const persist = vi.fn(async () => {})
    renderWithProviders(<Harness persist={persist} throttle={throttle} />)
    await act(async () => fireEvent.click(screen.getByText('item 1: no')))
    now = 100
    await act(async () => fireEvent.click(screen.getByText('item 2: no')))
    expect(persist).toHaveBeenCalledTimes(1)
    expect(screen.getByText(messages.toggle.tooFast)).toBeTruthy()
    expect(screen.getByText('item 2: no')).toBeTruthy()
    now = 400
    await act(async () => fireEvent.click(screen.getByText('item 2: no')))
    expect(persist).toHaveBeenCalledTimes(2)
    expect(persist).toHaveBeenLastCalledWith(2, true)
  })

  // The optimistic value must not outlive the save: once the saved value is in the server
  // state, a reload with different server state wins.
  it('lets fresh server state win once the saved value is in the server state', async () => {
    renderWithProviders(<ServerHarness />)
    fireEvent.click(screen.getByText('item 1: no'))
    await screen.findByText('item 1: yes')
    await screen.findByText('on')
    expect(screen.getByText('item 1: yes')).toBeTruthy()
    // A reload (e.g. another device unmarked it) brings fresh server state.
    fireEvent.click(screen.getByText('reload: server says no'))
    expect(screen.getByText('item 1: no')).toBeTruthy()
  })
})

/** A list whose server state the save writes to, and a reload can replace. */
function ServerHarness() {
  const [server, setServer] = useState<Record<number, boolean>>({})
  const toggle = useOptimisticToggle({
    mutationKey: ['server-toggle'],
    persist: async () => {},
    onSaved: (id, next) => setServer((s) => ({ ...s, [id]: next })),
    successMessage: (next) => (next ? 'on' : 'off'),
    errorToast: () => 'toast failure',
    inlineError: 'inline failure',
    throttle: noThrottle(),
  })
  const value = toggle.valueOf(1, server[1] ?? false)
  return (
    <>
      <button type="button" onClick={() => toggle.toggle(1, value)}>
        item 1: {value ? 'yes' : 'no'}
      </button>
      <button type="button" onClick={() => setServer({})}>
        reload: server says no
      </button>
    </>
  )
}
