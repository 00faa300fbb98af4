import { ChangePasswordForm } from '@/features/auth/components/change-password-form'
import { useDocumentTitle } from '@/hooks/use-document-title'

export default function ChangePasswordRoute() {
  useDocumentTitle('Change Password')
  return <ChangePasswordForm />
}
