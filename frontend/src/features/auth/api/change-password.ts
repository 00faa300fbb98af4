import { MIN_PASSWORD_LENGTH } from '@/config/constants'
import { messages } from '@/config/messages'
import { checkPassword, updatePassword } from '@/lib/supabase'
import type { AuthResult } from './login'

/** The first rule the new password breaks (SPEC §5), or null. */
export function newPasswordProblem(next: string, confirm: string): string | null {
  if (next !== confirm) return messages.auth.newPasswordsDoNotMatch
  if (next.length < MIN_PASSWORD_LENGTH) return messages.auth.newPasswordTooShort
  return null
}

/** Checks the new password, verifies the current one (without replacing the session), then updates. */
export async function changePassword(email: string, current: string, next: string, confirm: string): Promise<AuthResult> {
  const problem = newPasswordProblem(next, confirm)
  if (problem) return { ok: false, message: problem }
  try {
    const verified = await checkPassword(email, current)
    if (verified.error || !verified.user) return { ok: false, message: messages.auth.currentPasswordIncorrect }
    const error = await updatePassword(next)
    return error ? { ok: false, message: messages.auth.changePasswordFailed } : { ok: true }
  } catch {
    return { ok: false, message: messages.auth.changePasswordFailed }
  }
}
