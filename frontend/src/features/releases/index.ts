/** What other layers (app routes) compose from this feature. */
export { prefetchLatestReleases } from './api/get-latest-releases'
export { useListenedReleaseIds } from './api/get-listened-release-ids'
export { NewReleasesFeed } from './components/new-releases-feed'
export { ReleaseCard } from './components/release-card'
export { useListenToggle } from './hooks/use-listen-toggle'
export { useLiveListens } from './hooks/use-live-listens'
