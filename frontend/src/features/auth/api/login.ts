import { useMutation } from '@tanstack/react-query'
import { messages } from '@/config/messages'
import { RequestError, UserError } from '@/lib/errors'
import type { MutationConfig } from '@/lib/query-client'
import { assuranceLevels, signInWithPassword } from '@/lib/supabase'

export interface LoginInput {
  email: string
  password: string
}

/** A sign-in that went through. secondFactor: a code is due before the app opens (aal2 is next). */
export interface LoginResult {
  secondFactor: boolean
}

/**
 * Signs in. A refusal throws a UserError with the server's message (or the spec's fallback
 * when it sent none, or the no-user message); anything else is the form's fallback.
 */
export async function login({ email, password }: LoginInput): Promise<LoginResult> {
  let user
  try {
    ;({ user } = await signInWithPassword(email, password))
  } catch (error) {
    if (error instanceof RequestError) throw new UserError(error.message || messages.auth.loginFailed)
    throw error
  }
  if (!user) throw new UserError(messages.auth.loginNoUser)
  // If the levels cannot be read, the route guard still sees the pending code and asks for it.
  const levels = await assuranceLevels().catch(() => null)
  return { secondFactor: levels?.next === 'aal2' && levels.current !== 'aal2' }
}

export function useLogin(config: MutationConfig<LoginInput, LoginResult> = {}) {
  return useMutation({ ...config, mutationFn: login })
}
