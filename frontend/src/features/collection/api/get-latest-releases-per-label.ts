import { useQuery } from '@tanstack/react-query'
import { COLLECTION_RELEASES_PER_LABEL } from '@/config/constants'
import { listOrEmpty } from '@/lib/errors'
import { queryKeys } from '@/lib/query-keys'
import { rpc } from '@/lib/supabase'
import type { Release } from '@/types/api'

/** The 5 latest releases of each label, grouped by label id (labels without releases map to []). */
export async function getLatestReleasesPerLabel(labelIds: number[]): Promise<Map<number, Release[]>> {
  const grouped = new Map<number, Release[]>(labelIds.map((id) => [id, []]))
  if (labelIds.length === 0) return grouped
  const rows = await listOrEmpty(
    rpc('get_latest_releases_per_label', { p_label_ids: labelIds, p_limit: COLLECTION_RELEASES_PER_LABEL }),
    'get_latest_releases_per_label',
  )
  for (const row of rows) {
    const release = { ...row, id: Number(row.id), label_id: Number(row.label_id), genres: row.genres ?? [] }
    const list = grouped.get(release.label_id)
    if (list && list.length < COLLECTION_RELEASES_PER_LABEL) list.push(release)
  }
  return grouped
}

/**
 * The latest releases of the labels on the shown page. The procedure's own failure (4xx) leaves
 * each label with no releases (SPEC §8); a network or server failure is an error, which the page
 * shows with Try Again instead of claiming the labels have no releases.
 */
export function useLatestReleasesPerLabel(labelIds: readonly number[]) {
  return useQuery({
    queryKey: queryKeys.collectionReleases(labelIds),
    queryFn: () => getLatestReleasesPerLabel([...labelIds]),
    enabled: labelIds.length > 0,
  })
}
