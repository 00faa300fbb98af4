import { messages } from '@/config/messages'
import { signInWithPassword } from '@/lib/supabase'

export type AuthResult = { ok: true } | { ok: false; message: string }

/** Signs in; the failure message is the server's, or the spec's fallbacks. */
export async function login(email: string, password: string): Promise<AuthResult> {
  try {
    const { user, error } = await signInWithPassword(email, password)
    if (error) return { ok: false, message: error.message || messages.auth.loginFailed }
    if (!user) return { ok: false, message: messages.auth.loginNoUser }
    return { ok: true }
  } catch {
    return { ok: false, message: messages.auth.loginFailed }
  }
}
