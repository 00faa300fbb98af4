// Helpers for the parity suites: supabase-js clients on the gateway that
// pkg/app/parity_test.go starts for each file, on a fresh database holding
// schema.sql (and postgis.sql when LABELBASE_POSTGIS=1).
import { createClient } from '@supabase/supabase-js'

const REQUIRED = ['LABELBASE_URL', 'LABELBASE_ANON_KEY', 'LABELBASE_SERVICE_ROLE_KEY']

/** The gateway's settings; a missing one fails the suite rather than skipping it. */
export function env() {
  const missing = REQUIRED.filter((k) => !process.env[k])
  if (missing.length > 0) {
    throw new Error(`parity suites need ${missing.join(', ')} (run them with go test -run TestParitySuites ./pkg/app)`)
  }
  return {
    url: process.env.LABELBASE_URL.replace(/\/+$/, ''),
    anonKey: process.env.LABELBASE_ANON_KEY,
    serviceRoleKey: process.env.LABELBASE_SERVICE_ROLE_KEY,
    postgis: process.env.LABELBASE_POSTGIS === '1',
  }
}

// Node 20 has no WebSocket; no suite opens a Realtime channel.
class NoWebSocket {
  constructor() {
    throw new Error('parity suites do not use Realtime')
  }
}

/**
 * A supabase-js client: anon by default, service_role with {service: true},
 * another exposed schema with {schema}.
 */
export function client({ service = false, schema, headers } = {}) {
  const { url, anonKey, serviceRoleKey } = env()
  return createClient(url, service ? serviceRoleKey : anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: NoWebSocket },
    ...(schema ? { db: { schema } } : {}),
    ...(headers ? { global: { headers } } : {}),
  })
}

/** fetch on the gateway with the anon key, for checks below the client. */
export function raw(path, init = {}) {
  const { url, anonKey } = env()
  return fetch(url + path, { ...init, headers: { apikey: anonKey, Authorization: `Bearer ${anonKey}`, ...(init.headers ?? {}) } })
}
