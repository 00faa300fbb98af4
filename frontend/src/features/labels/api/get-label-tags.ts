import { useQuery } from '@tanstack/react-query'
import { orFallback } from '@/lib/errors'
import { queryKeys } from '@/lib/query-keys'
import { rpc } from '@/lib/supabase'
import type { LabelsTab } from './get-labels'

export interface TagCount {
  tag: string
  labels: number
}

/** Every tag in use in a tab (followed labels, or the others), most used first. */
export async function getLabelTags(tab: LabelsTab): Promise<TagCount[]> {
  const rows = await orFallback(rpc('get_label_tags', { followed: tab === 'following' }), [], 'get_label_tags')
  return (Array.isArray(rows) ? rows : []).map((row) => ({ tag: row.tag, labels: Number(row.labels) }))
}

/**
 * The tab's tags, independent of the filters applied to its list, so the row of tag chips
 * stays as it is while a tag narrows the list. Follows change it slowly: it is kept for the
 * visit (a follow toggle marks the labels lists stale, not this).
 */
export function useLabelTags(userId: string, tab: LabelsTab) {
  return useQuery({
    queryKey: queryKeys.labelTags(userId, tab),
    queryFn: () => getLabelTags(tab),
    staleTime: 5 * 60_000,
  })
}
