import { useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { LoadError } from '@/components/ui/load-error'
import { useToast } from '@/components/ui/toast'
import { TOAST_ERROR_MS } from '@/config/constants'
import { extraMessages, messages } from '@/config/messages'
import { useAuth } from '@/lib/auth'
import { messageFor } from '@/lib/errors'
import { useTotpFactors, useVerifyCode } from '../api/mfa'
import { CodeField } from './code-field'

/**
 * The second sign-in step: the password (or a reset link) was right and the account has an
 * authenticator app, so the session is aal1 until a code raises it to aal2. Once it does, the
 * auth state turns signed-in and the route moves on. successMessage is the toast then (the
 * sign-in one by default; null for none).
 */
export function SecondFactorForm({ successMessage = messages.auth.loginSuccess }: { successMessage?: string | null }) {
  const { user, signOut } = useAuth()
  const toast = useToast()
  const factors = useTotpFactors(user?.id ?? '')
  const factor = factors.data?.find((f) => f.status === 'verified')
  const [code, setCode] = useState('')
  const verify = useVerifyCode(user?.id ?? '', {
    onSuccess: () => {
      if (successMessage) toast.success(successMessage)
    },
    onError: (error) => {
      toast.error(messageFor(error, extraMessages.mfa.verifyFailed), TOAST_ERROR_MS)
      setCode('')
    },
  })

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    if (factor) verify.mutate({ factorId: factor.id, code })
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4" aria-busy={factors.isPending}>
      {factors.isError && <LoadError compact message={extraMessages.mfa.loadFailed} onRetry={() => void factors.refetch()} retrying={factors.isFetching} />}
      <CodeField value={code} onChange={setCode} focusOnMount />
      <Button type="submit" className="w-full" disabled={verify.isPending || !factor}>
        {verify.isPending ? 'Checking…' : 'Verify'}
      </Button>
      <Button variant="ghost" className="w-full" onClick={() => void signOut()}>
        Use a different account
      </Button>
    </form>
  )
}
