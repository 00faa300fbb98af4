import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { useState } from 'react'
import { describe, expect, it, vi } from 'vitest'
import { createThrottle } from '@/lib/throttle'
import { renderWithProviders } from '@/testing/test-utils'
import { useOptimisticToggle } from './use-optimistic-toggle'

/** One item whose server value follows each save, with Undo on switching off (as unfollow and unmark do). */
function Harness({ persist }: { persist: (id: number, next: boolean) => Promise<void> }) {
  const [server, setServer] = useState(true)
  const toggle = useOptimisticToggle({
    mutationKey: ['undo-toggle'],
    persist,
    onSaved: (_id, next) => setServer(next),
    successMessage: (next) => (next ? 'switched on' : 'switched off'),
    errorToast: () => 'failed',
    inlineError: 'inline failed',
    undoable: (next) => !next,
    throttle: createThrottle(0),
  })
  const value = toggle.valueOf(1, server)
  return (
    <button type="button" onClick={() => toggle.toggle(1, value)}>
      item: {value ? 'on' : 'off'}
    </button>
  )
}

describe('useOptimisticToggle Undo', () => {
  it('offers Undo after switching off, which saves the old value back, and none after switching on', async () => {
    const persist = vi.fn(async () => {})
    renderWithProviders(<Harness persist={persist} />)
    fireEvent.click(screen.getByText('item: on'))
    const toast = await screen.findByRole('status')
    expect(toast.textContent).toContain('switched off')
    await screen.findByText('item: off')
    fireEvent.click(within(toast).getByRole('button', { name: 'Undo' }))
    await screen.findByText('item: on')
    expect(persist.mock.calls).toEqual([
      [1, false],
      [1, true],
    ])
    await waitFor(() => expect(screen.getByRole('status').textContent).toContain('switched on'))
    expect(screen.queryByRole('button', { name: 'Undo' })).toBeNull()
  })
})
