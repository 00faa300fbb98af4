/**
 * The only module that talks to supabase-js. Everything else calls these functions, which
 * return plain values and throw one error type, RequestError (lib/errors.ts), instead of
 * handing out the library's { data, error } pairs.
 */
import { createClient, type AuthError, type RealtimeChannel, type Session, type SupabaseClient, type User } from '@supabase/supabase-js'
import { getEnv } from '@/config/env'
// Imported for its side effect first: it reads the auth link in the address before supabase-js clears it.
import './auth-link'
import { RequestError } from './errors'
import type { Database } from '@/types/database'

export interface AuthUser {
  id: string
  email: string
  /** app_metadata.role is "admin" in the session's token: shows the console in the menu. The database still decides (public.is_admin()). */
  isAdmin?: boolean
}

export interface AuthSession {
  user: AuthUser
  /** The account has a verified second factor that this session has not passed yet (aal1, aal2 next). */
  secondFactorPending?: boolean
}

export type AuthEvent =
  'INITIAL_SESSION' | 'SIGNED_IN' | 'SIGNED_OUT' | 'TOKEN_REFRESHED' | 'USER_UPDATED' | 'MFA_CHALLENGE_VERIFIED' | 'PASSWORD_RECOVERY' | 'OTHER'

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
  if (!user) return null
  return user.app_metadata.role === 'admin' ? { id: user.id, email: user.email ?? '', isAdmin: true } : { id: user.id, email: user.email ?? '' }
}

function toSession(session: Session | null | undefined): AuthSession | null {
  const user = toUser(session?.user)
  return user && session ? { user, secondFactorPending: secondFactorPending(session) } : null
}

/**
 * getAuthenticatorAssuranceLevel's rule (aal2 is next once a factor is verified), computed
 * from the session itself: the auth-state listener must not call back into supabase-js
 * (auth-js holds its lock while it notifies), so the token's aal claim is read here.
 */
function secondFactorPending(session: Session): boolean {
  const verified = (session.user.factors ?? []).some((factor) => factor.status === 'verified')
  if (!verified) return false
  try {
    const payload = session.access_token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')
    return (JSON.parse(atob(payload)) as { aal?: string }).aal !== 'aal2'
  } catch {
    return true
  }
}

/** Raises supabase-js's auth error as the app's one error type. */
function authFailure(error: AuthError): RequestError {
  return new RequestError(error.message, error.status ?? 0, error.code, { cause: error })
}

interface PostgrestLike {
  data: unknown
  error: { message: string; code?: string } | null
  status: number
}

/** A REST answer's data, or its error raised as a RequestError (status 0: never reached the server). */
function dataOf<T>(response: PostgrestLike): T {
  if (response.error) throw new RequestError(response.error.message, response.status, response.error.code)
  return response.data as T
}

/**
 * Runs a supabase-js call so that whatever it throws (it reports most failures as values, but
 * a broken fetch or storage can still throw) leaves as a RequestError too: callers then have
 * one type to look at. A thrown error means the request did not complete, hence status 0.
 */
async function guarded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    if (error instanceof RequestError) throw error
    throw new RequestError(error instanceof Error ? error.message : String(error), 0, undefined, { cause: error })
  }
}

// ---- Auth -------------------------------------------------------------------------------

export async function getSession(): Promise<AuthSession | null> {
  const { data } = await supabase().auth.getSession()
  return toSession(data.session)
}

/** Subscribes to auth events; returns the unsubscribe function. */
export function onAuthStateChange(listener: (event: AuthEvent, session: AuthSession | null) => void): () => void {
  const known: AuthEvent[] = ['INITIAL_SESSION', 'SIGNED_IN', 'SIGNED_OUT', 'TOKEN_REFRESHED', 'USER_UPDATED', 'MFA_CHALLENGE_VERIFIED', 'PASSWORD_RECOVERY']
  const { data } = supabase().auth.onAuthStateChange((event, session) => {
    listener(known.includes(event as AuthEvent) ? (event as AuthEvent) : 'OTHER', toSession(session))
  })
  return () => data.subscription.unsubscribe()
}

/** Who a sign-in or sign-up returned; either may be null when the server sent none. */
export interface SignedIn {
  user: AuthUser | null
  session: AuthSession | null
}

