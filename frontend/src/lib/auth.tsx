/**
 * Session state for the whole app: loading until supabase-js reports the stored session,
 * then signed in or signed out, following auth events. A password sign-in to an account with
 * an authenticator app is 'needs-second-factor' until its code is verified: the app's pages
 * stay closed and /login asks for the code.
 */
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react'
import { getSession, onAuthStateChange, signOut as apiSignOut, type ApiError, type AuthSession, type AuthUser } from './supabase'

export type AuthStatus = 'loading' | 'signed-in' | 'signed-out' | 'needs-second-factor'

export interface AuthContextValue {
  status: AuthStatus
  user: AuthUser | null
  signOut: () => Promise<ApiError | null>
}

export const AuthContext = createContext<AuthContextValue | null>(null)

export function AuthProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<{ status: AuthStatus; user: AuthUser | null }>({ status: 'loading', user: null })

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
      if (event === 'SIGNED_OUT') apply(null)
      else if (event !== 'OTHER') apply(session)
    })
    getSession()
      .then(apply)
      .catch(() => apply(null))
    return () => {
      active = false
      unsubscribe()
    }
  }, [])

  const value = useMemo<AuthContextValue>(
    () => ({
      ...state,
      signOut: async () => {
        const error = await apiSignOut()
        if (!error) setState({ status: 'signed-out', user: null })
        return error
      },
    }),
    [state],
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
