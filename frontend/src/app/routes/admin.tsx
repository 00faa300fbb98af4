import { PageSpinner } from '@/components/ui/spinner'
import { QueryState } from '@/components/ui/query-state'
import { extraMessages } from '@/config/messages'
import { AdminPage } from '@/features/admin/components/admin-page'
import { AuthCard } from '@/features/auth/components/auth-card'
import { useSecondFactorDue } from '@/features/security/api/mfa'
import { SecondFactorForm } from '@/features/security/components/second-factor-form'
import { useDocumentTitle } from '@/hooks/use-document-title'
import { useUser } from '@/lib/auth'

/**
 * The admin console. Once an admin has a verified authenticator app, the database grants admin
 * rights only to an aal2 token (public.is_admin()), so a session that has not passed the code
 * would get member answers: the console asks for the code first and shows nothing (not even
 * its tabs, and it sends none of its calls) until the session is aal2.
 */
export default function AdminRoute() {
  const user = useUser()
  const due = useSecondFactorDue(user.id)
  useDocumentTitle(due.data ? 'Two-Step Verification' : 'Admin')
  return (
    <QueryState query={due} loading={<PageSpinner />} errorMessage={extraMessages.mfa.levelsFailed}>
      {(codeDue) =>
        codeDue ? (
          <AuthCard title="Two-Step Verification" subtitle="Enter the 6-digit code from your authenticator app to open the admin console.">
            <SecondFactorForm successMessage={null} />
          </AuthCard>
        ) : (
          <AdminPage />
        )
      }
    </QueryState>
  )
}
