import { messages } from '@/config/messages'
import { paths } from '@/config/paths'
import { requestPasswordReset, updatePassword } from '@/lib/supabase'
import { newPasswordProblem } from './change-password'
import type { AuthResult } from './login'

/**
 * Asks for a reset link that lands on this app's set-new-password page. The
 * server answers the same for unknown addresses, so success only means the
 * request was taken.
 */
export async function requestRecovery(email: string, origin: string): Promise<AuthResult> {
  const address = email.trim()
  if (!address) return { ok: false, message: messages.auth.recoveryEmailRequired }
  try {
    const error = await requestPasswordReset(address, origin + paths.resetPassword.getHref())
    if (!error) return { ok: true }
    if (error.status === 429) return { ok: false, message: messages.auth.recoveryRateLimited }
    return { ok: false, message: error.status === 400 && error.message ? error.message : messages.auth.recoveryFailed }
  } catch {
    return { ok: false, message: messages.auth.recoveryFailed }
  }
}

/** Sets the new password of the member the reset link signed in. */
export async function setNewPassword(next: string, confirm: string): Promise<AuthResult> {
  const problem = newPasswordProblem(next, confirm)
  if (problem) return { ok: false, message: problem }
  try {
    const error = await updatePassword(next)
    if (!error) return { ok: true }
    return { ok: false, message: error.code === 'same_password' || error.code === 'weak_password' ? error.message : messages.auth.changePasswordFailed }
  } catch {
    return { ok: false, message: messages.auth.changePasswordFailed }
  }
}
