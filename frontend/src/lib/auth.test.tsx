import { act, render, screen } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import * as lib from './supabase'
import { AuthProvider, RECOVERY_STORAGE_KEY, useAuth } from './auth'

vi.mock('./supabase', () => ({ getSession: vi.fn(), onAuthStateChange: vi.fn(), signOut: vi.fn() }))
const m = vi.mocked(lib)
const user = { id: 'u-1', email: 'ada@example.test' }

function Probe() {
  const { status, recovery, linkError } = useAuth()
  return <p data-testid="auth">{`${status} recovery=${recovery} error=${linkError?.code ?? 'none'}`}</p>
}

let emit: (event: lib.AuthEvent, session: lib.AuthSession | null) => void
beforeEach(() => {
  vi.resetAllMocks()
  window.sessionStorage.clear()
  m.onAuthStateChange.mockImplementation((listener) => {
    emit = listener
    return () => {}
  })
})

describe('AuthProvider recovery', () => {
  it("enters recovery on supabase-js's PASSWORD_RECOVERY event and keeps it across a reload of the tab", async () => {
    m.getSession.mockResolvedValue({ user })
    const first = render(
      <AuthProvider link={{ recovery: false, error: null }}>
        <Probe />
      </AuthProvider>,
    )
    expect((await screen.findByText(/signed-in/)).textContent).toBe('signed-in recovery=false error=none')
    act(() => emit('PASSWORD_RECOVERY', { user }))
    expect(screen.getByTestId('auth').textContent).toBe('signed-in recovery=true error=none')
    expect(window.sessionStorage.getItem(RECOVERY_STORAGE_KEY)).toBe('u-1')
    first.unmount()

    render(
      <AuthProvider link={{ recovery: false, error: null }}>
        <Probe />
      </AuthProvider>,
    )
    expect((await screen.findByText(/signed-in/)).textContent).toBe('signed-in recovery=true error=none')
    act(() => emit('SIGNED_OUT', null))
    expect(screen.getByTestId('auth').textContent).toBe('signed-out recovery=false error=none')
    expect(window.sessionStorage.getItem(RECOVERY_STORAGE_KEY)).toBeNull()
  })

  it('takes recovery from the address before the event, for the user the link signed in', async () => {
    m.getSession.mockResolvedValue({ user })
    render(
      <AuthProvider link={{ recovery: true, error: null }}>
        <Probe />
      </AuthProvider>,
    )
    expect((await screen.findByText(/signed-in/)).textContent).toBe('signed-in recovery=true error=none')
    expect(window.sessionStorage.getItem(RECOVERY_STORAGE_KEY)).toBe('u-1')
  })

  it('does not carry one member’s recovery to another', async () => {
    window.sessionStorage.setItem(RECOVERY_STORAGE_KEY, 'someone-else')
    m.getSession.mockResolvedValue({ user })
    render(
      <AuthProvider link={{ recovery: false, error: null }}>
        <Probe />
      </AuthProvider>,
    )
    expect((await screen.findByText(/signed-in/)).textContent).toBe('signed-in recovery=false error=none')
  })

  it('passes on the error of a used link', async () => {
    m.getSession.mockResolvedValue(null)
    render(
      <AuthProvider link={{ recovery: false, error: { code: 'otp_expired', description: 'Email link is invalid or has expired' } }}>
        <Probe />
      </AuthProvider>,
    )
    expect((await screen.findByText(/signed-out/)).textContent).toBe('signed-out recovery=false error=otp_expired')
  })
})