export async function signInWithPassword(email: string, password: string): Promise<SignedIn> {
  return guarded(async () => {
    const { data, error } = await supabase().auth.signInWithPassword({ email, password })
    if (error) throw authFailure(error)
    return { user: toUser(data.user), session: toSession(data.session) }
  })
}

let probeClient: SupabaseClient | undefined

/**
 * Checks a password without touching the app's session: a second, in-memory client signs in
 * and ends that sign-in again (scope local). Signing in on the app's client would replace a
 * session that passed the second factor (aal2) by an aal1 one, which may not change the
 * password of an account with an authenticator app. Resolves to the user the password is for.
 */
export async function checkPassword(email: string, password: string): Promise<AuthUser | null> {
  return guarded(async () => {
    if (!probeClient) {
      const env = getEnv()
      probeClient = createClient(env.supabaseUrl, env.anonKey, {
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, storageKey: 'labelbase-password-check' },
      })
    }
    const probe = probeClient
    const { data, error } = await probe.auth.signInWithPassword({ email, password })
    if (error) throw authFailure(error)
    await probe.auth.signOut({ scope: 'local' })
    return toUser(data.user)
  })
}

export async function signUp(email: string, password: string, metadata: Record<string, string>, emailRedirectTo: string): Promise<SignedIn> {
  return guarded(async () => {
    const { data, error } = await supabase().auth.signUp({ email, password, options: { data: metadata, emailRedirectTo } })
    if (error) throw authFailure(error)
    return { user: toUser(data.user), session: toSession(data.session) }
  })
}

export async function updatePassword(password: string): Promise<void> {
  return guarded(async () => {
    const { error } = await supabase().auth.updateUser({ password })
    if (error) throw authFailure(error)
  })
}

/** Asks the server to mail a password-reset link that lands on redirectTo. */
export async function requestPasswordReset(email: string, redirectTo: string): Promise<void> {
  return guarded(async () => {
    const { error } = await supabase().auth.resetPasswordForEmail(email, { redirectTo })
    if (error) throw authFailure(error)
  })
}

export async function signOut(): Promise<void> {
  return guarded(async () => {
    const { error } = await supabase().auth.signOut()
    if (error) throw authFailure(error)
  })
}

// ---- Two-factor authentication (TOTP) -----------------------------------------------------

export interface TotpFactor {
  id: string
  friendlyName: string
  status: 'verified' | 'unverified'
  createdAt: string
}

export interface TotpEnrollment {
  factorId: string
  /** The QR code as a data: URI (SVG), for an <img>. */
  qrCode: string
  /** The shared secret in base32, for typing into an app that cannot scan. */
  secret: string
}

/** Where the session stands: its level and the one the account can reach. */
export interface AssuranceLevels {
  current: string | null
  next: string | null
}

/**
 * The session's assurance level and the next one its account can reach. supabase-js reads the
 * factors from the stored session, which may predate a factor verified on another device;
 * `fresh` hands it the session's token instead, so it asks the server for the user's factors
 * (GET /user). A page that must not open to an aal1 session of an account with a factor (the
 * admin console) asks fresh.
 */
export async function assuranceLevels(fresh = false): Promise<AssuranceLevels> {
  return guarded(async () => {
    const auth = supabase().auth
    const token = fresh ? (await auth.getSession()).data.session?.access_token : undefined
    const { data, error } = await auth.mfa.getAuthenticatorAssuranceLevel(token)
    if (error) throw authFailure(error)
    return { current: data.currentLevel, next: data.nextLevel }
  })
}

/** The user's TOTP factors, verified or not (GET /user). */
export async function listTotpFactors(): Promise<TotpFactor[]> {
  return guarded(async () => {
    const { data, error } = await supabase().auth.mfa.listFactors()
    if (error) throw authFailure(error)
    return data.all
      .filter((f) => f.factor_type === 'totp')
      .map((f) => ({ id: f.id, friendlyName: f.friendly_name ?? '', status: f.status, createdAt: f.created_at }))
  })
}

export async function enrollTotp(friendlyName: string, issuer: string): Promise<TotpEnrollment> {
  return guarded(async () => {
    const { data, error } = await supabase().auth.mfa.enroll({ factorType: 'totp', friendlyName, issuer })
    if (error) throw authFailure(error)
    return { factorId: data.id, qrCode: data.totp.qr_code, secret: data.totp.secret }
  })
}

