import { SecurityPage } from '@/features/security/components/security-page'
import { useDocumentTitle } from '@/hooks/use-document-title'

export default function SecurityRoute() {
  useDocumentTitle('Security')
  return <SecurityPage />
}
