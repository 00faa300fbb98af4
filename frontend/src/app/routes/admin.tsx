import { AdminPage } from '@/features/admin/components/admin-page'
import { useDocumentTitle } from '@/hooks/use-document-title'

export default function AdminRoute() {
  useDocumentTitle('Admin')
  return <AdminPage />
}
