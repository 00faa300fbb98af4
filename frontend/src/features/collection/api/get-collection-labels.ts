import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useCallback } from 'react'
import { COLLECTION_FALLBACK_PAGE_SIZE, type CollectionFilterType } from '@/config/constants'
import { listOrEmpty, orFallback, RequestError } from '@/lib/errors'
import { queryKeys } from '@/lib/query-keys'
import { seededShuffle } from '@/lib/seeded-shuffle'
import { rpc } from '@/lib/supabase'
import type { CollectionLabel } from '@/types/api'

function normalize(rows: CollectionLabel[]): CollectionLabel[] {
  return rows.map((row) => ({ ...row, id: Number(row.id), tags: row.tags ?? [], is_fully_checked: Boolean(row.is_fully_checked) }))
}

/**
 * All followed labels for a listen-status filter. When the one-call procedure fails, falls
 * back to the paged pair (count + page 1 of 500). A failed fallback gives an empty list; a
 * request that never reached the server throws.
 */
export async function getCollectionLabels(userId: string, filterType: CollectionFilterType): Promise<CollectionLabel[]> {
  try {
    return normalize((await rpc('get_all_filtered_labels_by_listen_status', { user_id_param: userId, filter_type: filterType })) ?? [])
  } catch (error) {
    if (!(error instanceof RequestError) || error.status === 0 || error.status >= 500) throw error
  }

  const [rows, count] = await Promise.all([
    listOrEmpty(
      rpc('get_filtered_labels_by_listen_status', {
        user_id_param: userId,
        filter_type: filterType,
        page_number: 1,
        items_per_page: COLLECTION_FALLBACK_PAGE_SIZE,
        search_term: '',
      }),
      'get_filtered_labels_by_listen_status',
    ),
    orFallback<number | null>(
      rpc('count_filtered_labels_by_listen_status', { user_id_param: userId, filter_type: filterType, search_term: '' }),
      null,
      'count_filtered_labels_by_listen_status',
    ),
  ])
  if (count !== null && Number(count) > rows.length) console.warn(`collection shows ${rows.length} of ${count} labels`)
  return normalize(rows)
}

/**
 * The followed labels for a tab, in the per-session shuffled order. Each tab switch loads
 * the tab afresh (SPEC §4), so a tab's result is dropped once it is not shown (gcTime 0).
 * Each load also refreshes the listened-release ids, which the strips' buttons show, as the
 * page did before it used the query cache: listens may have changed elsewhere.
 */
export function useCollectionLabels(userId: string, filterType: CollectionFilterType, seed: number) {
  const select = useCallback((rows: CollectionLabel[]) => seededShuffle(rows, seed), [seed])
  return useQuery({
    queryKey: queryKeys.collectionLabels(userId, filterType),
    queryFn: async ({ client }) => {
      const rows = await getCollectionLabels(userId, filterType)
      void client.invalidateQueries({ queryKey: queryKeys.listenedReleaseIds(userId) })
      return rows
    },
    gcTime: 0,
    select,
  })
}

/**
 * The server's "all releases listened" flag of every followed label, asked again whenever
 * `listenedKey` (the listened state of the strips it concerns) changes, so a card whose strip
 * does not hold all its releases learns from the server whether the last one was just marked.
 */
export function useFullyListenedFlags(userId: string, listenedKey: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.collectionFlags(userId, listenedKey),
    queryFn: async () => new Map((await getCollectionLabels(userId, 'all')).map((label) => [label.id, label.is_fully_checked])),
    enabled,
    placeholderData: keepPreviousData,
    gcTime: 0,
  })
}
