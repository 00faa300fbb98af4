import { useMutation } from '@tanstack/react-query'
import { messages } from '@/config/messages'
import { paths } from '@/config/paths'
import { RequestError, UserError } from '@/lib/errors'
import type { MutationConfig } from '@/lib/query-client'
import { requestPasswordReset, updatePassword } from '@/lib/supabase'
import { newPasswordProblem } from './change-password'

export interface RecoveryInput {
  email: string
  /** The app's origin: the link lands on its reset page. */
  origin: string
}

/**
 * Asks for a reset link that lands on this app's set-new-password page. The server answers
 * the same for unknown addresses, so success only means the request was taken. Failures the
 * member can act on are UserErrors; the rest show messages.auth.recoveryFailed.
 */
export async function requestRecovery({ email, origin }: RecoveryInput): Promise<void> {
  const address = email.trim()
  if (!address) throw new UserError(messages.auth.recoveryEmailRequired)
  try {
    await requestPasswordReset(address, origin + paths.resetPassword.getHref())
  } catch (error) {
    if (!(error instanceof RequestError)) throw error
    if (error.status === 429) throw new UserError(messages.auth.recoveryRateLimited)
    if (error.status === 400 && error.message) throw new UserError(error.message)
    throw error
  }
}

export function useRequestRecovery(config: MutationConfig<RecoveryInput> = {}) {
  return useMutation({ ...config, mutationFn: requestRecovery })
}

export interface NewPasswordInput {
  next: string
  confirm: string
}

/**
 * Sets the new password of the member the reset link signed in. The server's reason for a same
 * or weak password is shown as it is; other failures show messages.auth.changePasswordFailed.
 */
export async function setNewPassword({ next, confirm }: NewPasswordInput): Promise<void> {
  const problem = newPasswordProblem(next, confirm)
  if (problem) throw new UserError(problem)
  try {
    await updatePassword(next)
  } catch (error) {
    if (error instanceof RequestError && (error.code === 'same_password' || error.code === 'weak_password')) throw new UserError(error.message)
    throw error
  }
}

export function useSetNewPassword(config: MutationConfig<NewPasswordInput> = {}) {
  return useMutation({ ...config, mutationFn: setNewPassword })
}
