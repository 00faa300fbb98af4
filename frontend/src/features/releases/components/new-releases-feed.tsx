import { useMemo } from 'react'
import { Link } from 'react-router'
import { buttonClasses } from '@/components/ui/button'
import { EmptyState } from '@/components/ui/empty-state'
import { LoadError } from '@/components/ui/load-error'
import { PageHeader } from '@/components/ui/page-header'
import { QueryState } from '@/components/ui/query-state'
import { CheckIcon } from '@/components/ui/check-icon'
import { Spinner } from '@/components/ui/spinner'
import { extraMessages, messages } from '@/config/messages'
import { paths } from '@/config/paths'
import { useInfiniteScroll } from '@/hooks/use-infinite-scroll'
import { useUser } from '@/lib/auth'
import { errorMessage } from '@/lib/errors'
import { appendUnique } from '@/lib/pagination'
import { cn } from '@/lib/cn'
import type { Release } from '@/types/api'
import { useFollowedLabelIds } from '../api/get-followed-label-ids'
import { useLatestReleases } from '../api/get-latest-releases'
import { useListenToggle } from '../hooks/use-listen-toggle'
import { useNewReleasesNotice } from '../hooks/use-new-releases-notice'
import { ReleaseCard } from './release-card'
import { ReleaseCardSkeleton, ReleaseGrid } from './release-grid'

/** The New Releases feed: newest releases of followed labels, 9 per page, infinite scroll. */
export function NewReleasesFeed() {
  const user = useUser()
  const listen = useListenToggle()
  const feed = useLatestReleases(user.id)
  const followed = useFollowedLabelIds(user.id)
  const releases = useMemo(() => (feed.data?.pages ?? []).reduce<Release[]>(appendUnique, []), [feed.data])
  const followedCount = followed.data?.length ?? null
  const notice = useNewReleasesNotice(user.id)

  // A failed next page stops the scrolling instead of retrying on every intersection.
  const canLoadMore = feed.hasNextPage && !feed.isFetching && !feed.isFetchNextPageError
  const sentinelRef = useInfiniteScroll(() => void feed.fetchNextPage({ cancelRefetch: false }), canLoadMore, releases.length)

  const initialLoading = feed.isPending || (releases.length === 0 && followed.isPending)
  const failed = feed.isError && !feed.isFetchNextPageError
  // With nothing in the feed, which empty state is true depends on the follows: unknown is an error too.
  const followsFailed = releases.length === 0 && followed.isError
  const loadMessage = feed.error ? messages.load.releases(errorMessage(feed.error)) : messages.load.followedLabels
  // The feed's state as one load: it is empty only once the follows say which empty state is true.
  const state = {
    data: releases,
    error: failed ? feed.error : !feed.isPending && followsFailed ? followed.error : null,
    isPending: initialLoading,
    isFetching: feed.isFetching || followed.isFetching,
    refetch: () => {
      if (feed.isError) void feed.refetch()
      if (followed.isError) void followed.refetch()
    },
  }

  return (
    <section>
      <PageHeader title="New Releases" subtitle="The latest releases from the labels you follow" />
      <div aria-live="polite" className="sticky top-2 z-20 flex justify-center empty:hidden">
        {notice.count > 0 && (
          <button type="button" onClick={notice.show} className={cn(buttonClasses('primary'), 'mb-4 rounded-full shadow-lg')}>
            {extraMessages.newReleases(notice.count)}
          </button>
        )}
      </div>
      <QueryState
        query={state}
        errorMessage={loadMessage}
        loading={
          <ReleaseGrid>
            {Array.from({ length: 8 }, (_, i) => (
              <ReleaseCardSkeleton key={i} />
            ))}
          </ReleaseGrid>
        }
        empty={
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
        }
      >
        {(shown) => (
          <ReleaseGrid>
            {shown.map((release) => (
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
      </QueryState>
      <div ref={sentinelRef} aria-hidden="true" className="h-4" data-testid="feed-sentinel" />
      {feed.isFetchingNextPage && (
        <div className="flex justify-center py-6">
          <Spinner label="Loading more releases" />
        </div>
      )}
      {feed.isFetchNextPageError && <LoadError compact message={loadMessage} onRetry={() => void feed.fetchNextPage()} retrying={feed.isFetching} />}
      {!feed.hasNextPage && !feed.isFetching && !feed.isError && releases.length > 0 && (
        <div role="note" data-testid="feed-end" className="flex flex-col items-center gap-1 py-10 text-center">
          <span className="inline-flex size-9 items-center justify-center rounded-full bg-emerald-50 text-emerald-700">
            <CheckIcon />
          </span>
          <p className="font-medium text-zinc-800">{extraMessages.feedEnd}</p>
          <p className="text-sm text-zinc-500">{extraMessages.feedEndDetail}</p>
        </div>
      )}
    </section>
  )
}
