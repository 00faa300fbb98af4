// Shared helpers for the contract suites. Each suite runs the unmodified
// @supabase/supabase-js against a live gateway named by the environment:
//
//   LABELBASE_URL               e.g. http://127.0.0.1:8080
//   LABELBASE_ANON_KEY          the anon API key
//   LABELBASE_SERVICE_ROLE_KEY  the service-role API key
//   LABELBASE_INVITE_CODE       a valid invite code with many uses left
//
// A missing variable fails the suite instead of skipping it: a contract
// suite that silently skips proves nothing.
import { createClient } from '@supabase/supabase-js'
import { randomUUID } from 'node:crypto'

const REQUIRED = ['LABELBASE_URL', 'LABELBASE_ANON_KEY', 'LABELBASE_SERVICE_ROLE_KEY', 'LABELBASE_INVITE_CODE']

/**
 * Returns the gateway settings, throwing (so the test fails) when any is
 * missing.
 * @returns {{url: string, anonKey: string, serviceRoleKey: string, inviteCode: string}}
 */
export function env() {
  const missing = REQUIRED.filter((k) => !process.env[k])
  if (missing.length > 0) {
    throw new Error(`contract tests need ${missing.join(', ')} in the environment (a live gateway)`)
  }
  return {
    url: process.env.LABELBASE_URL.replace(/\/+$/, ''),
    anonKey: process.env.LABELBASE_ANON_KEY,
    serviceRoleKey: process.env.LABELBASE_SERVICE_ROLE_KEY,
    inviteCode: process.env.LABELBASE_INVITE_CODE,
  }
}

/**
 * The second gateway pkg/app's acceptance test starts on the same database (INVITE_REQUIRED=false,
 * MAILER_AUTOCONFIRM=false, the same keys and storage directory): `newClient({ url: plainURL() })`.
 */
export function plainURL() {
  const u = process.env.LABELBASE_PLAIN_URL
  if (!u) throw new Error('this suite needs LABELBASE_PLAIN_URL (pkg/app starts it)')
  return u.replace(/\/+$/, '')
}

/** Returns an email address no other test run has used. */
export function uniqueEmail(prefix = 'contract') {
  return `${prefix}-${Date.now().toString(36)}-${randomUUID().slice(0, 8)}@example.test`
}

/**
 * A storage that lives in memory, one per client, so clients never share a
 * session unless a test copies one across on purpose.
 */
export function memoryStorage() {
  const m = new Map()
  return {
    getItem: (k) => (m.has(k) ? m.get(k) : null),
    setItem: (k, v) => void m.set(k, v),
    removeItem: (k) => void m.delete(k),
    /** The raw map, for tests that inspect or doctor what the client stored. */
    map: m,
  }
}

// Node 20 has no WebSocket global and supabase-js refuses to build its
// Realtime client without one. Only realtime.test.mjs opens channels, and it
// passes the "ws" package as transport itself; for the other suites (the
// Realtime client makes no request until channel() is called) a transport
// that fails if ever used is enough.
class NoWebSocket {
  constructor() {
    throw new Error('contract tests do not use Realtime')
  }
}

/**
 * Returns a fresh supabase-js client for the gateway. By default it keeps
 * its session in its own memory storage and does not refresh on its own;
 * pass options to override (they are merged into `auth`, `global`, ...).
 * @param {{key?: string, auth?: object, global?: object, db?: object}} [opts]
 */
export function newClient(opts = {}) {
  const { url: gateway, anonKey } = env()
  const { key = anonKey, url = gateway, auth = {}, ...rest } = opts
  return createClient(url, key, {
    ...rest,
    auth: { persistSession: true, storage: memoryStorage(), autoRefreshToken: false, detectSessionInUrl: false, ...auth },
    realtime: { transport: globalThis.WebSocket ?? NoWebSocket, ...(rest.realtime ?? {}) },
  })
}

/**
 * Wraps fetch to count the requests a client makes, by "METHOD /path".
 * Pass `counter.fetch` as `global.fetch`.
 */
export function countingFetch() {
  const calls = []
  return {
    calls,
    fetch: (input, init) => {
      const u = new URL(typeof input === 'string' ? input : input.url)
      calls.push(`${init?.method ?? 'GET'} ${u.pathname}`)
      return fetch(input, init)
    },
  }
}

/** Resolves after ms milliseconds. */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/**
 * Signs up a new user with the shared invite code and returns the client
 * (signed in), the credentials and the session.
 */
export async function signUpNewUser({ client = newClient(), email = uniqueEmail(), password = `pw-${randomUUID()}`, data = {} } = {}) {
  const { inviteCode } = env()
  const res = await client.auth.signUp({ email, password, options: { data: { invite_code: inviteCode, ...data } } })
  if (res.error) throw res.error
  if (!res.data.session) throw new Error('signUp returned no session (autoconfirm expected)')
  return { client, email, password, session: res.data.session, user: res.data.user }
}

/** Calls fetch on the gateway with the anon key, for raw wire checks. */
export async function rawFetch(path, init = {}) {
  const { url, anonKey } = env()
  const headers = { apikey: anonKey, ...(init.headers ?? {}) }
  return fetch(url + path, { ...init, headers })
}
