/**
 * Session state for the whole app: loading until supabase-js reports the stored session,
 * then signed in or signed out, following auth events. A password sign-in to an account with
 * an authenticator app is 'needs-second-factor' until its code is verified: the app's pages
 * stay closed and /login asks for the code.
 *
 * A password-reset link signs the member in with a recovery session (supabase-js's
 * PASSWORD_RECOVERY event, or `type=recovery` in the address it was opened at). Until a new
 * password is set, `recovery` stays true (across reloads of the tab, in sessionStorage), and
 * the route guards send the member to the set-new-password page from wherever the link landed.
 * A used or expired link brings `linkError` instead.
 */
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react'
import { authLinkAtStart, type AuthLink, type AuthLinkError } from './auth-link'
import { getSession, onAuthStateChange, signOut as apiSignOut, type AuthSession, type AuthUser } from './supabase'

export type AuthStatus = 'loading' | 'signed-in' | 'signed-out' | 'needs-second-factor'

export interface AuthContextValue {
  status: AuthStatus
  user: AuthUser | null
  /** Signed in through a password-reset link, and no new password chosen yet. */
  recovery: boolean
  /** The error a used or expired email link brought, until dismissed. */
  linkError: AuthLinkError | null
  /** The new password is set (or the member chose to leave recovery). */
  endRecovery: () => void
  dismissLinkError: () => void
  /** Ends the session; when the server refuses, the member stays signed in (it never throws). */
  signOut: () => Promise<void>
}

export const AuthContext = createContext<AuthContextValue | null>(null)

/** sessionStorage key holding the id of the user signed in by a recovery link. */
export const RECOVERY_STORAGE_KEY = 'labelbase:recovery'

function storedRecovery(): string | null {
  try {
    return window.sessionStorage.getItem(RECOVERY_STORAGE_KEY)
  } catch {
    return null
  }
}

function storeRecovery(userId: string | null) {
  try {
    if (userId) window.sessionStorage.setItem(RECOVERY_STORAGE_KEY, userId)
    else window.sessionStorage.removeItem(RECOVERY_STORAGE_KEY)
  } catch {
    // Storage may be unavailable (private mode); recovery then lasts for this page only.
  }
}

export function AuthProvider({ children, link = authLinkAtStart }: { children: ReactNode; link?: AuthLink }) {
  const [state, setState] = useState<{ status: AuthStatus; user: AuthUser | null }>({ status: 'loading', user: null })
  // Recovery from the address is known at once; its user only when the session is read.
  const [recoveryFor, setRecoveryFor] = useState<string | null>(() => (link.recovery ? '*' : storedRecovery()))
  const [linkError, setLinkError] = useState<AuthLinkError | null>(link.error)

  useEffect(() => {
    let active = true
    const apply = (session: AuthSession | null) => {
      if (!active) return
      const user = session?.user ?? null
      const status: AuthStatus = !user ? 'signed-out' : session?.secondFactorPending ? 'needs-second-factor' : 'signed-in'
      // Token refreshes re-send the same user; keep the old object so pages do not reload.
      setState((prev) =>
        prev.status === status && prev.user?.id === user?.id && prev.user?.email === user?.email && prev.user?.isAdmin === user?.isAdmin
          ? prev
          : { status, user },
      )
    }
    const unsubscribe = onAuthStateChange((event, session) => {
      if (event === 'SIGNED_OUT') {
        setRecoveryFor(null)
        storeRecovery(null)
        apply(null)
      } else if (event === 'PASSWORD_RECOVERY') {
        const id = session?.user.id ?? null
        setRecoveryFor(id)
        storeRecovery(id)
        apply(session)
      } else if (event !== 'OTHER') apply(session)
    })
    getSession()
      .then(apply)
      .catch(() => apply(null))
    return () => {
      active = false
      unsubscribe()
    }
  }, [])

  // The address said recovery: bind it to the user the link signed in (stored, so a reload
  // of the tab keeps it).
  const userId = state.user?.id ?? null
  useEffect(() => {
    if (recoveryFor === '*' && userId) storeRecovery(userId)
  }, [recoveryFor, userId])

  const recovery = state.status === 'signed-in' && recoveryFor !== null && (recoveryFor === '*' || recoveryFor === userId)

  const value = useMemo<AuthContextValue>(
    () => ({
      ...state,
      recovery,
      linkError,
      endRecovery: () => {
        setRecoveryFor(null)
        storeRecovery(null)
      },
      dismissLinkError: () => setLinkError(null),
      signOut: async () => {
        try {
          await apiSignOut()
        } catch (error) {
          console.warn('sign-out failed:', error)
          return
        }
        setRecoveryFor(null)
        storeRecovery(null)
        setState({ status: 'signed-out', user: null })
      },
    }),
    [state, recovery, linkError],
  )
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>
}

export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext)
  if (!value) throw new Error('useAuth must be used inside AuthProvider')
  return value
}

/** The signed-in user; only for components rendered behind the protected route. */
export function useUser(): AuthUser {
  const { user } = useAuth()
  if (!user) throw new Error('useUser needs a signed-in user')
  return user
}
