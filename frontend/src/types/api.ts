/** Row shapes returned by the backend's tables and procedures (SPEC §3, §7). */

export interface Label {
  id: number
  label_name: string
  label_url: string
  tags: string[]
}

export interface CollectionLabel extends Label {
  is_fully_checked: boolean
}

export interface Release {
  id: number
  label_id: number
  title: string
  artist: string
  release_url: string
  release_date: string | null
  image_url: string | null
  genres: string[]
  rich?: boolean
  /** Present on feed and explore rows; derived from user_listened_releases elsewhere. */
  listened?: boolean
  labels?: { label_name: string; label_url: string } | null
}
