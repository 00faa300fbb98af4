import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { TOTP_CODE_LENGTH, TOTP_FRIENDLY_NAME, TOTP_ISSUER } from '@/config/constants'
import { extraMessages } from '@/config/messages'
import { unwrap } from '@/lib/errors'
import { queryKeys } from '@/lib/query-keys'
import { enrollTotp, listTotpFactors, unenrollFactor, verifyTotp, type ApiError, type TotpEnrollment, type TotpFactor } from '@/lib/supabase'

export type { TotpEnrollment, TotpFactor }

/** The user's authenticator app factors (at most one verified, plus an unfinished setup). */
export function useTotpFactors(userId: string) {
  return useQuery({
    queryKey: queryKeys.totpFactors(userId),
    queryFn: async () => unwrap(await listTotpFactors()),
    meta: { errorMessage: extraMessages.mfa.loadFailed },
  })
}

/**
 * Starts a setup: setups left unfinished are dropped first (their name would clash with the
 * new one, and only a verified factor counts), then a new factor is enrolled.
 */
export async function startTotpSetup(unfinished: TotpFactor[]): Promise<TotpEnrollment> {
  for (const factor of unfinished) {
    const error = await unenrollFactor(factor.id)
    if (error) throw new Error(extraMessages.mfa.setupFailed)
  }
  const result = await enrollTotp(TOTP_FRIENDLY_NAME, TOTP_ISSUER)
  if (result.error) throw new Error(extraMessages.mfa.setupFailed)
  return result.data
}

/** Drops an unfinished setup (best effort: the server drops it after five minutes anyway). */
export async function cancelTotpSetup(factorId: string): Promise<void> {
  await unenrollFactor(factorId)
}

/** A code is six digits; spaces an app shows between groups are dropped. */
export function normaliseCode(raw: string): string | null {
  const code = raw.replace(/\s+/g, '')
  return new RegExp(`^\\d{${TOTP_CODE_LENGTH}}$`).test(code) ? code : null
}

/** The message for a refused code: wrong or reused, too many tries, or anything else. */
export function codeErrorMessage(error: ApiError): string {
  if (error.status === 429) return extraMessages.mfa.codeRateLimited
  if (error.code === 'mfa_verification_failed' || error.code === 'mfa_challenge_expired') return extraMessages.mfa.codeInvalid
  return extraMessages.mfa.verifyFailed
}

/** Checks a code for factorId; resolves to the message to show when it is refused, else null. */
export async function submitCode(factorId: string, raw: string): Promise<string | null> {
  const code = normaliseCode(raw)
  if (!code) return extraMessages.mfa.codeFormat
  try {
    const error = await verifyTotp(factorId, code)
    return error ? codeErrorMessage(error) : null
  } catch {
    return extraMessages.mfa.verifyFailed
  }
}

/** Removes a factor; a verified one needs a session that passed it (aal2). */
export function useRemoveTotp(userId: string) {
  const client = useQueryClient()
  return useMutation({
    mutationFn: async (factorId: string) => {
      const error = await unenrollFactor(factorId)
      if (!error) return
      throw new Error(error.code === 'insufficient_aal' ? extraMessages.mfa.removeNeedsCode : extraMessages.mfa.removeFailed)
    },
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.totpFactors(userId) }),
  })
}
