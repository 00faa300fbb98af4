import { messages } from '@/config/messages'
import { rpc, signInWithPassword, signUp } from '@/lib/supabase'

/** True when the server says the invite code is valid; any failure counts as invalid. */
export async function validateInviteCode(code: string): Promise<boolean> {
  const { data, error } = await rpc('validate_invite_code', { code_param: code })
  if (error) return false
  const value = Array.isArray(data) ? data[0] : data
  if (typeof value === 'boolean') return value
  return typeof value === 'object' && value !== null && (value as { valid?: unknown }).valid === true
}

export type SignUpResult = { ok: true; signedIn: boolean } | { ok: false; message: string }

/**
 * Validates the invite, creates the account with the code in its metadata, then signs in
 * (unless sign-up already returned a session). `signedIn` is false when that sign-in failed.
 */
export async function signUpWithInvite(email: string, password: string, inviteCode: string): Promise<SignUpResult> {
  try {
    if (!(await validateInviteCode(inviteCode))) return { ok: false, message: messages.auth.invalidInviteCode }
    const created = await signUp(email, password, { invite_code: inviteCode }, window.location.origin)
    if (created.error) return { ok: false, message: created.error.message || messages.auth.signupFailed }
    if (!created.user) return { ok: false, message: messages.auth.signupNoUser }
    if (created.session) return { ok: true, signedIn: true }
    const signedIn = await signInWithPassword(email, password)
    return { ok: true, signedIn: !signedIn.error && signedIn.user !== null }
  } catch {
    return { ok: false, message: messages.auth.signupFailed }
  }
}
