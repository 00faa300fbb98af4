import { LoginForm } from '@/features/auth/components/login-form'
import { useDocumentTitle } from '@/hooks/use-document-title'

export default function LoginRoute() {
  useDocumentTitle('Sign In')
  return <LoginForm />
}
