/** What other layers (app routes) compose from this feature. */
export { NewReleasesFeed } from './components/new-releases-feed'
export { ReleaseCard } from './components/release-card'
export { useListenToggle } from './hooks/use-listen-toggle'
export { useListenedReleaseIds } from './hooks/use-listened-release-ids'
