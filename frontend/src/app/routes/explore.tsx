import { ExplorePage } from '@/features/explore/components/explore-page'
import { ReleaseCard, useListenToggle } from '@/features/releases'
import { useDocumentTitle } from '@/hooks/use-document-title'

export default function ExploreRoute() {
  useDocumentTitle('Explore')
  const listen = useListenToggle()
  return (
    <ExplorePage
      renderRelease={(release, { onGenreClick, activeGenres }) => {
        const listened = listen.valueOf(release.id, Boolean(release.listened))
        return (
          <ReleaseCard
            row
            release={release}
            listened={listened}
            saving={listen.isSaving(release.id)}
            error={listen.errorOf(release.id)}
            onToggleListened={() => listen.toggle(release.id, listened)}
            onGenreClick={onGenreClick}
            activeGenres={activeGenres}
          />
        )
      }}
    />
  )
}
