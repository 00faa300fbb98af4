import { useCallback, useEffect, useRef, useState } from 'react'
import { Link, NavLink, useLocation, useNavigate } from 'react-router'
import { focusRing } from '@/components/ui/button'
import { paths } from '@/config/paths'
import { useAuth } from '@/lib/auth'
import { cn } from '@/lib/cn'

const NAV_LINKS = [
  { to: paths.home.getHref(), label: 'New' },
  { to: paths.collection.getHref(), label: 'Collection' },
  { to: paths.labels.getHref(), label: 'Labels' },
  { to: paths.explore.getHref(), label: 'Explore' },
] as const

function BrandMark() {
  return (
    <Link to={paths.home.getHref()} className={cn('flex items-center gap-2 rounded-lg text-lg font-bold tracking-tight text-zinc-900', focusRing)}>
      <svg aria-hidden="true" viewBox="0 0 32 32" className="size-8">
        <rect width="32" height="32" rx="8" fill="#18181b" />
        <circle cx="16" cy="16" r="9" fill="none" stroke="#a78bfa" strokeWidth="3" />
        <circle cx="16" cy="16" r="2.5" fill="#fafafa" />
      </svg>
      Labelbase
    </Link>
  )
}

function useDismiss(open: boolean, close: () => void, ref: React.RefObject<HTMLElement | null>) {
  useEffect(() => {
    if (!open) return
    const onPointer = (event: PointerEvent) => {
      if (ref.current && !ref.current.contains(event.target as Node)) close()
    }
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') close()
    }
    document.addEventListener('pointerdown', onPointer)
    document.addEventListener('keydown', onKey)
    return () => {
      document.removeEventListener('pointerdown', onPointer)
      document.removeEventListener('keydown', onKey)
    }
  }, [open, close, ref])
}

const desktopLink = ({ isActive }: { isActive: boolean }) =>
  cn('rounded-lg px-3 py-2 text-sm font-medium transition-colors', isActive ? 'bg-zinc-900 text-white' : 'text-zinc-700 hover:bg-zinc-100', focusRing)
const mobileLink = ({ isActive }: { isActive: boolean }) =>
  cn('block rounded-lg px-3 py-2 text-base font-medium', isActive ? 'bg-zinc-900 text-white' : 'text-zinc-800 hover:bg-zinc-100', focusRing)

