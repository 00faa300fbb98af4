import { useState, type FormEvent } from 'react'
import { Link, useNavigate } from 'react-router'
import { Button, focusRing } from '@/components/ui/button'
import { TextField } from '@/components/ui/text-field'
import { useToast } from '@/components/ui/toast'
import { TOAST_ERROR_MS } from '@/config/constants'
import { messages } from '@/config/messages'
import { paths } from '@/config/paths'
import { cn } from '@/lib/cn'
import { messageFor } from '@/lib/errors'
import { useSignUp } from '../api/sign-up'
import { AuthCard } from './auth-card'

export function SignupForm() {
  const toast = useToast()
  const navigate = useNavigate()
  const [form, setForm] = useState({ email: '', password: '', confirm: '', invite: '' })
  const set = (field: keyof typeof form) => (event: { target: { value: string } }) => setForm((f) => ({ ...f, [field]: event.target.value }))
  const signUp = useSignUp({
    onSuccess: ({ signedIn }) => {
      toast.success(signedIn ? messages.auth.signupSignedIn : messages.auth.signupSignInManually)
      navigate(signedIn ? paths.home.getHref() : paths.login.getHref(), { replace: true })
    },
    onError: (error) => toast.error(messageFor(error, messages.auth.signupFailed), TOAST_ERROR_MS),
  })

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    signUp.mutate({ email: form.email.trim(), password: form.password, confirm: form.confirm, inviteCode: form.invite.trim() })
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
        <Button type="submit" className="w-full" disabled={signUp.isPending}>
          {signUp.isPending ? 'Creating account…' : 'Sign Up'}
        </Button>
      </form>
    </AuthCard>
  )
}
