import { EXPLORE_COUNT } from '@/config/constants'
import { listOrEmpty } from '@/lib/errors'
import { toRelease } from '@/lib/release-row'
import { rpc } from '@/lib/supabase'
import type { Release } from '@/types/api'

export interface ExploreFilters {
  genres: string[]
  timeRangeDays: number
}

/** Up to 9 random releases not in `excludeIds`; releases without genres are dropped. */
export async function getRandomReleases(userId: string, excludeIds: number[], filters: ExploreFilters): Promise<Release[]> {
  const result = await rpc('get_random_releases', {
    user_id: userId,
    label_ids: null,
    exclude_ids: excludeIds,
    num_releases: EXPLORE_COUNT,
    genre_filters: filters.genres.length > 0 ? filters.genres : null,
    time_range_days: filters.timeRangeDays,
  })
  return listOrEmpty(result, 'get_random_releases').map(toRelease).filter((release) => Array.isArray(release.genres) && release.genres.length > 0)
}