/** avatarUrl: the member's picture (rendered, signed), from the app layer; the initial shows without one. */
export function NavBar({ avatarUrl = null }: { avatarUrl?: string | null }) {
  const { status, user, signOut } = useAuth()
  const location = useLocation()
  const navigate = useNavigate()
  const [menuOpen, setMenuOpen] = useState(false)
  const [mobileOpen, setMobileOpen] = useState(false)
  const userMenuRef = useRef<HTMLDivElement>(null)
  const mobileRef = useRef<HTMLDivElement>(null)
  const closeMenu = useCallback(() => setMenuOpen(false), [])
  const closeMobile = useCallback(() => setMobileOpen(false), [])
  useDismiss(menuOpen, closeMenu, userMenuRef)
  useDismiss(mobileOpen, closeMobile, mobileRef)

  // A navigation closes both menus, in the render that sees the new path (React's pattern
  // for state that follows a prop) rather than in an effect one render later.
  const [shownPath, setShownPath] = useState(location.pathname)
  if (shownPath !== location.pathname) {
    setShownPath(location.pathname)
    setMenuOpen(false)
    setMobileOpen(false)
  }

  const onSignOut = async () => {
    setMenuOpen(false)
    setMobileOpen(false)
    await signOut()
    navigate(paths.login.getHref(), { replace: true })
  }

  const signedIn = status === 'signed-in' && user

  return (
    <header className="sticky top-0 z-40 border-b border-zinc-200 bg-white/90 backdrop-blur">
      <div ref={mobileRef} className="mx-auto max-w-7xl px-4 sm:px-6 3xl:max-w-[1520px] 4xl:max-w-[1800px]">
        <nav aria-label="Main" className="flex h-16 items-center justify-between gap-4">
          <BrandMark />
          {signedIn ? (
            <>
              <ul className="hidden items-center gap-1 md:flex">
                {NAV_LINKS.map((link) => (
                  <li key={link.to}>
                    <NavLink to={link.to} end className={desktopLink}>
                      {link.label}
                    </NavLink>
                  </li>
                ))}
              </ul>
              <div ref={userMenuRef} className="relative hidden md:block">
                <button
                  type="button"
                  aria-expanded={menuOpen}
                  aria-controls="user-menu"
                  onClick={() => setMenuOpen((open) => !open)}
                  title={user.email}
                  className={cn(
                    'flex max-w-56 items-center gap-2 rounded-full border border-zinc-200 py-1 pr-3 pl-1 text-sm text-zinc-700 hover:bg-zinc-50 lg:max-w-80 xl:max-w-none',
                    focusRing,
                  )}
                >
                  {avatarUrl ? (
                    <img src={avatarUrl} alt="" data-testid="header-avatar" className="size-7 shrink-0 rounded-full object-cover" />
                  ) : (
                    <span
                      aria-hidden="true"
                      className="flex size-7 shrink-0 items-center justify-center rounded-full bg-violet-600 text-xs font-bold text-white uppercase"
                    >
                      {user.email.slice(0, 1)}
                    </span>
                  )}
                  <span className="truncate">
                    <span className="sr-only">Account menu for </span>
                    {user.email}
                  </span>
                  <svg
                    aria-hidden="true"
                    viewBox="0 0 20 20"
                    className="size-4 shrink-0"
                    fill="none"
                    stroke="currentColor"
                    strokeWidth="2"
                    strokeLinecap="round"
                  >
                    <path d="M6 8l4 4 4-4" />
                  </svg>
                </button>
                {menuOpen && (
                  <div id="user-menu" className="absolute right-0 mt-2 w-64 rounded-xl border border-zinc-200 bg-white p-2 shadow-lg">
                    <p className="truncate px-3 py-2 text-sm text-zinc-500">{user.email}</p>
                    <Link to={paths.changePassword.getHref()} className={cn('block rounded-lg px-3 py-2 text-sm text-zinc-800 hover:bg-zinc-100', focusRing)}>
                      Change Password
                    </Link>
                    <Link to={paths.security.getHref()} className={cn('block rounded-lg px-3 py-2 text-sm text-zinc-800 hover:bg-zinc-100', focusRing)}>
                      Security
                    </Link>
                    {user.isAdmin && (
                      <Link to={paths.admin.getHref()} className={cn('block rounded-lg px-3 py-2 text-sm text-zinc-800 hover:bg-zinc-100', focusRing)}>
                        Admin
                      </Link>
                    )}
                    <button
                      type="button"
                      onClick={onSignOut}
                      className={cn('block w-full rounded-lg px-3 py-2 text-left text-sm text-zinc-800 hover:bg-zinc-100', focusRing)}
                    >
                      Sign Out
                    </button>
                  </div>
                )}
              </div>
              <button
                type="button"
                aria-expanded={mobileOpen}
                aria-controls="mobile-menu"
                aria-label={mobileOpen ? 'Close menu' : 'Open menu'}
                onClick={() => setMobileOpen((open) => !open)}
                className={cn('rounded-lg p-2 text-zinc-700 hover:bg-zinc-100 md:hidden', focusRing)}
              >
                <svg aria-hidden="true" viewBox="0 0 24 24" className="size-6" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
                  {mobileOpen ? <path d="M6 6l12 12M18 6L6 18" /> : <path d="M4 7h16M4 12h16M4 17h16" />}
                </svg>
              </button>
            </>
          ) : (
            status === 'signed-out' &&
            location.pathname !== paths.login.path && (
              <Link to={paths.login.getHref()} className={cn('rounded-lg bg-zinc-900 px-4 py-2 text-sm font-medium text-white hover:bg-zinc-700', focusRing)}>
                Sign In
              </Link>
            )
          )}
        </nav>
        {signedIn && mobileOpen && (
          <div id="mobile-menu" className="border-t border-zinc-200 py-3 md:hidden">
            <ul className="space-y-1">
              {NAV_LINKS.map((link) => (
                <li key={link.to}>
                  <NavLink to={link.to} end className={mobileLink}>
                    {link.label}
                  </NavLink>
                </li>
              ))}
            </ul>
            <div className="mt-3 border-t border-zinc-200 pt-3">
              <p className="truncate px-3 py-1 text-sm text-zinc-500">{user.email}</p>
              <Link to={paths.changePassword.getHref()} className={mobileLink({ isActive: location.pathname === paths.changePassword.path })}>
                Change Password
              </Link>
              <Link to={paths.security.getHref()} className={mobileLink({ isActive: location.pathname === paths.security.path })}>
                Security
              </Link>
              {user.isAdmin && (
                <Link to={paths.admin.getHref()} className={mobileLink({ isActive: location.pathname === paths.admin.path })}>
                  Admin
                </Link>
              )}
              <button type="button" onClick={onSignOut} className={cn(mobileLink({ isActive: false }), 'w-full text-left')}>
                Sign Out
              </button>
            </div>
          </div>
        )}
      </div>
    </header>
  )
}
