// Contract suite for signing keys and API keys: the unmodified
// @supabase/supabase-js against a gateway that signs access tokens with a
// stored ES256 key (pkg/app's acceptance test seeds one), publishes it at
// /auth/v1/.well-known/jwks.json and accepts Supabase's opaque
// sb_publishable_/sb_secret_ keys beside the legacy JWT keys.
//
// Besides support.mjs's variables this suite needs:
//   LABELBASE_PUBLISHABLE_KEY, LABELBASE_SECRET_KEY  the opaque keys
//   LABELBASE_KEYS_ADMIN_URL  a loopback hook doing `labelbase keys rotate`
//                             (POST /rotate) and `keys revoke` (POST /revoke?kid=)
//                             followed by the gateway's reload
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createClient } from '@supabase/supabase-js'

import { countingFetch, env, memoryStorage, newClient, rawFetch, signUpNewUser } from './support.mjs'

function keysEnv() {
  const names = ['LABELBASE_PUBLISHABLE_KEY', 'LABELBASE_SECRET_KEY', 'LABELBASE_KEYS_ADMIN_URL']
  const missing = names.filter((k) => !process.env[k])
  if (missing.length > 0) throw new Error(`the keys suite needs ${missing.join(', ')} in the environment`)
  return {
    publishable: process.env.LABELBASE_PUBLISHABLE_KEY,
    secret: process.env.LABELBASE_SECRET_KEY,
    admin: process.env.LABELBASE_KEYS_ADMIN_URL.replace(/\/+$/, ''),
  }
}

// The decoded JOSE header of a compact JWT.
function jwtHeader(jwt) {
  return JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString())
}

async function jwks() {
  const res = await rawFetch('/auth/v1/.well-known/jwks.json')
  assert.equal(res.status, 200)
  return { res, body: await res.json() }
}

async function rotate() {
  const res = await fetch(`${keysEnv().admin}/rotate`, { method: 'POST' })
  assert.equal(res.status, 200, await res.clone().text())
  return res.text()
}

async function revoke(kid) {
  const res = await fetch(`${keysEnv().admin}/revoke?kid=${encodeURIComponent(kid)}`, { method: 'POST' })
  assert.equal(res.status, 204, await res.text())
}

// A client whose every request goes to the gateway with a given key.
function clientWithKey(key, opts = {}) {
  const { url } = env()
  return createClient(url, key, {
    ...opts,
    auth: { persistSession: true, storage: memoryStorage(), autoRefreshToken: false, detectSessionInUrl: false, ...(opts.auth ?? {}) },
    realtime: {
      transport: class {
        constructor() {
          throw new Error('no realtime')
        }
      },
    },
  })
}

test('sessions are ES256-signed with the kid of a key the JWKS publishes', async () => {
  const { session } = await signUpNewUser()
  const header = jwtHeader(session.access_token)
  assert.equal(header.alg, 'ES256')
  assert.ok(header.kid, 'the access token names its key')
  const { res, body } = await jwks()
  assert.match(res.headers.get('cache-control') ?? '', /max-age=\d+/)
  const jwk = body.keys.find((k) => k.kid === header.kid)
  assert.ok(jwk, `kid ${header.kid} is in the JWKS`)
  assert.deepEqual([jwk.kty, jwk.crv, jwk.alg], ['EC', 'P-256', 'ES256'])
  // Verifiers fetch the JWKS without an API key.
  const bare = await fetch(`${env().url}/auth/v1/.well-known/jwks.json`)
  assert.equal(bare.status, 200)
  assert.deepEqual(await bare.json(), body)
  for (const k of body.keys) {
    for (const secretMember of ['d', 'k', 'p', 'q']) assert.equal(k[secretMember], undefined, `JWK ${k.kid} has no "${secretMember}"`)
  }
})

test('auth.getClaims() verifies the session locally against the JWKS', async () => {
  const counter = countingFetch()
  const client = newClient({ global: { fetch: counter.fetch } })
  const { user, session } = await signUpNewUser({ client })
  counter.calls.length = 0
  const { data, error } = await client.auth.getClaims()
  assert.equal(error, null)
  assert.equal(data.claims.sub, user.id)
  assert.equal(data.claims.role, 'authenticated')
  assert.equal(data.header.kid, jwtHeader(session.access_token).kid)
  assert.ok(counter.calls.includes('GET /auth/v1/.well-known/jwks.json'), `calls: ${counter.calls}`)
  assert.ok(!counter.calls.includes('GET /auth/v1/user'), 'an asymmetric token needs no /user round trip')

  // A token whose payload was altered fails the signature check.
  const [h, p, s] = session.access_token.split('.')
  const payload = JSON.parse(Buffer.from(p, 'base64url').toString())
  payload.role = 'service_role'
  const forged = [h, Buffer.from(JSON.stringify(payload)).toString('base64url'), s].join('.')
  const bad = await client.auth.getClaims(forged)
  assert.ok(bad.error, 'a forged token is refused')
  assert.equal(bad.data, null)
})

