import { AuthCard } from '@/features/auth/components/auth-card'
import { ResetPasswordForm } from '@/features/auth/components/reset-password-form'
import { SecondFactorForm } from '@/features/security/components/second-factor-form'
import { useDocumentTitle } from '@/hooks/use-document-title'
import { useAuth } from '@/lib/auth'

export default function ResetPasswordRoute() {
  const { status } = useAuth()
  useDocumentTitle('Choose a New Password')
  // A reset link signs in with the mailbox alone (aal1). An account with an authenticator app
  // changes its password only after the code too, as the server requires.
  if (status === 'needs-second-factor') {
    return (
      <AuthCard title="Two-Step Verification" subtitle="Enter the 6-digit code from your authenticator app to choose a new password.">
        <SecondFactorForm successMessage={null} />
      </AuthCard>
    )
  }
  return <ResetPasswordForm />
}
