import type { ApiError, ApiResult } from './supabase'

/** An ApiError raised as an exception, for callers that use try/catch. */
export class RequestError extends Error {
  readonly status: number
  readonly code?: string

  constructor(error: ApiError) {
    super(error.message)
    this.name = 'RequestError'
    this.status = error.status
    this.code = error.code
  }
}

/** Returns the data or throws the error as a RequestError. */
export function unwrap<T>(result: ApiResult<T>): T {
  if (result.error) throw new RequestError(result.error)
  return result.data
}

/** True when a request never reached the server. */
export function isNetworkError(error: unknown): boolean {
  if (error instanceof RequestError) return error.status === 0
  return error instanceof TypeError
}

/** True when the server refused a request because of rate limiting. */
export function isRateLimitError(error: unknown): boolean {
  if (!(error instanceof RequestError)) return false
  return error.status === 429 || /rate.?limit|too many requests/i.test(`${error.code ?? ''} ${error.message}`)
}

export type ErrorKind = 'rate-limit' | 'network' | 'other'

export function classifyError(error: unknown): ErrorKind {
  if (isRateLimitError(error)) return 'rate-limit'
  if (isNetworkError(error)) return 'network'
  return 'other'
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * List loads turn a procedure's own failure (a 4xx: the procedure refused its arguments)
 * into an empty result (SPEC §8). A request that never reached the server, or a server
 * failure (5xx), is raised instead: an empty list would claim "nothing there" when nothing is
 * known, so the page shows its load error with a retry.
 */
export function orFallback<T>(result: ApiResult<T | null>, fallback: T, what: string): T {
  if (!result.error) return result.data ?? fallback
  if (result.error.status === 0 || result.error.status >= 500) throw new RequestError(result.error)
  console.warn(`${what} failed:`, result.error.message)
  return fallback
}

export function listOrEmpty<T>(result: ApiResult<T[] | null>, what: string): T[] {
  const rows = orFallback<T[]>(result, [], what)
  return Array.isArray(rows) ? rows : []
}
