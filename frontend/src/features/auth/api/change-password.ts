import { useMutation } from '@tanstack/react-query'
import { MIN_PASSWORD_LENGTH } from '@/config/constants'
import { messages } from '@/config/messages'
import { UserError } from '@/lib/errors'
import type { MutationConfig } from '@/lib/query-client'
import { checkPassword, updatePassword } from '@/lib/supabase'

/** The first rule the new password breaks (SPEC §5), or null. */
export function newPasswordProblem(next: string, confirm: string): string | null {
  if (next !== confirm) return messages.auth.newPasswordsDoNotMatch
  if (next.length < MIN_PASSWORD_LENGTH) return messages.auth.newPasswordTooShort
  return null
}

export interface ChangePasswordInput {
  email: string
  current: string
  next: string
  confirm: string
}

/**
 * Checks the new password, verifies the current one (without replacing the session), then
 * updates. A broken rule or a wrong current password is a UserError; any other failure shows
 * the spec's fallback (messages.auth.changePasswordFailed).
 */
export async function changePassword({ email, current, next, confirm }: ChangePasswordInput): Promise<void> {
  const problem = newPasswordProblem(next, confirm)
  if (problem) throw new UserError(problem)
  const verified = await checkPassword(email, current).catch(() => null)
  if (!verified) throw new UserError(messages.auth.currentPasswordIncorrect)
  await updatePassword(next)
}

export function useChangePassword(config: MutationConfig<ChangePasswordInput> = {}) {
  return useMutation({ ...config, mutationFn: changePassword })
}
