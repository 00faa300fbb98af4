import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { TOTP_CODE_LENGTH, TOTP_FRIENDLY_NAME, TOTP_ISSUER } from '@/config/constants'
import { extraMessages } from '@/config/messages'
import { RequestError, UserError } from '@/lib/errors'
import type { MutationConfig } from '@/lib/query-client'
import { queryKeys } from '@/lib/query-keys'
import { assuranceLevels, enrollTotp, listTotpFactors, unenrollFactor, verifyTotp, type TotpEnrollment, type TotpFactor } from '@/lib/supabase'

export type { TotpEnrollment, TotpFactor }

/**
 * The user's authenticator app factors (at most one verified, plus an unfinished setup). A
 * failure is shown where the factors are used (the Security page, the code step), with a retry.
 */
export function useTotpFactors(userId: string) {
  return useQuery({ queryKey: queryKeys.totpFactors(userId), queryFn: listTotpFactors })
}

/**
 * True when the account has a verified factor whose code this session has not passed yet
 * (supabase-js's getAuthenticatorAssuranceLevel: current aal1, next aal2), with the factors
 * read from the server. Asked on every visit (staleTime and gcTime 0); a verified code asks
 * again (useVerifyCode).
 */
export function useSecondFactorDue(userId: string) {
  return useQuery({
    queryKey: queryKeys.secondFactorDue(userId),
    queryFn: async () => {
      const levels = await assuranceLevels(true)
      return levels.current === 'aal1' && levels.next === 'aal2'
    },
    staleTime: 0,
    gcTime: 0,
  })
}

/**
 * Starts a setup: setups left unfinished are dropped first (their name would clash with the
 * new one, and only a verified factor counts), then a new factor is enrolled. Any failure is
 * messages.mfa.setupFailed.
 */
export async function startTotpSetup(unfinished: TotpFactor[]): Promise<TotpEnrollment> {
  try {
    for (const factor of unfinished) await unenrollFactor(factor.id)
    return await enrollTotp(TOTP_FRIENDLY_NAME, TOTP_ISSUER)
  } catch {
    throw new UserError(extraMessages.mfa.setupFailed)
  }
}

export function useStartTotpSetup(config: MutationConfig<TotpFactor[], TotpEnrollment> = {}) {
  return useMutation({ ...config, mutationFn: startTotpSetup })
}

/** Drops an unfinished setup (best effort: the server drops it after five minutes anyway). */
export async function cancelTotpSetup(factorId: string): Promise<void> {
  await unenrollFactor(factorId).catch(() => {})
}

/** A code is six digits; spaces an app shows between groups are dropped. */
export function normaliseCode(raw: string): string | null {
  const code = raw.replace(/\s+/g, '')
  return new RegExp(`^\\d{${TOTP_CODE_LENGTH}}$`).test(code) ? code : null
}

/** The message for a refused code: wrong or reused, too many tries, or anything else. */
export function codeErrorMessage(error: unknown): string {
  if (!(error instanceof RequestError)) return extraMessages.mfa.verifyFailed
  if (error.status === 429) return extraMessages.mfa.codeRateLimited
  if (error.code === 'mfa_verification_failed' || error.code === 'mfa_challenge_expired') return extraMessages.mfa.codeInvalid
  return extraMessages.mfa.verifyFailed
}

export interface CodeInput {
  factorId: string
  code: string
}

/** Checks a code for a factor; a refusal is a UserError with the message to show. */
export async function submitCode({ factorId, code: raw }: CodeInput): Promise<void> {
  const code = normaliseCode(raw)
  if (!code) throw new UserError(extraMessages.mfa.codeFormat)
  try {
    await verifyTotp(factorId, code)
  } catch (error) {
    throw new UserError(codeErrorMessage(error))
  }
}

/**
 * Verifies a code; success raises the session to aal2, so the assurance levels are asked again
 * (a page waiting for the code then opens).
 */
export function useVerifyCode(userId: string, config: MutationConfig<CodeInput> = {}) {
  const client = useQueryClient()
  return useMutation({
    ...config,
    mutationFn: submitCode,
    onSuccess: async (...args) => {
      await client.invalidateQueries({ queryKey: queryKeys.secondFactorDue(userId) })
      await config.onSuccess?.(...args)
    },
  })
}

/** Removes a factor; a verified one needs a session that passed it (aal2). */
export function useRemoveTotp(userId: string, config: MutationConfig<string> = {}) {
  const client = useQueryClient()
  return useMutation({
    ...config,
    mutationFn: async (factorId: string) => {
      try {
        await unenrollFactor(factorId)
      } catch (error) {
        throw new UserError(
          error instanceof RequestError && error.code === 'insufficient_aal' ? extraMessages.mfa.removeNeedsCode : extraMessages.mfa.removeFailed,
        )
      }
    },
    onSettled: async (...args) => {
      await client.invalidateQueries({ queryKey: queryKeys.totpFactors(userId) })
      await config.onSettled?.(...args)
    },
  })
}
