import { useCallback, useEffect, useRef, useState } from 'react'
import { Link } from 'react-router'
import { buttonClasses } from '@/components/ui/button'
import { EmptyState } from '@/components/ui/empty-state'
import { PageHeader } from '@/components/ui/page-header'
import { Spinner } from '@/components/ui/spinner'
import { useToast } from '@/components/ui/toast'
import { NEW_RELEASES_PAGE_SIZE, TOAST_ERROR_MS } from '@/config/constants'
import { messages } from '@/config/messages'
import { paths } from '@/config/paths'
import { useInfiniteScroll } from '@/hooks/use-infinite-scroll'
import { useUser } from '@/lib/auth'
import { errorMessage } from '@/lib/errors'
import { appendUnique, hasMoreAfterPage } from '@/lib/pagination'
import type { Release } from '@/types/api'
import { getFollowedLabelIds } from '../api/get-followed-label-ids'
import { getLatestReleases } from '../api/get-latest-releases'
import { useListenToggle } from '../hooks/use-listen-toggle'
import { ReleaseCard } from './release-card'
import { ReleaseCardSkeleton, ReleaseGrid } from './release-grid'

/** The New Releases feed: newest releases of followed labels, 9 per page, infinite scroll. */
export function NewReleasesFeed() {
  const user = useUser()
  const toast = useToast()
  const listen = useListenToggle()
  const [releases, setReleases] = useState<Release[]>([])
  const [followedCount, setFollowedCount] = useState<number | null>(null)
  const [loading, setLoading] = useState(true)
  const [hasMore, setHasMore] = useState(false)
  const lastPage = useRef(0)
  const busy = useRef(false)
  const generation = useRef(0)

  const loadPage = useCallback(
    async (page: number) => {
      const gen = generation.current
      busy.current = true
      setLoading(true)
      try {
        const rows = await getLatestReleases(user.id, page)
        if (gen !== generation.current) return
        lastPage.current = page
        setReleases((current) => (page === 1 ? appendUnique([], rows) : appendUnique(current, rows)))
        setHasMore(hasMoreAfterPage(rows.length, NEW_RELEASES_PAGE_SIZE))
      } catch (error) {
        if (gen !== generation.current) return
        setHasMore(false)
        toast.error(messages.load.releases(errorMessage(error)), TOAST_ERROR_MS)
      } finally {
        if (gen === generation.current) {
          busy.current = false
          setLoading(false)
        }
      }
    },
    [user.id, toast],
  )

  useEffect(() => {
    generation.current += 1
    const gen = generation.current
    getFollowedLabelIds(user.id)
      .then((ids) => gen === generation.current && setFollowedCount(ids.length))
      .catch(() => gen === generation.current && toast.error(messages.load.followedLabels, TOAST_ERROR_MS))
    void loadPage(1)
  }, [user.id, loadPage, toast])

  const sentinelRef = useInfiniteScroll(
    () => {
      if (!busy.current && hasMore) void loadPage(lastPage.current + 1)
    },
    hasMore && !loading,
    releases.length,
  )

  const initialLoading = loading && releases.length === 0

  return (
    <section>
      <PageHeader title="New Releases" subtitle="The latest releases from the labels you follow" />
      {initialLoading ? (
        <ReleaseGrid>
          {Array.from({ length: 6 }, (_, i) => (
            <ReleaseCardSkeleton key={i} />
          ))}
        </ReleaseGrid>
      ) : releases.length === 0 ? (
        followedCount === 0 ? (
          <EmptyState
            message={messages.empty.feedNothingFollowed}
            action={
              <Link to={paths.labels.getHref()} className={buttonClasses('primary')}>
                Browse Labels
              </Link>
            }
          />
        ) : (
          <EmptyState message={messages.empty.feedNoReleases} />
        )
      ) : (
        <ReleaseGrid>
          {releases.map((release) => (
            <ReleaseCard
              key={release.id}
              release={release}
              listened={listen.valueOf(release.id, Boolean(release.listened))}
              saving={listen.isSaving(release.id)}
              error={listen.errorOf(release.id)}
              onToggleListened={() => listen.toggle(release.id, listen.valueOf(release.id, Boolean(release.listened)))}
            />
          ))}
        </ReleaseGrid>
      )}
      <div ref={sentinelRef} aria-hidden="true" className="h-4" data-testid="feed-sentinel" />
      {loading && releases.length > 0 && (
        <div className="flex justify-center py-6">
          <Spinner label="Loading more releases" />
        </div>
      )}
    </section>
  )
}
