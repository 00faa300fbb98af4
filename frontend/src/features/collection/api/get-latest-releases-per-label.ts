import { COLLECTION_RELEASES_PER_LABEL } from '@/config/constants'
import { listOrEmpty } from '@/lib/errors'
import { rpc } from '@/lib/supabase'
import type { Release } from '@/types/api'

/** The 5 latest releases of each label, grouped by label id (labels without releases map to []). */
export async function getLatestReleasesPerLabel(labelIds: number[]): Promise<Map<number, Release[]>> {
  const grouped = new Map<number, Release[]>(labelIds.map((id) => [id, []]))
  if (labelIds.length === 0) return grouped
  const result = await rpc('get_latest_releases_per_label', {
    p_label_ids: labelIds,
    p_limit: COLLECTION_RELEASES_PER_LABEL,
  })
  for (const row of listOrEmpty(result, 'get_latest_releases_per_label')) {
    const release = { ...row, id: Number(row.id), label_id: Number(row.label_id), genres: row.genres ?? [] }
    const list = grouped.get(release.label_id)
    if (list && list.length < COLLECTION_RELEASES_PER_LABEL) list.push(release)
  }
  return grouped
}
