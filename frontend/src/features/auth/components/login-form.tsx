import { useState, type FormEvent } from 'react'
import { Link, useLocation, useNavigate } from 'react-router'
import { Button, focusRing } from '@/components/ui/button'
import { TextField } from '@/components/ui/text-field'
import { useToast } from '@/components/ui/toast'
import { TOAST_ERROR_MS } from '@/config/constants'
import { messages } from '@/config/messages'
import { paths } from '@/config/paths'
import { cn } from '@/lib/cn'
import { login } from '../api/login'
import { AuthCard } from './auth-card'
import { redirectTarget } from '../utils/redirect-target'

export function LoginForm() {
  const toast = useToast()
  const navigate = useNavigate()
  const location = useLocation()
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [busy, setBusy] = useState(false)

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    const result = await login(email.trim(), password)
    setBusy(false)
    if (!result.ok) {
      toast.error(result.message, TOAST_ERROR_MS)
      return
    }
    // The sign-in route shows the code step instead (the auth state is needs-second-factor).
    if (result.secondFactor) return
    toast.success(messages.auth.loginSuccess)
    navigate(redirectTarget(location.state), { replace: true })
  }

  return (
    <AuthCard
      title="Sign In"
      subtitle="Welcome back to Labelbase."
      footer={
        <>
          Have an invite code?{' '}
          <Link to={paths.signup.getHref()} className={cn('rounded-sm font-medium text-violet-700 hover:underline', focusRing)}>
            Create an Account
          </Link>
        </>
      }
    >
      <form onSubmit={onSubmit} className="space-y-4">
        <TextField label="Email" name="email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <div className="text-right text-sm">
          <Link to={paths.forgotPassword.getHref()} className={cn('rounded-sm font-medium text-violet-700 hover:underline', focusRing)}>
            Forgot Password?
          </Link>
        </div>
        <Button type="submit" className="w-full" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign In'}
        </Button>
      </form>
    </AuthCard>
  )
}
