import { useState, type FormEvent } from 'react'
import { Link, useNavigate } from 'react-router'
import { Button, focusRing } from '@/components/ui/button'
import { TextField } from '@/components/ui/text-field'
import { useToast } from '@/components/ui/toast'
import { TOAST_ERROR_MS } from '@/config/constants'
import { messages } from '@/config/messages'
import { paths } from '@/config/paths'
import { cn } from '@/lib/cn'
import { signUpWithInvite } from '../api/sign-up'
import { AuthCard } from './auth-card'

export function SignupForm() {
  const toast = useToast()
  const navigate = useNavigate()
  const [form, setForm] = useState({ email: '', password: '', confirm: '', invite: '' })
  const [busy, setBusy] = useState(false)
  const set = (field: keyof typeof form) => (event: { target: { value: string } }) => setForm((f) => ({ ...f, [field]: event.target.value }))

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault()
    if (form.password !== form.confirm) {
      toast.error(messages.auth.passwordsDoNotMatch, TOAST_ERROR_MS)
      return
    }
    setBusy(true)
    const result = await signUpWithInvite(form.email.trim(), form.password, form.invite.trim())
    setBusy(false)
    if (!result.ok) {
      toast.error(result.message, TOAST_ERROR_MS)
      return
    }
    if (result.signedIn) {
      toast.success(messages.auth.signupSignedIn)
      navigate(paths.home.getHref(), { replace: true })
    } else {
      toast.success(messages.auth.signupSignInManually)
      navigate(paths.login.getHref(), { replace: true })
    }
  }

  return (
    <AuthCard
      title="Create Your Account"
      subtitle="Labelbase is members-only: you need an invite code to join."
      footer={
        <>
          Already a member?{' '}
          <Link to={paths.login.getHref()} className={cn('rounded-sm font-medium text-violet-700 hover:underline', focusRing)}>
            Sign In
          </Link>
        </>
      }
    >
      <form onSubmit={onSubmit} className="space-y-4">
        <TextField label="Email" name="email" type="email" autoComplete="email" required value={form.email} onChange={set('email')} />
        <TextField label="Password" name="password" type="password" autoComplete="new-password" required value={form.password} onChange={set('password')} />
        <TextField
          label="Confirm password"
          name="confirm-password"
          type="password"
          autoComplete="new-password"
          required
          value={form.confirm}
          onChange={set('confirm')}
        />
        <TextField label="Invite code" name="invite-code" autoComplete="off" spellCheck={false} required value={form.invite} onChange={set('invite')} />
        <Button type="submit" className="w-full" disabled={busy}>
          {busy ? 'Creating account…' : 'Sign Up'}
        </Button>
      </form>
    </AuthCard>
  )
}
