import { useState, type FormEvent } from 'react'
import { useNavigate } from 'react-router'
import { Button } from '@/components/ui/button'
import { TextField } from '@/components/ui/text-field'
import { useToast } from '@/components/ui/toast'
import { TOAST_ERROR_MS } from '@/config/constants'
import { messages } from '@/config/messages'
import { paths } from '@/config/paths'
import { useUser } from '@/lib/auth'
import { messageFor } from '@/lib/errors'
import { useChangePassword } from '../api/change-password'
import { AuthCard } from './auth-card'

export function ChangePasswordForm() {
  const user = useUser()
  const toast = useToast()
  const navigate = useNavigate()
  const [form, setForm] = useState({ current: '', next: '', confirm: '' })
  const set = (field: keyof typeof form) => (event: { target: { value: string } }) => setForm((f) => ({ ...f, [field]: event.target.value }))
  const change = useChangePassword({
    onSuccess: () => {
      toast.success(messages.auth.passwordChanged)
      navigate(paths.home.getHref())
    },
    onError: (error) => toast.error(messageFor(error, messages.auth.changePasswordFailed), TOAST_ERROR_MS),
  })

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    change.mutate({ email: user.email, ...form })
  }

  return (
    <AuthCard title="Change Password" subtitle={`Signed in as ${user.email}`}>
      <form onSubmit={onSubmit} className="space-y-4">
        <input type="text" name="username" autoComplete="username" value={user.email} readOnly hidden />
        <TextField
          label="Current password"
          name="current-password"
          type="password"
          autoComplete="current-password"
          required
          value={form.current}
          onChange={set('current')}
        />
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
        <Button type="submit" className="w-full" disabled={change.isPending}>
          {change.isPending ? 'Saving…' : 'Change Password'}
        </Button>
      </form>
    </AuthCard>
  )
}