test('after a rotation, a token issued before still works until its key is revoked', async () => {
  const { client, email, password, session } = await signUpNewUser()
  const oldKid = jwtHeader(session.access_token).kid

  const newKid = await rotate()
  assert.notEqual(newKid, oldKid)
  // The old token still reads through both APIs.
  const before = await client.auth.getUser()
  assert.equal(before.error, null)
  const rows = await client.from('labels').select('id').limit(1)
  assert.equal(rows.error, null)

  // A new sign-in is signed by the new key, which getClaims finds in the
  // JWKS although its own cache predates the rotation.
  const fresh = newClient()
  const signIn = await fresh.auth.signInWithPassword({ email, password })
  assert.equal(signIn.error, null)
  assert.equal(jwtHeader(signIn.data.session.access_token).kid, newKid)
  const claims = await fresh.auth.getClaims()
  assert.equal(claims.error, null)
  const { body } = await jwks()
  assert.ok(body.keys.some((k) => k.kid === oldKid) && body.keys.some((k) => k.kid === newKid), 'both keys are published')

  await revoke(oldKid)
  const after = await client.auth.getUser()
  assert.ok(after.error, 'the revoked key no longer verifies on /auth/v1')
  assert.equal(after.error.code, 'bad_jwt')
  const refused = await client.from('labels').select('id').limit(1)
  assert.equal(refused.status, 401)
  assert.equal(refused.error.code, 'PGRST301')
  assert.ok(!(await jwks()).body.keys.some((k) => k.kid === oldKid), 'a revoked key leaves the JWKS')
  // The new key's session is untouched.
  assert.equal((await fresh.from('labels').select('id').limit(1)).error, null)
})

test('a publishable key acts as anon and signs users in', async () => {
  const { publishable } = keysEnv()
  assert.match(publishable, /^sb_publishable_/)
  const client = clientWithKey(publishable)
  // anon may not read labels or invite codes.
  const anon = await client.from('labels').select('id').limit(1)
  assert.ok(anon.error, 'anon has no SELECT on labels')
  const invites = await client.from('invite_codes').select('code').limit(1)
  assert.ok(invites.error, 'anon cannot read invite codes')
  // Signed in through the publishable key, the session's role applies.
  await signUpNewUser({ client })
  const member = await client.from('labels').select('id').limit(1)
  assert.equal(member.error, null)
  assert.equal(member.status, 200)
})

test('a secret key acts as service_role from a server', async () => {
  const { secret } = keysEnv()
  assert.match(secret, /^sb_secret_/)
  const client = clientWithKey(secret, { auth: { persistSession: false } })
  const { data, error } = await client.from('invite_codes').select('code').limit(5)
  assert.equal(error, null)
  assert.ok(data.length >= 1, 'service_role reads the invite codes')
})

test('a secret key from a browser is refused', async () => {
  const { secret } = keysEnv()
  const browsers = [
    { Origin: 'http://localhost:5173' },
    { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36' },
  ]
  for (const headers of browsers) {
    const res = await rawFetch('/rest/v1/invite_codes?select=code', { headers: { apikey: secret, Authorization: `Bearer ${secret}`, ...headers } })
    assert.equal(res.status, 401, JSON.stringify(headers))
    const body = await res.json()
    assert.match(body.message, /secret API key in browser/)
  }
  // The same client code with a browser Origin gets the error, not rows.
  const client = clientWithKey(secret, { global: { headers: { Origin: 'http://localhost:5173' } }, auth: { persistSession: false } })
  const { data, error, status } = await client.from('invite_codes').select('code')
  assert.equal(status, 401)
  assert.ok(error)
  assert.equal(data, null)
  // An opaque key that is not ours is an invalid key.
  const unknown = await rawFetch('/rest/v1/labels?select=id', { headers: { apikey: 'sb_publishable_not-a-real-key' } })
  assert.equal(unknown.status, 401)
})
