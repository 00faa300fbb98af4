import { messages } from '@/config/messages'
import { assuranceLevels, signInWithPassword } from '@/lib/supabase'

export type AuthResult = { ok: true } | { ok: false; message: string }

/**
 * Signs in; the failure message is the server's, or the spec's fallbacks. secondFactor: the
 * account has an authenticator app, so a code is due before the app opens (aal2 is next).
 */
export async function login(email: string, password: string): Promise<AuthResult & { secondFactor?: boolean }> {
  try {
    const { user, error } = await signInWithPassword(email, password)
    if (error) return { ok: false, message: error.message || messages.auth.loginFailed }
    if (!user) return { ok: false, message: messages.auth.loginNoUser }
    // If the levels cannot be read, the route guard still sees the pending code and asks for it.
    const levels = await Promise.resolve(assuranceLevels()).catch(() => null)
    return levels?.data?.next === 'aal2' && levels.data.current !== 'aal2' ? { ok: true, secondFactor: true } : { ok: true }
  } catch {
    return { ok: false, message: messages.auth.loginFailed }
  }
}
