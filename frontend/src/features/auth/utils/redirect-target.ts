import { paths } from '@/config/paths'

/** Where to go after signing in: the protected page that sent the user to /login, else home. */
export function redirectTarget(state: unknown): string {
  const from = (state as { from?: unknown } | null)?.from
  return typeof from === 'string' && from.startsWith('/') && !from.startsWith('//') ? from : paths.home.getHref()
}
