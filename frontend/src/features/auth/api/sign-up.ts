import { useMutation } from '@tanstack/react-query'
import { messages } from '@/config/messages'
import { RequestError, UserError } from '@/lib/errors'
import type { MutationConfig } from '@/lib/query-client'
import { rpc, signInWithPassword, signUp } from '@/lib/supabase'

/** True when the server says the invite code is valid; any failure counts as invalid. */
export async function validateInviteCode(code: string): Promise<boolean> {
  const data: unknown = await rpc('validate_invite_code', { code_param: code }).catch(() => null)
  const value = Array.isArray(data) ? data[0] : data
  if (typeof value === 'boolean') return value
  return typeof value === 'object' && value !== null && (value as { valid?: unknown }).valid === true
}

export interface SignUpInput {
  email: string
  password: string
  confirm: string
  inviteCode: string
}

/** An account was created; signedIn is false when the automatic sign-in after it failed. */
export interface SignUpResult {
  signedIn: boolean
}

/**
 * Checks the confirmation and the invite, creates the account with the code in its metadata,
 * then signs in (unless sign-up already returned a session). The member-facing refusals are
 * UserErrors; anything else shows messages.auth.signupFailed.
 */
export async function signUpWithInvite({ email, password, confirm, inviteCode }: SignUpInput): Promise<SignUpResult> {
  if (password !== confirm) throw new UserError(messages.auth.passwordsDoNotMatch)
  if (!(await validateInviteCode(inviteCode))) throw new UserError(messages.auth.invalidInviteCode)
  let created
  try {
    created = await signUp(email, password, { invite_code: inviteCode }, window.location.origin)
  } catch (error) {
    if (error instanceof RequestError && error.message) throw new UserError(error.message)
    throw error
  }
  if (!created.user) throw new UserError(messages.auth.signupNoUser)
  if (created.session) return { signedIn: true }
  const signedIn = await signInWithPassword(email, password).catch(() => null)
  return { signedIn: signedIn?.user != null }
}

export function useSignUp(config: MutationConfig<SignUpInput, SignUpResult> = {}) {
  return useMutation({ ...config, mutationFn: signUpWithInvite })
}
