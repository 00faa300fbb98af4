import { queryOptions, useQuery } from '@tanstack/react-query'
import { messages } from '@/config/messages'
import { unwrap } from '@/lib/errors'
import { queryKeys } from '@/lib/query-keys'
import { selectEq } from '@/lib/supabase'

/** Ids of the labels the user follows (user_follow_labels). Throws on failure. */
export async function getFollowedLabelIds(userId: string): Promise<number[]> {
  const rows = unwrap(await selectEq('user_follow_labels', 'label_id', { user_id: userId }))
  return (rows ?? []).map((row) => Number(row.label_id))
}

export function followedLabelIdsQueryOptions(userId: string) {
  return queryOptions({
    queryKey: queryKeys.followedLabelIds(userId),
    queryFn: () => getFollowedLabelIds(userId),
    meta: { errorMessage: messages.load.followedLabels },
  })
}

export function useFollowedLabelIds(userId: string) {
  return useQuery(followedLabelIdsQueryOptions(userId))
}
