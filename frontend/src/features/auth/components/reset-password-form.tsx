import { useState, type FormEvent } from 'react'
import { Link, useNavigate } from 'react-router'
import { Button, focusRing } from '@/components/ui/button'
import { PageSpinner } from '@/components/ui/spinner'
import { TextField } from '@/components/ui/text-field'
import { useToast } from '@/components/ui/toast'
import { TOAST_ERROR_MS } from '@/config/constants'
import { messages } from '@/config/messages'
import { paths } from '@/config/paths'
import { useAuth } from '@/lib/auth'
import { cn } from '@/lib/cn'
import { setNewPassword } from '../api/recover'
import { AuthCard } from './auth-card'

/**
 * The page a reset link lands on. supabase-js has already read the session
 * from the URL fragment, so a signed-in visitor chooses a new password; a
 * signed-out one came with a used or expired link.
 */
export function ResetPasswordForm() {
  const { status, user } = useAuth()
  const toast = useToast()
  const navigate = useNavigate()
  const [form, setForm] = useState({ next: '', confirm: '' })
  const [busy, setBusy] = useState(false)
  const set = (field: keyof typeof form) => (event: { target: { value: string } }) => setForm((f) => ({ ...f, [field]: event.target.value }))

  if (status === 'loading') return <PageSpinner />
  if (status === 'signed-out' || !user) {
    return (
      <AuthCard title="Reset password" subtitle={messages.auth.recoveryLinkInvalid}>
        <Link to={paths.forgotPassword.getHref()} className={cn('rounded-sm font-medium text-violet-700 hover:underline', focusRing)}>
          Request a new link
        </Link>
      </AuthCard>
    )
  }

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    const result = await setNewPassword(form.next, form.confirm)
    setBusy(false)
    if (!result.ok) {
      toast.error(result.message, TOAST_ERROR_MS)
      return
    }
    toast.success(messages.auth.passwordReset)
    navigate(paths.home.getHref(), { replace: true })
  }

  return (
    <AuthCard title="Choose a new password" subtitle={`For ${user.email}`}>
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
        <Button type="submit" className="w-full" disabled={busy}>
          {busy ? 'Saving…' : 'Set new password'}
        </Button>
      </form>
    </AuthCard>
  )
}
