import type { CollectionLabel } from '@/types/api'

/** Labels whose name or URL contains `query`, ignoring case; all labels for a blank query. */
export function filterLabels(labels: readonly CollectionLabel[], query: string): CollectionLabel[] {
  const needle = query.trim().toLowerCase()
  if (needle === '') return [...labels]
  return labels.filter((label) => (label.label_name ?? '').toLowerCase().includes(needle) || (label.label_url ?? '').toLowerCase().includes(needle))
}
