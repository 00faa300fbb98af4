import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { EXPLORE_COUNT } from '@/config/constants'
import { listOrEmpty } from '@/lib/errors'
import { queryKeys } from '@/lib/query-keys'
import { toRelease } from '@/lib/release-row'
import { rpc } from '@/lib/supabase'
import type { Release } from '@/types/api'

export interface ExploreFilters {
  genres: readonly string[]
  timeRangeDays: number
}

/** Up to 9 random releases not in `excludeIds`; releases without genres are dropped. */
export async function getRandomReleases(userId: string, excludeIds: number[], filters: ExploreFilters): Promise<Release[]> {
  const rows = await listOrEmpty(
    rpc('get_random_releases', {
      // label_ids and an empty genre filter are left out: their default (NULL) means "all".
      user_id: userId,
      exclude_ids: excludeIds,
      num_releases: EXPLORE_COUNT,
      genre_filters: filters.genres.length > 0 ? [...filters.genres] : undefined,
      time_range_days: filters.timeRangeDays,
    }),
    'get_random_releases',
  )
  return rows.map(toRelease).filter((release) => Array.isArray(release.genres) && release.genres.length > 0)
}

/**
 * Nine random releases for the applied filters, avoiding `excludeIds`. A result stays until
 * Shuffle or a filter change asks for another (staleTime Infinity) and is dropped when the
 * page is left (gcTime 0), so each visit starts with a fresh pick. While the next pick loads
 * the current one stays on screen.
 */
export function useRandomReleases(userId: string, filters: ExploreFilters, excludeIds: readonly number[]) {
  return useQuery({
    queryKey: queryKeys.explore(userId, filters.genres, filters.timeRangeDays, excludeIds),
    queryFn: () => getRandomReleases(userId, [...excludeIds], filters),
    staleTime: Infinity,
    gcTime: 0,
    placeholderData: keepPreviousData,
  })
}
