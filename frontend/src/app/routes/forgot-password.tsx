import { ForgotPasswordForm } from '@/features/auth/components/forgot-password-form'
import { useDocumentTitle } from '@/hooks/use-document-title'

export default function ForgotPasswordRoute() {
  useDocumentTitle('Reset Password')
  return <ForgotPasswordForm />
}
