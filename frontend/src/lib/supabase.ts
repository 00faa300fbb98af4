/**
 * The only module that talks to supabase-js. Everything else calls these functions, which
 * return plain values and a normalised ApiError instead of library types.
 */
import { createClient, type AuthError, type Session, type SupabaseClient, type User } from '@supabase/supabase-js'
import { getEnv } from '@/config/env'
// Imported for its side effect first: it reads the auth link in the address before supabase-js clears it.
import './auth-link'
import type { Database } from '@/types/database'

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

export type AuthEvent = 'INITIAL_SESSION' | 'SIGNED_IN' | 'SIGNED_OUT' | 'TOKEN_REFRESHED' | 'USER_UPDATED' | 'PASSWORD_RECOVERY' | 'OTHER'

let client: SupabaseClient<Database> | undefined

function supabase(): SupabaseClient<Database> {
  if (!client) {
    const env = getEnv()
    client = createClient<Database>(env.supabaseUrl, env.anonKey, {
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
  const known: AuthEvent[] = ['INITIAL_SESSION', 'SIGNED_IN', 'SIGNED_OUT', 'TOKEN_REFRESHED', 'USER_UPDATED', 'PASSWORD_RECOVERY']
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

export async function signUp(email: string, password: string, metadata: Record<string, string>, emailRedirectTo: string): Promise<AuthOutcome> {
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

type PublicSchema = Database['public']
export type TableName = keyof PublicSchema['Tables']
export type Row<T extends TableName> = PublicSchema['Tables'][T]['Row']
export type InsertRow<T extends TableName> = PublicSchema['Tables'][T]['Insert']
export type ColumnOf<T extends TableName> = keyof Row<T> & string
export type FunctionName = keyof PublicSchema['Functions']
export type FunctionArgs<F extends FunctionName> = PublicSchema['Functions'][F]['Args']
export type FunctionReturns<F extends FunctionName> = PublicSchema['Functions'][F]['Returns']

/**
 * The same client without the schema's types. The wrappers below are typed against Database
 * at their signatures; inside them, postgrest-js's conditional types cannot resolve a table
 * or procedure that is still a type parameter, so the calls go through this view.
 */
function untyped(): SupabaseClient {
  return supabase() as unknown as SupabaseClient
}

/** Calls a stored procedure (POST /rest/v1/rpc/<fn>). */
export async function rpc<F extends FunctionName>(fn: F, args: FunctionArgs<F>): Promise<ApiResult<FunctionReturns<F>>> {
  return result<FunctionReturns<F>>(await untyped().rpc(fn, args))
}

/** SELECT one column FROM table WHERE each filter is equal, optionally limited. */
export async function selectEq<T extends TableName, C extends ColumnOf<T>>(
  table: T,
  column: C,
  filters: Partial<Row<T>>,
  limit?: number,
): Promise<ApiResult<Pick<Row<T>, C>[]>> {
  let query = untyped().from(table).select(column)
  for (const [name, value] of Object.entries(filters)) query = query.eq(name, value)
  if (limit !== undefined) query = query.limit(limit)
  return result<Pick<Row<T>, C>[]>(await query)
}

/** SELECT some columns FROM table WHERE each filter is equal, optionally limited. */
export async function selectColumnsEq<T extends TableName, C extends ColumnOf<T>>(
  table: T,
  columns: readonly C[],
  filters: Partial<Row<T>>,
  limit?: number,
): Promise<ApiResult<Pick<Row<T>, C>[]>> {
  let query = untyped().from(table).select(columns.join(','))
  for (const [name, value] of Object.entries(filters)) query = query.eq(name, value)
  if (limit !== undefined) query = query.limit(limit)
  return result<Pick<Row<T>, C>[]>(await query)
}

/** INSERT one row (no representation returned). */
export async function insertRow<T extends TableName>(table: T, row: InsertRow<T>): Promise<ApiResult<null>> {
  return result<null>(await untyped().from(table).insert(row))
}

/** INSERT rows and return one column of the inserted rows. */
export async function insertRowsReturning<T extends TableName, C extends ColumnOf<T>>(
  table: T,
  rows: InsertRow<T>[],
  column: C,
): Promise<ApiResult<Pick<Row<T>, C>[]>> {
  return result<Pick<Row<T>, C>[]>(await untyped().from(table).insert(rows).select(column))
}

/** UPSERT one row, merging on the given conflict columns. */
export async function upsertRow<T extends TableName>(table: T, row: InsertRow<T>, onConflict: ColumnOf<T>[]): Promise<ApiResult<null>> {
  return result<null>(
    await untyped()
      .from(table)
      .upsert(row, { onConflict: onConflict.join(',') }),
  )
}

/** DELETE FROM table WHERE each filter is equal. */
export async function deleteEq<T extends TableName>(table: T, filters: Partial<Row<T>>): Promise<ApiResult<null>> {
  let query = untyped().from(table).delete()
  for (const [name, value] of Object.entries(filters)) query = query.eq(name, value)
  return result<null>(await query)
}
