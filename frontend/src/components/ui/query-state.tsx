import type { ReactNode } from 'react'
import { LoadError } from './load-error'

/**
 * What QueryState needs from a load: a TanStack Query result has it all, so a page passes its
 * useQuery/useInfiniteQuery result as it is. A page whose content depends on more than one
 * query, or that shows some failures elsewhere (a failed next page below the list), passes an
 * object built from them; `error` is then only the failure that replaces the content.
 */
export interface LoadState<T> {
  data: T | undefined
  error: Error | null
  isPending: boolean
  isFetching: boolean
  refetch: () => unknown
}

export interface QueryStateProps<T> {
  query: LoadState<T>
  /** Placeholders shaped like the content, while nothing is loaded yet. */
  loading: ReactNode
  /** Said in place of the content when the load failed, with Try Again. */
  errorMessage: string | ((error: Error) => string)
  /**
   * An error that is an answer rather than a failure (the admin procedures refusing a member):
   * what to show instead of the load error, or null for an ordinary failure.
   */
  explain?: (error: Error) => ReactNode | null
  /** Whether the loaded data counts as nothing; by default an empty array does. */
  isEmpty?: (data: T) => boolean
  /** Shown instead of children when the data is empty (an EmptyState with the spec's words). */
  empty?: ReactNode
  /** The failure as one line with its retry, for a load inside a card rather than a page's list. */
  compact?: boolean
  children: (data: T) => ReactNode
}

const emptyArray = (data: unknown) => Array.isArray(data) && data.length === 0

/**
 * The one way a page shows a load: failed, loading, empty, or the content, in that order. A
 * failure wins over data still held from an earlier load, since that data may be what failed
 * to refresh (a retried tab); it replaces the content with the message and Try Again, and
 * nothing guessed from it (no count, no empty state) is shown beside it. Used by the member
 * pages and the admin console alike.
 */
export function QueryState<T>({ query, loading, errorMessage, explain, isEmpty = emptyArray, empty, compact, children }: QueryStateProps<T>) {
  if (query.error) {
    const explained = explain?.(query.error)
    if (explained) return <>{explained}</>
    const message = typeof errorMessage === 'function' ? errorMessage(query.error) : errorMessage
    return <LoadError message={message} onRetry={() => void query.refetch()} retrying={query.isFetching} compact={compact} />
  }
  if (query.isPending || query.data === undefined) return <>{loading}</>
  if (empty !== undefined && isEmpty(query.data)) return <>{empty}</>
  return <>{children(query.data)}</>
}
