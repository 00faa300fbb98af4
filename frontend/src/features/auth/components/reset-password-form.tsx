import { useEffect, useState, type FormEvent } from 'react'
import { Link, Navigate, useNavigate } from 'react-router'
import { Button, focusRing } from '@/components/ui/button'
import { PageSpinner } from '@/components/ui/spinner'
import { TextField } from '@/components/ui/text-field'
import { useToast } from '@/components/ui/toast'
import { TOAST_ERROR_MS } from '@/config/constants'
import { messages } from '@/config/messages'
import { paths } from '@/config/paths'
import { useAuth } from '@/lib/auth'
import { cn } from '@/lib/cn'
import { messageFor } from '@/lib/errors'
import { useSetNewPassword } from '../api/recover'
import { AuthCard } from './auth-card'

/** The message for a link error: ours for a used or expired link, else the server's words. */
export function linkErrorMessage(error: { code: string; description: string }): string {
  if (error.code === 'otp_expired' || !error.description) return messages.auth.recoveryLinkInvalid
  return error.description
}

const linkClasses = cn('rounded-sm font-medium text-violet-700 hover:underline', focusRing)

/**
 * The page a reset link leads to (the route guards send a recovery session here from any
 * route). A recovery session chooses a new password; a used or expired link shows why; a
 * member signed in the ordinary way changes the password with the current one instead
 * (Change Password); anyone else came with a link that no longer works.
 */
export function ResetPasswordForm() {
  const { status, user, recovery, linkError, endRecovery, dismissLinkError } = useAuth()
  const toast = useToast()
  const navigate = useNavigate()
  const [form, setForm] = useState({ next: '', confirm: '' })
  const save = useSetNewPassword({
    onSuccess: () => {
      endRecovery()
      toast.success(messages.auth.passwordReset)
      navigate(paths.home.getHref(), { replace: true })
    },
    onError: (error) => toast.error(messageFor(error, messages.auth.changePasswordFailed), TOAST_ERROR_MS),
  })
  // True once the new password is saved: leaving recovery must not bounce the page to Change Password.
  const finished = save.isSuccess
  // The link's error is shown here once: kept by the page, and cleared from the session state
  // so that the route guards stop sending the member here when they go on elsewhere.
  const [shownError] = useState(linkError)
  useEffect(() => {
    if (linkError) dismissLinkError()
  }, [linkError, dismissLinkError])
  const set = (field: keyof typeof form) => (event: { target: { value: string } }) => setForm((f) => ({ ...f, [field]: event.target.value }))

  if (status === 'loading') return <PageSpinner />
  if (shownError || status === 'signed-out' || !user) {
    return (
      <AuthCard title="Reset Password" subtitle={shownError ? linkErrorMessage(shownError) : messages.auth.recoveryLinkInvalid}>
        <div className="flex flex-wrap gap-x-6 gap-y-2 text-sm">
          <Link to={paths.forgotPassword.getHref()} className={linkClasses}>
            Request a New Link
          </Link>
          {user && (
            <Link to={paths.changePassword.getHref()} className={linkClasses}>
              Change Password
            </Link>
          )}
        </div>
      </AuthCard>
    )
  }
  // Signed in without a reset link: changing the password needs the current one.
  if (!recovery && !finished) return <Navigate to={paths.changePassword.getHref()} replace />

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    save.mutate(form)
  }

  return (
    <AuthCard title="Choose a New Password" subtitle={`For ${user.email}`}>
      <form onSubmit={onSubmit} className="space-y-4">
        <input type="text" name="username" autoComplete="username" value={user.email} readOnly hidden />
        <TextField label="New password" name="new-password" type="password" autoComplete="new-password" required value={form.next} onChange={set('next')} />
        <TextField
          label="Confirm new password"
          name="confirm-new-password"
          type="password"
          autoComplete="new-password"
          required
          value={form.confirm}
          onChange={set('confirm')}
        />
        <Button type="submit" className="w-full" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Set New Password'}
        </Button>
      </form>
    </AuthCard>
  )
}
