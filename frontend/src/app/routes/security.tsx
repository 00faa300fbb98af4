import { AvatarSection } from '@/features/account'
import { SecurityPage } from '@/features/security/components/security-page'
import { useDocumentTitle } from '@/hooks/use-document-title'

/** The account page: two-factor authentication and the member's picture. */
export default function SecurityRoute() {
  useDocumentTitle('Security')
  return (
    <>
      <SecurityPage />
      <div className="mx-auto mt-6 max-w-2xl">
        <AvatarSection />
      </div>
    </>
  )
}
