import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { orFallback } from '@/lib/errors'
import { rpc } from '@/lib/supabase'

/** Every genre Explore can pick from in the time range, alphabetical. */
export async function getExploreGenres(timeRangeDays: number): Promise<string[]> {
  const rows = orFallback(await rpc('get_explore_genres', { time_range_days: timeRangeDays }), [], 'get_explore_genres')
  return (Array.isArray(rows) ? rows : []).map((row) => row.genre)
}

/** The genre panel's choices for a time range, from the first visit (not only those seen). */
export function useExploreGenres(timeRangeDays: number, enabled: boolean) {
  return useQuery({
    queryKey: ['explore-genres', timeRangeDays],
    queryFn: () => getExploreGenres(timeRangeDays),
    staleTime: 5 * 60_000,
    placeholderData: keepPreviousData,
    enabled,
  })
}
