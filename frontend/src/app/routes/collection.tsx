import { CollectionPage } from '@/features/collection/components/collection-page'
import { ReleaseCard, useListenedReleaseIds, useListenToggle } from '@/features/releases'
import { useDocumentTitle } from '@/hooks/use-document-title'
import { useUser } from '@/lib/auth'

export default function CollectionRoute() {
  useDocumentTitle('Collection')
  const user = useUser()
  const listen = useListenToggle()
  const listened = useListenedReleaseIds(user.id)
  return (
    <CollectionPage
      isListened={(release) => listened.has(release.id)}
      renderRelease={(release) => {
        const isListened = listen.valueOf(release.id, listened.has(release.id))
        return (
          <ReleaseCard
            compact
            release={release}
            listened={isListened}
            saving={listen.isSaving(release.id)}
            error={listen.errorOf(release.id)}
            onToggleListened={() => listen.toggle(release.id, isListened)}
          />
        )
      }}
    />
  )
}
