import { queryOptions, useQuery } from '@tanstack/react-query'
import { messages } from '@/config/messages'
import { queryKeys } from '@/lib/query-keys'
import { selectEq } from '@/lib/supabase'

/** Ids of the releases the user marked as listened. Throws on failure. */
export async function getListenedReleaseIds(userId: string): Promise<ReadonlySet<number>> {
  const rows = await selectEq('user_listened_releases', 'release_id', { user_id: userId })
  return new Set(rows.map((row) => Number(row.release_id)))
}

export function listenedReleaseIdsQueryOptions(userId: string) {
  return queryOptions({
    queryKey: queryKeys.listenedReleaseIds(userId),
    queryFn: () => getListenedReleaseIds(userId),
    meta: { errorMessage: messages.load.listenedReleases },
  })
}

const NONE: ReadonlySet<number> = new Set()

/** The ids of the releases the user has listened to; empty until loaded (or when loading failed). */
export function useListenedReleaseIds(userId: string): ReadonlySet<number> {
  return useQuery(listenedReleaseIdsQueryOptions(userId)).data ?? NONE
}
