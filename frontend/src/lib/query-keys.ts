/**
 * The one home of the app's query and mutation keys: every key the query cache holds is built
 * here, and nowhere else (docs/web-app.md). One shared module because a mutation in one feature
 * changes what another shows (following a label changes the feed and the collection; marking a
 * release listened changes every release list; hiding a label in the admin console changes
 * every member list), and features do not import each other. A key's first element is its
 * root; the *Roots lists below name the roots a kind of change makes stale.
 */
import type { CollectionFilterType } from '@/config/constants'

export const queryKeys = {
  feed: (userId: string) => ['feed', userId] as const,
  followedLabelIds: (userId: string) => ['followed-label-ids', userId] as const,
  labels: (userId: string, tab: string, tag: string | null, search: string) => ['labels', userId, tab, { tag, search }] as const,
  labelsTab: (userId: string, tab: string) => ['labels', userId, tab] as const,
  explore: (userId: string, genres: readonly string[], timeRangeDays: number, excludeIds: readonly number[]) =>
    ['explore', userId, { genres, timeRangeDays }, excludeIds] as const,
  collectionLabels: (userId: string, filterType: CollectionFilterType) => ['collection-labels', userId, filterType] as const,
  collectionReleases: (labelIds: readonly number[]) => ['collection-releases', labelIds] as const,
  listenedReleaseIds: (userId: string) => ['listened-release-ids', userId] as const,
  collectionFlags: (userId: string, listenedKey: string) => ['collection-flags', userId, listenedKey] as const,
  labelTags: (userId: string, tab: string) => ['label-tags', userId, tab] as const,
  exploreGenres: (timeRangeDays: number) => ['explore-genres', timeRangeDays] as const,
  /** The signed, rendered URL of the member's avatar (null: none uploaded). */
  avatar: (userId: string) => ['avatar', userId] as const,
  totpFactors: (userId: string) => ['totp-factors', userId] as const,
  /** Whether the session still owes its second factor's code (aal1, aal2 next). */
  secondFactorDue: (userId: string) => ['second-factor-due', userId] as const,
  /** Every list of the admin console; its actions reload them all. */
  admin: ['admin'] as const,
  adminSubmissions: (status: string | null) => ['admin', 'submissions', status] as const,
  adminCrawls: ['admin', 'crawls'] as const,
  adminLabels: (search: string) => ['admin', 'labels', search] as const,
  adminMembers: (search: string) => ['admin', 'members', search] as const,
  adminInvites: ['admin', 'invites'] as const,
  adminStorage: ['admin', 'storage'] as const,
}

/**
 * Mutation keys: the optimistic toggles find their pending saves in the mutation cache by
 * these (an item still saving ignores another toggle).
 */
export const mutationKeys = {
  follow: (userId: string) => ['follow', userId] as const,
  listen: (userId: string) => ['listen', userId] as const,
}

/** Roots of the queries whose results depend on which labels the user follows. */
export const followDependentRoots = ['feed', 'followed-label-ids', 'labels', 'collection-labels'] as const

/** Roots of the queries holding release lists with a `listened` flag (arrays or infinite pages). */
export const releaseListRoots = ['feed', 'explore'] as const

/** Roots of the queries whose results depend on which releases the user listened to. */
export const listenDependentRoots = ['collection-labels'] as const

export function hasRoot(roots: readonly string[]) {
  return (query: { queryKey: readonly unknown[] }) => roots.includes(query.queryKey[0] as string)
}
