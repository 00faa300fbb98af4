import { queryOptions, useQuery } from '@tanstack/react-query'
import { queryKeys } from '@/lib/query-keys'
import { selectEq } from '@/lib/supabase'

/** Ids of the labels the user follows (user_follow_labels). Throws on failure. */
export async function getFollowedLabelIds(userId: string): Promise<number[]> {
  const rows = await selectEq('user_follow_labels', 'label_id', { user_id: userId })
  return rows.map((row) => Number(row.label_id))
}

/**
 * The follows decide only which empty state the feed shows, so the feed reports their failure
 * itself, in place of that empty state (no toast besides it).
 */
export function followedLabelIdsQueryOptions(userId: string) {
  return queryOptions({
    queryKey: queryKeys.followedLabelIds(userId),
    queryFn: () => getFollowedLabelIds(userId),
  })
}

export function useFollowedLabelIds(userId: string) {
  return useQuery(followedLabelIdsQueryOptions(userId))
}