/** Challenges the factor and answers with code; success raises the session to aal2. */
export async function verifyTotp(factorId: string, code: string): Promise<void> {
  return guarded(async () => {
    const { error } = await supabase().auth.mfa.challengeAndVerify({ factorId, code })
    if (error) throw authFailure(error)
  })
}

export async function unenrollFactor(factorId: string): Promise<void> {
  return guarded(async () => {
    const { error } = await supabase().auth.mfa.unenroll({ factorId })
    if (error) throw authFailure(error)
  })
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
export async function rpc<F extends FunctionName>(fn: F, args: FunctionArgs<F>): Promise<FunctionReturns<F>> {
  return guarded(async () => dataOf<FunctionReturns<F>>(await untyped().rpc(fn, args)))
}

/** SELECT one column FROM table WHERE each filter is equal, optionally limited. */
export async function selectEq<T extends TableName, C extends ColumnOf<T>>(
  table: T,
  column: C,
  filters: Partial<Row<T>>,
  limit?: number,
): Promise<Pick<Row<T>, C>[]> {
  return selectColumnsEq(table, [column], filters, limit)
}

/** SELECT some columns FROM table WHERE each filter is equal, optionally limited. */
export async function selectColumnsEq<T extends TableName, C extends ColumnOf<T>>(
  table: T,
  columns: readonly C[],
  filters: Partial<Row<T>>,
  limit?: number,
): Promise<Pick<Row<T>, C>[]> {
  return guarded(async () => {
    let query = untyped().from(table).select(columns.join(','))
    for (const [name, value] of Object.entries(filters)) query = query.eq(name, value)
    if (limit !== undefined) query = query.limit(limit)
    return dataOf<Pick<Row<T>, C>[] | null>(await query) ?? []
  })
}

/** INSERT one row (no representation returned). */
export async function insertRow<T extends TableName>(table: T, row: InsertRow<T>): Promise<void> {
  return guarded(async () => void dataOf(await untyped().from(table).insert(row)))
}

/** INSERT rows and return one column of the inserted rows. */
export async function insertRowsReturning<T extends TableName, C extends ColumnOf<T>>(table: T, rows: InsertRow<T>[], column: C): Promise<Pick<Row<T>, C>[]> {
  return guarded(async () => dataOf<Pick<Row<T>, C>[] | null>(await untyped().from(table).insert(rows).select(column)) ?? [])
}

/** UPSERT one row, merging on the given conflict columns. */
export async function upsertRow<T extends TableName>(table: T, row: InsertRow<T>, onConflict: ColumnOf<T>[]): Promise<void> {
  return guarded(
    async () =>
      void dataOf(
        await untyped()
          .from(table)
          .upsert(row, { onConflict: onConflict.join(',') }),
      ),
  )
}

/** DELETE FROM table WHERE each filter is equal. */
export async function deleteEq<T extends TableName>(table: T, filters: Partial<Row<T>>): Promise<void> {
  return guarded(async () => {
    let query = untyped().from(table).delete()
    for (const [name, value] of Object.entries(filters)) query = query.eq(name, value)
    dataOf(await query)
  })
}

// ---- Realtime -----------------------------------------------------------------------------

type BroadcastListener = (payload: Record<string, unknown>) => void

interface LiveTopic {
  channel?: RealtimeChannel
  listeners: Map<string, Set<BroadcastListener>>
  closeTimer?: ReturnType<typeof setTimeout>
}

/**
 * One channel per topic, shared by every listener: realtime-js hands out the existing channel
 * for a topic it already has, so two components removing "their" channel would end each
 * other's. The last listener to leave closes it after a short linger, so that a remount (a
 * quick navigation back, React's development double effects) keeps the joined channel; and a
 * topic opened again while its old channel is still leaving waits until it has left, or
 * realtime-js would hand back the leaving one.
 */
const liveTopics = new Map<string, LiveTopic>()
const leaving = new Map<string, Promise<unknown>>()
const LIVE_LINGER_MS = 1000

function openTopic(topic: string): LiveTopic {
  const live: LiveTopic = { listeners: new Map() }
  const current = () => liveTopics.get(topic) === live
  void (leaving.get(topic) ?? Promise.resolve())
    .catch(() => undefined)
    .then(async () => {
      if (!current()) return
      const client = supabase()
      // A private topic is authorised by the session's token: hand it over before joining.
      await client.realtime.setAuth().catch(() => undefined)
      if (!current()) return
      const channel = client.channel(topic, { config: { private: true } })
      channel.on('broadcast', { event: '*' }, (message: { event: string; payload?: Record<string, unknown> }) => {
        for (const listener of live.listeners.get(message.event) ?? []) listener(message.payload ?? {})
      })
      live.channel = channel
      channel.subscribe()
    })
  return live
}

function closeTopic(topic: string, live: LiveTopic) {
  if (liveTopics.get(topic) === live) liveTopics.delete(topic)
  if (!live.channel) return
  const left = supabase()
    .removeChannel(live.channel)
    .finally(() => {
      if (leaving.get(topic) === left) leaving.delete(topic)
    })
  leaving.set(topic, left)
}

/**
 * Listens to one event of a private broadcast topic (sent by the database's triggers through
 * realtime.send; the realtime.messages policies decide who receives it). Returns the function
 * that stops listening.
 */
export function subscribeBroadcast(topic: string, event: string, listener: BroadcastListener): () => void {
  let live = liveTopics.get(topic)
  if (!live) {
    live = openTopic(topic)
    liveTopics.set(topic, live)
  }
  clearTimeout(live.closeTimer)
  live.closeTimer = undefined
  const set = live.listeners.get(event) ?? new Set<BroadcastListener>()
  set.add(listener)
  live.listeners.set(event, set)
  const mine = live
  return () => {
    set.delete(listener)
    if ([...mine.listeners.values()].some((s) => s.size > 0)) return
    clearTimeout(mine.closeTimer)
    mine.closeTimer = setTimeout(() => closeTopic(topic, mine), LIVE_LINGER_MS)
  }
}

// ---- Storage ------------------------------------------------------------------------------

export interface ImageTransform {
  width: number
  height: number
  resize: 'cover' | 'contain' | 'fill'
}

interface StorageErrorLike {
  message: string
  status?: number
  statusCode?: string | number
}

/** storage-js's error as the app's one error type (its HTTP status when it has one). */
function storageFailure(error: StorageErrorLike): RequestError {
  const status = Number(error.status ?? error.statusCode ?? 0) || 0
  return new RequestError(error.message, status, error.statusCode === undefined ? undefined : String(error.statusCode), { cause: error })
}

/** Storage answers a missing object with 404, or with 400 carrying statusCode "404" (upstream's shape). */
function isNotFound(error: StorageErrorLike): boolean {
  return String(error.statusCode) === '404' || error.status === 404 || /not.?found/i.test(error.message)
}

/** Uploads file to bucket/path, replacing what is there (upsert: INSERT + UPDATE + SELECT policies). */
export async function uploadObject(bucket: string, path: string, file: Blob, contentType: string): Promise<void> {
  return guarded(async () => {
    const { error } = await supabase().storage.from(bucket).upload(path, file, { upsert: true, contentType, cacheControl: '3600' })
    if (error) throw storageFailure(error)
  })
}

/** Deletes objects of bucket; a path that is not there is no error (storage answers with the ones it removed). */
export async function removeObjects(bucket: string, paths: string[]): Promise<void> {
  return guarded(async () => {
    const { error } = await supabase().storage.from(bucket).remove(paths)
    if (error) throw storageFailure(error)
  })
}

/**
 * A signed URL of the object rendered through /storage/v1/render/image (transform), valid for
 * expiresIn seconds, or null when the object does not exist. Each signing yields a new token,
 * so a replaced object never shows from the browser's cache under its old URL.
 */
export async function signedImageUrl(bucket: string, path: string, expiresIn: number, transform: ImageTransform): Promise<string | null> {
  return guarded(async () => {
    const { data, error } = await supabase().storage.from(bucket).createSignedUrl(path, expiresIn, { transform })
    if (error) {
      if (isNotFound(error)) return null
      throw storageFailure(error)
    }
    return data.signedUrl
  })
}
