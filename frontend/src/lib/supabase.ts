/**
 * The only module that talks to supabase-js. Everything else calls these functions, which
 * return plain values and a normalised ApiError instead of library types.
 */
import { createClient, type AuthError, type Session, type SupabaseClient, type User } from '@supabase/supabase-js'
import { getEnv } from '@/config/env'

export interface ApiError {
  message: string
  /** HTTP status; 0 when the request never reached the server (network failure). */
  status: number
  code?: string
}

export type ApiResult<T> = { data: T; error: null } | { data: null; error: ApiError }

export interface AuthUser {
  id: string
  email: string
}

export interface AuthSession {
  user: AuthUser
}

export type AuthEvent = 'INITIAL_SESSION' | 'SIGNED_IN' | 'SIGNED_OUT' | 'TOKEN_REFRESHED' | 'USER_UPDATED' | 'OTHER'

let client: SupabaseClient | undefined

function supabase(): SupabaseClient {
  if (!client) {
    const env = getEnv()
    client = createClient(env.supabaseUrl, env.anonKey, {
      auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: true },
    })
  }
  return client
}

function toUser(user: User | null | undefined): AuthUser | null {
  return user ? { id: user.id, email: user.email ?? '' } : null
}

function toSession(session: Session | null | undefined): AuthSession | null {
  const user = toUser(session?.user)
  return user ? { user } : null
}

function fromAuthError(error: AuthError): ApiError {
  return { message: error.message, status: error.status ?? 0, code: error.code }
}

interface PostgrestLike {
  data: unknown
  error: { message: string; code?: string } | null
  status: number
}

function result<T>(response: PostgrestLike): ApiResult<T> {
  if (response.error) {
    return {
      data: null,
      error: { message: response.error.message, status: response.status, code: response.error.code || undefined },
    }
  }
  return { data: response.data as T, error: null }
}

// ---- Auth -------------------------------------------------------------------------------

export async function getSession(): Promise<AuthSession | null> {
  const { data } = await supabase().auth.getSession()
  return toSession(data.session)
}

/** Subscribes to auth events; returns the unsubscribe function. */
export function onAuthStateChange(listener: (event: AuthEvent, session: AuthSession | null) => void): () => void {
  const known: AuthEvent[] = ['INITIAL_SESSION', 'SIGNED_IN', 'SIGNED_OUT', 'TOKEN_REFRESHED', 'USER_UPDATED']
  const { data } = supabase().auth.onAuthStateChange((event, session) => {
    listener(known.includes(event as AuthEvent) ? (event as AuthEvent) : 'OTHER', toSession(session))
  })
  return () => data.subscription.unsubscribe()
}

export interface AuthOutcome {
  user: AuthUser | null
  session: AuthSession | null
  error: ApiError | null
}

export async function signInWithPassword(email: string, password: string): Promise<AuthOutcome> {
  const { data, error } = await supabase().auth.signInWithPassword({ email, password })
  if (error) return { user: null, session: null, error: fromAuthError(error) }
  return { user: toUser(data.user), session: toSession(data.session), error: null }
}

export async function signUp(
  email: string,
  password: string,
  metadata: Record<string, string>,
  emailRedirectTo: string,
): Promise<AuthOutcome> {
  const { data, error } = await supabase().auth.signUp({ email, password, options: { data: metadata, emailRedirectTo } })
  if (error) return { user: null, session: null, error: fromAuthError(error) }
  return { user: toUser(data.user), session: toSession(data.session), error: null }
}

export async function updatePassword(password: string): Promise<ApiError | null> {
  const { error } = await supabase().auth.updateUser({ password })
  return error ? fromAuthError(error) : null
}

/** Asks the server to mail a password-reset link that lands on redirectTo. */
export async function requestPasswordReset(email: string, redirectTo: string): Promise<ApiError | null> {
  const { error } = await supabase().auth.resetPasswordForEmail(email, { redirectTo })
  return error ? fromAuthError(error) : null
}

export async function signOut(): Promise<ApiError | null> {
  const { error } = await supabase().auth.signOut()
  return error ? fromAuthError(error) : null
}

// ---- Data API ---------------------------------------------------------------------------

type Filters = Record<string, string | number | boolean>

/** Calls a stored procedure (POST /rest/v1/rpc/<fn>). */
export async function rpc<T>(fn: string, args: Record<string, unknown>): Promise<ApiResult<T>> {
  return result<T>(await supabase().rpc(fn, args))
}

/** SELECT columns FROM table WHERE each filter is equal, optionally limited. */
export async function selectEq<T>(table: string, columns: string, filters: Filters, limit?: number): Promise<ApiResult<T[]>> {
  let query = supabase().from(table).select(columns)
  for (const [column, value] of Object.entries(filters)) query = query.eq(column, value)
  if (limit !== undefined) query = query.limit(limit)
  return result<T[]>(await query)
}

/** INSERT one row (no representation returned). */
export async function insertRow(table: string, row: Record<string, unknown>): Promise<ApiResult<null>> {
  return result<null>(await supabase().from(table).insert(row))
}

/** INSERT rows and return the given columns of the inserted rows. */
export async function insertRowsReturning<T>(
  table: string,
  rows: Record<string, unknown>[],
  columns: string,
): Promise<ApiResult<T[]>> {
  return result<T[]>(await supabase().from(table).insert(rows).select(columns))
}

/** UPSERT one row, merging on the given conflict columns. */
export async function upsertRow(table: string, row: Record<string, unknown>, onConflict: string): Promise<ApiResult<null>> {
  return result<null>(await supabase().from(table).upsert(row, { onConflict }))
}

/** DELETE FROM table WHERE each filter is equal. */
export async function deleteEq(table: string, filters: Filters): Promise<ApiResult<null>> {
  let query = supabase().from(table).delete()
  for (const [column, value] of Object.entries(filters)) query = query.eq(column, value)
  return result<null>(await query)
}
