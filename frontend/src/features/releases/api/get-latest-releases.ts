import { infiniteQueryOptions, useInfiniteQuery, type QueryClient } from '@tanstack/react-query'
import { NEW_RELEASES_PAGE_SIZE } from '@/config/constants'
import { listOrEmpty } from '@/lib/errors'
import { hasMoreAfterPage } from '@/lib/pagination'
import { queryKeys } from '@/lib/query-keys'
import { toRelease } from '@/lib/release-row'
import { getSession, rpc } from '@/lib/supabase'
import type { Release } from '@/types/api'

/** One page (1-based) of the newest releases of the labels the user follows. */
export async function getLatestReleases(userId: string, page: number): Promise<Release[]> {
  const rows = await listOrEmpty(
    rpc('get_latest_releases', {
      // label_ids left out: its default (NULL) means every followed label.
      user_id: userId,
      page_size: NEW_RELEASES_PAGE_SIZE,
      page,
    }),
    'get_latest_releases',
  )
  return rows.map(toRelease)
}

/** The feed, 9 releases a page; a short page is the last one. */
export function latestReleasesQueryOptions(userId: string) {
  return infiniteQueryOptions({
    queryKey: queryKeys.feed(userId),
    queryFn: ({ pageParam }) => getLatestReleases(userId, pageParam),
    initialPageParam: 1,
    getNextPageParam: (lastPage: Release[], _pages, lastPageParam: number) =>
      hasMoreAfterPage(lastPage.length, NEW_RELEASES_PAGE_SIZE) ? lastPageParam + 1 : undefined,
  })
}

/**
 * Starts loading the feed's first page for the stored session, if any, before React has
 * rendered: on a cold load of `/` the request then runs while the app's code evaluates and the
 * route renders, instead of after. The feed's useInfiniteQuery picks up the same query.
 */
export async function prefetchLatestReleases(client: QueryClient): Promise<void> {
  const session = await getSession().catch(() => null)
  if (session) await client.prefetchInfiniteQuery(latestReleasesQueryOptions(session.user.id))
}

export function useLatestReleases(userId: string) {
  return useInfiniteQuery(latestReleasesQueryOptions(userId))
}
