import { useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { useToast } from '@/components/ui/toast'
import { TOAST_ERROR_MS } from '@/config/constants'
import { extraMessages } from '@/config/messages'
import { useUser } from '@/lib/auth'
import { messageFor } from '@/lib/errors'
import { useVerifyCode, type TotpEnrollment } from '../api/mfa'
import { CodeField } from './code-field'

/**
 * Step two of the setup: scan the QR code (or type the key), then prove it with a code. The
 * factor counts only once a code is verified; until then the account signs in as before.
 */
export function TotpSetup({ enrollment, onDone, onCancel }: { enrollment: TotpEnrollment; onDone: () => void; onCancel: () => void }) {
  const user = useUser()
  const toast = useToast()
  const [code, setCode] = useState('')
  const verify = useVerifyCode(user.id, {
    onSuccess: () => {
      toast.success(extraMessages.mfa.enabled)
      onDone()
    },
    onError: (error) => {
      toast.error(messageFor(error, extraMessages.mfa.verifyFailed), TOAST_ERROR_MS)
      setCode('')
    },
  })
  const busy = verify.isPending

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    verify.mutate({ factorId: enrollment.factorId, code })
  }

  return (
    <div className="space-y-5">
      <ol className="list-decimal space-y-1 pl-5 text-sm text-zinc-700">
        <li>Open an authenticator app on your phone (Google Authenticator, 1Password, Aegis, …).</li>
        <li>Scan this QR code, or enter the key below by hand.</li>
        <li>Type the 6-digit code the app shows.</li>
      </ol>
      <div className="flex flex-col items-center gap-4 sm:flex-row sm:items-start">
        <img
          src={enrollment.qrCode}
          alt="QR code to scan with your authenticator app"
          className="size-44 shrink-0 rounded-lg border border-zinc-200 bg-white p-2"
        />
        <div className="min-w-0 text-sm">
          <p className="font-medium text-zinc-700">Setup key</p>
          <code data-testid="totp-secret" className="mt-1 block rounded-lg bg-zinc-100 px-3 py-2 font-mono text-sm break-all text-zinc-900 select-all">
            {enrollment.secret}
          </code>
          <p className="mt-2 text-xs text-zinc-500">Time-based, 6 digits, every 30 seconds.</p>
        </div>
      </div>
      <form onSubmit={onSubmit} className="space-y-4">
        <CodeField value={code} onChange={setCode} />
        <div className="flex flex-wrap gap-2">
          <Button type="submit" disabled={busy}>
            {busy ? 'Checking…' : 'Verify and turn on'}
          </Button>
          <Button variant="secondary" onClick={onCancel} disabled={busy}>
            Cancel
          </Button>
        </div>
      </form>
    </div>
  )
}
