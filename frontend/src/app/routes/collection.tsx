import { CollectionPage } from '@/features/collection/components/collection-page'
import { ReleaseCard, useListenedReleaseIds, useListenToggle } from '@/features/releases'
import { useDocumentTitle } from '@/hooks/use-document-title'

export default function CollectionRoute() {
  useDocumentTitle('Collection')
  const listen = useListenToggle()
  const listenedIds = useListenedReleaseIds()
  return (
    <CollectionPage
      renderRelease={(release) => {
        const listened = listen.valueOf(release.id, listenedIds.has(release.id))
        return (
          <ReleaseCard
            compact
            release={release}
            listened={listened}
            saving={listen.isSaving(release.id)}
            error={listen.errorOf(release.id)}
            onToggleListened={() => listen.toggle(release.id, listened)}
          />
        )
      }}
    />
  )
}
