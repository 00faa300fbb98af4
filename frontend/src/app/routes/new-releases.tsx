import { NewReleasesFeed } from '@/features/releases'
import { useDocumentTitle } from '@/hooks/use-document-title'

export default function NewReleasesRoute() {
  useDocumentTitle('New Releases')
  return <NewReleasesFeed />
}
