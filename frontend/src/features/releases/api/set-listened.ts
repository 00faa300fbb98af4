import type { InfiniteData, QueryClient } from '@tanstack/react-query'
import { hasRoot, listenDependentRoots, queryKeys, releaseListRoots } from '@/lib/query-keys'
import { deleteEq, upsertRow } from '@/lib/supabase'
import type { Release } from '@/types/api'

/** Marks (upsert) or unmarks (delete) a release as listened. Throws on failure. */
export async function setListened(userId: string, releaseId: number, listened: boolean): Promise<void> {
  if (listened) {
    await upsertRow('user_listened_releases', { user_id: userId, release_id: releaseId }, ['user_id', 'release_id'])
  } else {
    await deleteEq('user_listened_releases', { user_id: userId, release_id: releaseId })
  }
}

type ReleaseList = Release[] | InfiniteData<Release[]>

function patchList(data: ReleaseList | undefined, releaseId: number, listened: boolean): ReleaseList | undefined {
  const patch = (rows: Release[]) =>
    rows.some((release) => release.id === releaseId) ? rows.map((release) => (release.id === releaseId ? { ...release, listened } : release)) : rows
  if (Array.isArray(data)) return patch(data)
  if (data && Array.isArray(data.pages)) return { ...data, pages: data.pages.map(patch) }
  return data
}

/**
 * Writes a saved listen state into every cached release list (feed pages, Explore) and the
 * listened-ids set, so they show what the server now holds without reloading (a reload would
 * reshuffle Explore). Lists derived from listens (the collection's "all listened" status) are
 * marked stale and reload when next shown.
 */
export function writeListened(queryClient: QueryClient, userId: string, releaseId: number, listened: boolean) {
  queryClient.setQueriesData<ReleaseList>({ predicate: hasRoot(releaseListRoots) }, (data) => patchList(data, releaseId, listened))
  queryClient.setQueryData<ReadonlySet<number>>(queryKeys.listenedReleaseIds(userId), (ids) => {
    if (!ids || ids.has(releaseId) === listened) return ids
    const next = new Set(ids)
    if (listened) next.add(releaseId)
    else next.delete(releaseId)
    return next
  })
  return queryClient.invalidateQueries({ predicate: hasRoot(listenDependentRoots), refetchType: 'none' })
}
