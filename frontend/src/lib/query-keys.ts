/**
 * Query keys for every server list the app caches. They live in one shared module because a
 * mutation in one feature changes what another shows (following a label changes the feed and
 * the collection; marking a release listened changes every release list), and features do
 * not import each other.
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
  totpFactors: (userId: string) => ['totp-factors', userId] as const,
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
