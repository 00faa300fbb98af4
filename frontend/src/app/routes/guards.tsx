import { Navigate, Outlet, useLocation } from 'react-router'
import { PageSpinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { redirectTarget } from '@/features/auth/utils/redirect-target'
import { useLiveListens } from '@/features/releases'
import { useAuth } from '@/lib/auth'

/**
 * Where an emailed link must go before any page: a recovery session chooses its new password
 * first, and a used or expired link shows why (both on the reset page), whatever route the
 * link landed on (SITE_URL alone, for instance).
 */
function useAuthLinkTarget(): string | null {
  const { status, recovery, linkError } = useAuth()
  if (linkError || (status === 'signed-in' && recovery)) return paths.resetPassword.getHref()
  return null
}

/** Signed-in users only: a spinner while auth loads, /login when signed out or a code is still due. */
export function ProtectedRoute() {
  const { status, user } = useAuth()
  // Marks made on the member's other tabs and devices reach every page's lists.
  useLiveListens(status === 'signed-in' ? (user?.id ?? null) : null)
  const location = useLocation()
  const linkTarget = useAuthLinkTarget()
  if (linkTarget) return <Navigate to={linkTarget} replace />
  if (status === 'loading') return <PageSpinner />
  if (status === 'signed-out' || status === 'needs-second-factor') {
    return <Navigate to={paths.login.getHref()} replace state={{ from: `${location.pathname}${location.search}` }} />
  }
  return <Outlet />
}

/** /login and /signup: signed-in users are sent on (home, or where they came from). */
export function PublicOnlyRoute() {
  const { status } = useAuth()
  const location = useLocation()
  const linkTarget = useAuthLinkTarget()
  if (linkTarget) return <Navigate to={linkTarget} replace />
  if (status === 'loading') return <PageSpinner />
  if (status === 'signed-in') return <Navigate to={redirectTarget(location.state)} replace />
  return <Outlet />
}
