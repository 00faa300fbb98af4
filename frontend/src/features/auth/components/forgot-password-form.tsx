import { useState, type FormEvent } from 'react'
import { Link } from 'react-router'
import { Button, focusRing } from '@/components/ui/button'
import { TextField } from '@/components/ui/text-field'
import { useToast } from '@/components/ui/toast'
import { TOAST_ERROR_MS } from '@/config/constants'
import { messages } from '@/config/messages'
import { paths } from '@/config/paths'
import { cn } from '@/lib/cn'
import { messageFor } from '@/lib/errors'
import { useRequestRecovery } from '../api/recover'
import { AuthCard } from './auth-card'

export function ForgotPasswordForm() {
  const toast = useToast()
  const [email, setEmail] = useState('')
  // The page says it is sent (below, with how long the link lasts); a toast would say it twice.
  const recover = useRequestRecovery({
    onError: (error) => toast.error(messageFor(error, messages.auth.recoveryFailed), TOAST_ERROR_MS),
  })

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    recover.mutate({ email, origin: window.location.origin })
  }

  return (
    <AuthCard
      title="Reset Password"
      subtitle="We will email you a link to choose a new password."
      footer={
        <>
          Remembered it?{' '}
          <Link to={paths.login.getHref()} className={cn('rounded-sm font-medium text-violet-700 hover:underline', focusRing)}>
            Sign In
          </Link>
        </>
      }
    >
      {recover.isSuccess ? (
        <p role="status" className="text-sm text-zinc-700">
          {messages.auth.recoverySent} The link works once and expires after an hour.
        </p>
      ) : (
        <form onSubmit={onSubmit} className="space-y-4">
          <TextField label="Email" name="email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          <Button type="submit" className="w-full" disabled={recover.isPending}>
            {recover.isPending ? 'Sending…' : 'Send Reset Link'}
          </Button>
        </form>
      )}
    </AuthCard>
  )
}
