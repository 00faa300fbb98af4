/** Business constants and limits from SPEC.md §9. */
export const TOAST_SUCCESS_MS = 1500
export const TOAST_ERROR_MS = 3000
export const TOAST_SUBMISSION_MS = 3000
/** Duration of toasts the spec gives no value for (auth outcomes). */
export const TOAST_DEFAULT_MS = 3000

export const TOGGLE_THROTTLE_MS = 300

export const COLLECTION_PAGE_SIZE = 5
export const COLLECTION_RELEASES_PER_LABEL = 5
export const COLLECTION_FALLBACK_PAGE_SIZE = 500
export const COLLECTION_SEARCH_DEBOUNCE_MS = 300
export const COLLECTION_FILTER_TYPES = ['all', 'checked', 'unchecked'] as const
export type CollectionFilterType = (typeof COLLECTION_FILTER_TYPES)[number]

export const LABELS_PAGE_SIZE = 20
export const LABELS_SEARCH_DEBOUNCE_MS = 600

export const NEW_RELEASES_PAGE_SIZE = 9
export const EXPLORE_COUNT = 9

export const EXPLORE_TIME_RANGES = [
  { label: 'Today', days: 0 },
  { label: '1 Week', days: 6 },
  { label: '1 Month', days: 30 },
  { label: '3 Months', days: 90 },
  { label: '6 Months', days: 180 },
] as const
export const EXPLORE_DEFAULT_TIME_RANGE_DAYS = 90

export const MIN_PASSWORD_LENGTH = 6
export const SKELETON_COUNT = 5

/** Two-factor authentication: the code length authenticator apps show, and how the factor is named. */
export const TOTP_CODE_LENGTH = 6
export const TOTP_ISSUER = 'Labelbase'
export const TOTP_FRIENDLY_NAME = 'Authenticator app'

/** The music-sales site whose label pages users submit. */
export const LABEL_SITE_DOMAIN = 'bandcamp.com'

/** sessionStorage key holding the seed of the collection's shuffled label order. */
export const COLLECTION_SEED_STORAGE_KEY = 'labelbase:collection-seed'

/** Avatars (bucket `avatars`, one object per member at `<uid>/avatar`): the limits the bucket enforces too. */
export const AVATAR_BUCKET = 'avatars'
export const AVATAR_MAX_BYTES = 2 * 1024 * 1024
export const AVATAR_MIME_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const
/** Pixel size the render endpoint crops avatars to (square, cover); shown at 32 px in the header, 96 on the page. */
export const AVATAR_RENDER_SIZE = 192
/** Lifetime of an avatar's signed URL; the query refreshes it well before. */
export const AVATAR_URL_TTL_SECONDS = 3600

/** Private broadcast topics the database sends on (sql/migrations/20261127205500_app_live.up.sql). */
export const LIVE_TOPICS = {
  listens: (userId: string) => `listens:${userId}`,
  releases: 'releases',
  admin: 'admin',
} as const

/** The most rows the admin console's Labels and Members tabs ask for (admin_labels, admin_members: p_limit). */
export const ADMIN_LIST_LIMIT = 100
