import { render } from '@testing-library/react'
import type { ReactNode } from 'react'
import { vi } from 'vitest'
import { ToastProvider } from '@/components/ui/toast'
import { AuthContext, type AuthContextValue, type AuthStatus } from '@/lib/auth'

export const testUser = { id: '11111111-1111-4111-8111-111111111111', email: 'member@example.test' }

export function authValue(status: AuthStatus): AuthContextValue {
  return { status, user: status === 'signed-in' ? testUser : null, signOut: vi.fn(async () => null) }
}

/** Renders `ui` inside the toast system and a fixed auth state (no supabase-js involved). */
export function renderWithProviders(ui: ReactNode, status: AuthStatus = 'signed-in') {
  return render(
    <ToastProvider>
      <AuthContext.Provider value={authValue(status)}>{ui}</AuthContext.Provider>
    </ToastProvider>,
  )
}
