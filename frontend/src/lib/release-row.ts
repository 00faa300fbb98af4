import type { Json } from '@/types/database'
import type { Release } from '@/types/api'

/** What the release procedures return (the label arrives as JSON). */
export interface ReleaseRowFromApi extends Omit<Release, 'labels'> {
  labels?: Json
}

function toLabelRef(value: Json | undefined): Release['labels'] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null
  const { label_name, label_url } = value
  return typeof label_name === 'string' && typeof label_url === 'string' ? { label_name, label_url } : null
}

/** Maps a release row of any procedure to the app's Release: numeric ids, a genre list, a typed label. */
export function toRelease(row: ReleaseRowFromApi): Release {
  return {
    ...row,
    id: Number(row.id),
    label_id: Number(row.label_id),
    genres: row.genres ?? [],
    labels: toLabelRef(row.labels),
  }
}
