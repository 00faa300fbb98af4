import { ResetPasswordForm } from '@/features/auth/components/reset-password-form'
import { useDocumentTitle } from '@/hooks/use-document-title'

export default function ResetPasswordRoute() {
  useDocumentTitle('Choose a New Password')
  return <ResetPasswordForm />
}
