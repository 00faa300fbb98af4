import { LABELS_PAGE_SIZE } from '@/config/constants'
import { listOrEmpty, orFallback } from '@/lib/errors'
import { rpc } from '@/lib/supabase'
import type { Label } from '@/types/api'

export type LabelsTab = 'discover' | 'following'

export interface LabelFilters {
  tag: string | null
  search: string
}

function filterArgs(userId: string, filters: LabelFilters) {
  const search = filters.search.trim()
  return {
    user_id_param: userId,
    letter_filter: null,
    tag_filter: filters.tag,
    search_term: search === '' ? null : search,
  }
}

/** One page (1-based, 20 labels) of followed or not-yet-followed labels. */
export async function getLabelsPage(tab: LabelsTab, userId: string, page: number, filters: LabelFilters): Promise<Label[]> {
  const fn = tab === 'following' ? 'get_followed_labels' : 'get_unfollowed_labels'
  const result = await rpc(fn, { ...filterArgs(userId, filters), page_number: page, items_per_page: LABELS_PAGE_SIZE })
  return listOrEmpty(result, fn).map((row) => ({ ...row, id: Number(row.id), tags: row.tags ?? [] }))
}

/** How many labels the tab holds with these filters; 0 when the procedure fails. */
export async function countLabels(tab: LabelsTab, userId: string, filters: LabelFilters): Promise<number> {
  const fn = tab === 'following' ? 'count_followed_labels' : 'count_unfollowed_labels'
  const count = Number(orFallback<number>(await rpc(fn, filterArgs(userId, filters)), 0, fn))
  return Number.isFinite(count) ? count : 0
}
