import { AuthCard } from '@/features/auth/components/auth-card'
import { LoginForm } from '@/features/auth/components/login-form'
import { SecondFactorForm } from '@/features/security/components/second-factor-form'
import { useDocumentTitle } from '@/hooks/use-document-title'
import { useAuth } from '@/lib/auth'

export default function LoginRoute() {
  const { status } = useAuth()
  const secondStep = status === 'needs-second-factor'
  useDocumentTitle(secondStep ? 'Two-Step Verification' : 'Sign In')
  if (!secondStep) return <LoginForm />
  return (
    <AuthCard title="Two-Step Verification" subtitle="Enter the 6-digit code from your authenticator app.">
      <SecondFactorForm />
    </AuthCard>
  )
}
