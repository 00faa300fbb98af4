/**
 * What an emailed auth link brought in the address the app was opened at: a recovery session
 * (`#access_token=…&type=recovery`) or a link error (`#error_code=otp_expired&error_description=…`,
 * in the fragment or, from the PKCE flow, the query). It is read once when this module loads,
 * before supabase-js reads and clears the fragment, so the app can route on it afterwards.
 */
export interface AuthLinkError {
  code: string
  description: string
}

export interface AuthLink {
  recovery: boolean
  error: AuthLinkError | null
}

export function parseAuthLink(href: string): AuthLink {
  let url: URL
  try {
    url = new URL(href)
  } catch {
    return { recovery: false, error: null }
  }
  const fragment = new URLSearchParams(url.hash.replace(/^#/, ''))
  const get = (name: string) => fragment.get(name) ?? url.searchParams.get(name)
  const code = get('error_code')
  const description = get('error_description')
  if (code || description || get('error')) {
    return { recovery: false, error: { code: code ?? get('error') ?? 'unspecified', description: description ?? '' } }
  }
  return { recovery: fragment.get('type') === 'recovery' && fragment.has('access_token'), error: null }
}

export const authLinkAtStart: AuthLink = typeof window === 'undefined' ? { recovery: false, error: null } : parseAuthLink(window.location.href)
