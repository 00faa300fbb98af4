import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { orFallback } from '@/lib/errors'
import { queryKeys } from '@/lib/query-keys'
import { rpc } from '@/lib/supabase'

/** Every genre Explore can pick from in the time range, alphabetical. */
export async function getExploreGenres(timeRangeDays: number): Promise<string[]> {
  const rows = await orFallback(rpc('get_explore_genres', { time_range_days: timeRangeDays }), [], 'get_explore_genres')
  return (Array.isArray(rows) ? rows : []).map((row) => row.genre)
}

/** The genre panel's choices for a time range, from the first visit (not only those seen). */
export function useExploreGenres(timeRangeDays: number, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.exploreGenres(timeRangeDays),
    queryFn: () => getExploreGenres(timeRangeDays),
    staleTime: 5 * 60_000,
    placeholderData: keepPreviousData,
    enabled,
  })
}
