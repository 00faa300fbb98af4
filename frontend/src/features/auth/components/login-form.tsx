import { useState, type FormEvent } from 'react'
import { Link, useLocation, useNavigate } from 'react-router'
import { Button, focusRing } from '@/components/ui/button'
import { TextField } from '@/components/ui/text-field'
import { useToast } from '@/components/ui/toast'
import { TOAST_ERROR_MS } from '@/config/constants'
import { messages } from '@/config/messages'
import { paths } from '@/config/paths'
import { cn } from '@/lib/cn'
import { messageFor } from '@/lib/errors'
import { useLogin } from '../api/login'
import { AuthCard } from './auth-card'
import { redirectTarget } from '../utils/redirect-target'

export function LoginForm() {
  const toast = useToast()
  const navigate = useNavigate()
  const location = useLocation()
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const login = useLogin({
    onSuccess: ({ secondFactor }) => {
      // The sign-in route shows the code step instead (the auth state is needs-second-factor).
      if (secondFactor) return
      toast.success(messages.auth.loginSuccess)
      navigate(redirectTarget(location.state), { replace: true })
    },
    onError: (error) => toast.error(messageFor(error, messages.auth.loginFailed), TOAST_ERROR_MS),
  })

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    login.mutate({ email: email.trim(), password })
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
        <Button type="submit" className="w-full" disabled={login.isPending}>
          {login.isPending ? 'Signing in…' : 'Sign In'}
        </Button>
      </form>
    </AuthCard>
  )
}
