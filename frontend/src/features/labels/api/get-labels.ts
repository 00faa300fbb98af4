import { infiniteQueryOptions, useInfiniteQuery, type InfiniteData, type QueryClient } from '@tanstack/react-query'
import { LABELS_PAGE_SIZE } from '@/config/constants'
import { listOrEmpty, orFallback } from '@/lib/errors'
import { nextPageFor } from '@/lib/pagination'
import { queryKeys } from '@/lib/query-keys'
import { rpc } from '@/lib/supabase'
import type { Label } from '@/types/api'

export type LabelsTab = 'discover' | 'following'

export interface LabelFilters {
  tag: string | null
  search: string
}

function filterArgs(userId: string, filters: LabelFilters) {
  const search = filters.search.trim()
  // Filters not in use are left out: their default (NULL) means "no filter".
  return {
    user_id_param: userId,
    tag_filter: filters.tag ?? undefined,
    search_term: search === '' ? undefined : search,
  }
}

/** One page (1-based, 20 labels) of followed or not-yet-followed labels. */
export async function getLabelsPage(tab: LabelsTab, userId: string, page: number, filters: LabelFilters): Promise<Label[]> {
  const fn = tab === 'following' ? 'get_followed_labels' : 'get_unfollowed_labels'
  const rows = await listOrEmpty(rpc(fn, { ...filterArgs(userId, filters), page_number: page, items_per_page: LABELS_PAGE_SIZE }), fn)
  return rows.map((row) => ({ ...row, id: Number(row.id), tags: row.tags ?? [] }))
}

/** How many labels the tab holds with these filters; 0 when the procedure fails. */
export async function countLabels(tab: LabelsTab, userId: string, filters: LabelFilters): Promise<number> {
  const fn = tab === 'following' ? 'count_followed_labels' : 'count_unfollowed_labels'
  const count = Number(await orFallback<number>(rpc(fn, filterArgs(userId, filters)), 0, fn))
  return Number.isFinite(count) ? count : 0
}

/** A fetched page; the first page of a list also carries the list's total. */
export interface LabelsPage {
  rows: Label[]
  total: number | null
}

interface LabelsPageParam {
  page: number
  withTotal: boolean
}

const uniqueIds = (pages: readonly LabelsPage[]) => new Set(pages.flatMap((page) => page.rows.map((label) => label.id)))

/**
 * The next page to fetch, or undefined when the list is complete: the last page added no new
 * label, or every counted label is shown. Labels removed after a follow toggle also left the
 * server's list, so the next page is computed from what is shown (see nextPageFor).
 */
export function nextLabelsPage(pages: readonly LabelsPage[]): LabelsPageParam | undefined {
  const loaded = uniqueIds(pages).size
  const added = loaded - uniqueIds(pages.slice(0, -1)).size
  const total = pages[0]?.total ?? loaded
  if (added <= 0 || loaded >= total) return undefined
  return { page: nextPageFor(loaded, LABELS_PAGE_SIZE), withTotal: false }
}

export function labelsQueryOptions(userId: string, tab: LabelsTab, filters: LabelFilters) {
  return infiniteQueryOptions({
    queryKey: queryKeys.labels(userId, tab, filters.tag, filters.search),
    queryFn: async ({ pageParam }): Promise<LabelsPage> => {
      const [rows, total] = await Promise.all([
        getLabelsPage(tab, userId, pageParam.page, filters),
        pageParam.withTotal ? countLabels(tab, userId, filters) : null,
      ])
      return { rows, total }
    },
    initialPageParam: { page: 1, withTotal: true } as LabelsPageParam,
    getNextPageParam: (_last, pages) => nextLabelsPage(pages),
    // A tab switch or filter change loads the list afresh (SPEC §4): a list not shown is dropped.
    gcTime: 0,
  })
}

export function useLabels(userId: string, tab: LabelsTab, filters: LabelFilters) {
  return useInfiniteQuery(labelsQueryOptions(userId, tab, filters))
}

/**
 * Drops a label from every cached list of a tab after it left that tab (followed in
 * Discover, unfollowed in Following), lowering the count by one where it was shown.
 */
export function removeLabelFromTab(queryClient: QueryClient, userId: string, tab: LabelsTab, labelId: number) {
  queryClient.setQueriesData<InfiniteData<LabelsPage, LabelsPageParam>>({ queryKey: queryKeys.labelsTab(userId, tab) }, (data) => {
    if (!data || !data.pages.some((page) => page.rows.some((label) => label.id === labelId))) return data
    const pages = data.pages.map((page, index) => ({
      rows: page.rows.filter((label) => label.id !== labelId),
      total: index === 0 && page.total !== null ? Math.max(0, page.total - 1) : page.total,
    }))
    return { ...data, pages }
  })
}
