import { render } from '@testing-library/react'
import type { ReactNode } from 'react'
import { vi } from 'vitest'
import { QueryProvider } from '@/app/provider'
import { ToastProvider } from '@/components/ui/toast'
import { AuthContext, type AuthContextValue, type AuthStatus } from '@/lib/auth'

export const testUser = { id: '11111111-1111-4111-8111-111111111111', email: 'member@example.test' }

export function authValue(status: AuthStatus, extra: Partial<AuthContextValue> = {}): AuthContextValue {
  return {
    status,
    user: status === 'signed-in' ? testUser : null,
    recovery: false,
    linkError: null,
    endRecovery: vi.fn(),
    dismissLinkError: vi.fn(),
    signOut: vi.fn(async () => {}),
    ...extra,
  }
}

/** No retries in tests: an error path shows its message at once instead of after a back-off. */
const testQueryDefaults = { queries: { retry: false } } as const

/**
 * Renders `ui` inside the app's toast system and a fresh query cache, with a fixed auth state
 * (no supabase-js auth involved).
 */
export function renderWithProviders(ui: ReactNode, status: AuthStatus = 'signed-in', auth: Partial<AuthContextValue> = {}) {
  return render(
    <ToastProvider>
      <QueryProvider defaults={testQueryDefaults}>
        <AuthContext.Provider value={authValue(status, auth)}>{ui}</AuthContext.Provider>
      </QueryProvider>
    </ToastProvider>,
  )
}
