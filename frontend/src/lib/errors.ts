/**
 * The app's two error types. RequestError is the only thing lib/supabase.ts throws: a call
 * that failed, with the HTTP status (0 when the request never reached the server) and the
 * server's code. UserError is what a feature's api/ function throws when it already knows the
 * words the member should read (a broken rule, the server's own message); a form shows its
 * message, and its fallback for anything else (messageFor).
 */

export class RequestError extends Error {
  /** HTTP status; 0 when the request never reached the server (network failure). */
  readonly status: number
  /** The server's error code (GoTrue's error_code, PostgREST's code), when it sent one. */
  readonly code?: string

  constructor(message: string, status: number, code?: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'RequestError'
    this.status = status
    this.code = code || undefined
  }
}

/** A failure whose message is written for the member. */
export class UserError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UserError'
  }
}

/** The text a form shows for a failed action: a UserError's own words, else the fallback. */
export function messageFor(error: unknown, fallback: string): string {
  return error instanceof UserError && error.message ? error.message : fallback
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
export async function orFallback<T>(call: Promise<T | null>, fallback: T, what: string): Promise<T> {
  try {
    return (await call) ?? fallback
  } catch (error) {
    if (!(error instanceof RequestError) || error.status === 0 || error.status >= 500) throw error
    console.warn(`${what} failed:`, error.message)
    return fallback
  }
}

export async function listOrEmpty<T>(call: Promise<T[] | null>, what: string): Promise<T[]> {
  const rows = await orFallback<T[]>(call, [], what)
  return Array.isArray(rows) ? rows : []
}
