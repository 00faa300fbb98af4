/**
 * TanStack Query defaults for the app. Load errors are reported once per failed fetch, by the
 * query cache, from the query's `meta.errorMessage`: a component effect would report them
 * once per mounted observer instead.
 */
import { QueryCache, QueryClient, type DefaultOptions, type UseMutationOptions } from '@tanstack/react-query'
import { RequestError } from './errors'

declare module '@tanstack/react-query' {
  interface Register {
    queryMeta: {
      /** The toast shown when the query fails (SPEC §8 "Loads"). */
      errorMessage?: string | ((error: Error) => string)
    }
  }
}

/**
 * What a form passes to its feature's mutation hook (useLogin({ onSuccess, onError })): every
 * option but the mutation function, which the hook owns. Callbacks given here run even when the
 * form has unmounted by the time the call ends (a sign-in redirects), unlike those given to
 * mutate().
 */
export type MutationConfig<TVariables, TData = void> = Omit<UseMutationOptions<TData, Error, TVariables>, 'mutationFn'>

/** Lists are fresh for this long: navigating back to a page within it shows it without a request. */
export const STALE_TIME_MS = 30_000

/** 4xx answers will not change on a retry; network failures and 5xx (e.g. a restarting database) may. */
export function shouldRetry(failureCount: number, error: Error): boolean {
  if (error instanceof RequestError && error.status >= 400 && error.status < 500) return false
  return failureCount < 1
}

let reportLoadError: (message: string) => void = () => {}

/**
 * Where the app's query client reports load errors; the query provider points it at the toasts
 * once they are mounted. (A failure before that is not lost to the user: the page that mounts
 * refetches the failed query and reports that.)
 */
export function setLoadErrorReporter(report: (message: string) => void): void {
  reportLoadError = report
}

let appClient: QueryClient | undefined

/** The app's one query client, made before React renders so that a route's data can be prefetched. */
export function appQueryClient(): QueryClient {
  appClient ??= createQueryClient((message) => reportLoadError(message))
  return appClient
}

export function createQueryClient(reportError: (message: string) => void, overrides: DefaultOptions = {}): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query) => {
        const message = query.meta?.errorMessage
        if (message) reportError(typeof message === 'function' ? message(error) : message)
      },
    }),
    defaultOptions: {
      queries: {
        staleTime: STALE_TIME_MS,
        retry: shouldRetry,
        // Refetching on focus would reshuffle Explore and reload every page of the feed while
        // the user reads it; mutations and remounts keep the lists current instead.
        refetchOnWindowFocus: false,
        ...overrides.queries,
      },
      mutations: { retry: false, ...overrides.mutations },
    },
  })
}
