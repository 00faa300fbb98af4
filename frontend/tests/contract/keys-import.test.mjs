// Contract suite for keys a project brings when it moves in: the unmodified
// @supabase/supabase-js against a gateway into which the signing keys of
// the project's old home (hosted or self-hosted Supabase) are imported, as
// `labelbase keys import` does. Tokens the old project issued before the
// move, signed with an RS256 or an ES256 key, must keep working; so must
// API keys that are JWTs signed by such a key.
//
// The "old project" is played by node:crypto: it makes the keys, exports
// them as a JWK set and as PEM (what `supabase gen signing-key` and openssl
// write) and signs tokens shaped like GoTrue's.
//
// Besides support.mjs's variables this suite needs:
//   LABELBASE_KEYS_ADMIN_URL  a loopback hook doing `labelbase keys import`
//                             (POST /import?kid=&current=1, the file as body)
//                             followed by the gateway's reload
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto'
import { createClient } from '@supabase/supabase-js'

import { countingFetch, env, memoryStorage, newClient, rawFetch, signUpNewUser } from './support.mjs'

function adminURL() {
  if (!process.env.LABELBASE_KEYS_ADMIN_URL) throw new Error('the keys-import suite needs LABELBASE_KEYS_ADMIN_URL in the environment')
  return process.env.LABELBASE_KEYS_ADMIN_URL.replace(/\/+$/, '')
}

// A key of the old project: its kid, alg, private JWK (with use and
// key_ops, as Supabase writes them) and node KeyObject.
function oldProjectKey(alg) {
  const { privateKey, publicKey } = alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('rsa', { modulusLength: 2048 })
  const kid = randomUUID()
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid, alg, use: 'sig', key_ops: ['sign', 'verify'], ext: true }
  const publicJwk = { ...publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig', key_ops: ['verify'] }
  return { kid, alg, jwk, publicJwk, privateKey, pem: privateKey.export({ type: 'pkcs8', format: 'pem' }) }
}

const b64 = (v) => Buffer.from(JSON.stringify(v)).toString('base64url')

// A compact JWT signed as GoTrue signs: header alg, typ and kid.
function signJWT(key, payload, kid = key.kid) {
  const data = `${b64({ alg: key.alg, kid, typ: 'JWT' })}.${b64(payload)}`
  const sig = sign('sha256', Buffer.from(data), key.alg === 'ES256' ? { key: key.privateKey, dsaEncoding: 'ieee-p1363' } : key.privateKey)
  return `${data}.${sig.toString('base64url')}`
}

const now = () => Math.floor(Date.now() / 1000)

// An access token as the old project's Auth issued it to user.
function accessToken(key, user) {
  return signJWT(key, {
    iss: 'https://abcdefghijklmnopqrst.supabase.co/auth/v1',
    sub: user.id,
    aud: 'authenticated',
    exp: now() + 3600,
    iat: now() - 60,
    email: user.email,
    phone: '',
    app_metadata: { provider: 'email', providers: ['email'] },
    user_metadata: {},
    role: 'authenticated',
    aal: 'aal1',
    amr: [{ method: 'password', timestamp: now() - 60 }],
    session_id: randomUUID(),
    is_anonymous: false,
  })
}

// An API key as the old project's dashboard showed it.
function apiKey(key, role, exp = now() + 5 * 365 * 24 * 3600) {
  return signJWT(key, { iss: 'supabase', ref: 'abcdefghijklmnopqrst', role, iat: now() - 3600, exp })
}

async function importKeys(body, { kid, current } = {}) {
  const q = new URLSearchParams()
  if (kid) q.set('kid', kid)
  if (current) q.set('current', '1')
  const res = await fetch(`${adminURL()}/import?${q}`, { method: 'POST', body })
  assert.equal(res.status, 204, await res.text())
}

// A client that calls as the holder of token (no session of its own).
function asToken(token, opts = {}) {
  return newClient({ global: { headers: { Authorization: `Bearer ${token}` }, ...(opts.global ?? {}) } })
}

function clientWithKey(key) {
  const { url } = env()
  return createClient(url, key, {
    auth: { persistSession: true, storage: memoryStorage(), autoRefreshToken: false, detectSessionInUrl: false },
    realtime: {
      transport: class {
        constructor() {
          throw new Error('no realtime')
        }
      },
    },
  })
}

const jwtHeader = (jwt) => JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString())

test('tokens issued before the move with RS256 and ES256 keys work once the keys are imported', async () => {
  // The member, moved along with auth.users, follows a label.
  const { client, user } = await signUpNewUser()
  const labels = await client.from('labels').select('id').order('id').limit(1)
  assert.equal(labels.error, null)
  const labelId = labels.data[0].id
  assert.equal((await client.from('user_follow_labels').insert({ user_id: user.id, label_id: labelId })).error, null)

  const rsa = oldProjectKey('RS256')
  const ec = oldProjectKey('ES256')
  const tokens = { RS256: accessToken(rsa, user), ES256: accessToken(ec, user) }

  // Before the import the gateway knows neither key.
  for (const [alg, tok] of Object.entries(tokens)) {
    const res = await asToken(tok).from('user_follow_labels').select('label_id')
    assert.equal(res.status, 401, alg)
    assert.equal(res.error.code, 'PGRST301', alg)
    assert.ok((await newClient().auth.getClaims(tok)).error, `${alg}: getClaims refuses an unknown key`)
  }

  // The RS256 key as a JWK set, the ES256 one as a PKCS#8 PEM named by --kid.
  await importKeys(JSON.stringify({ keys: [rsa.jwk] }))
  await importKeys(ec.pem, { kid: ec.kid })

  let jwksFetched = false
  for (const [alg, tok] of Object.entries(tokens)) {
    // RLS sees the member: their follow, and only theirs.
    const res = await asToken(tok).from('user_follow_labels').select('label_id, user_id')
    assert.equal(res.error, null, `${alg}: ${JSON.stringify(res.error)}`)
    assert.deepEqual(res.data, [{ label_id: labelId, user_id: user.id }], alg)
    // getClaims verifies it locally against the JWKS, without /user
    // (auth-js shares its JWKS cache between clients, so the second
    // token may need no request at all).
    const counter = countingFetch()
    const verifier = newClient({ global: { fetch: counter.fetch } })
    const { data, error } = await verifier.auth.getClaims(tok)
    assert.equal(error, null, alg)
    assert.equal(data.claims.sub, user.id)
    assert.equal(data.header.kid, alg === 'RS256' ? rsa.kid : ec.kid)
    jwksFetched ||= counter.calls.includes('GET /auth/v1/.well-known/jwks.json')
    assert.ok(
      counter.calls.every((c) => c === 'GET /auth/v1/.well-known/jwks.json'),
      `${alg}: verified without /user; calls ${counter.calls}`,
    )
  }
  assert.ok(jwksFetched, 'getClaims fetched the JWKS')
  // Another member's token, signed by the same imported key, sees no one else's rows.
  const other = await signUpNewUser()
  const theirs = await asToken(accessToken(rsa, other.user)).from('user_follow_labels').select('label_id')
  assert.equal(theirs.error, null)
  assert.deepEqual(theirs.data, [])

  // The JWKS publishes both keys' public halves, nothing private.
  const jwks = await (await rawFetch('/auth/v1/.well-known/jwks.json')).json()
  const published = jwks.keys.filter((k) => k.kid === rsa.kid || k.kid === ec.kid)
  assert.deepEqual(published.map((k) => k.alg).sort(), ['ES256', 'RS256'])
  for (const k of published) for (const m of ['d', 'p', 'q', 'dp', 'dq', 'qi']) assert.equal(k[m], undefined)

  // Imported without --current, the keys only verify: new sessions are
  // still signed by the gateway's own key.
  const fresh = await signUpNewUser()
  assert.ok(![rsa.kid, ec.kid].includes(jwtHeader(fresh.session.access_token).kid))

  // A token with an altered payload fails, imported key or not.
  const [h, , s] = tokens.ES256.split('.')
  const forged = [h, b64({ sub: other.user.id, role: 'authenticated', aud: 'authenticated', exp: now() + 600 }), s].join('.')
  assert.equal((await asToken(forged).from('user_follow_labels').select('label_id')).status, 401)
})

test("a public key from the old project's JWKS verifies its tokens", async () => {
  // Hosted Supabase never lets a private key out; its JWKS is public.
  const { user } = await signUpNewUser()
  const hosted = oldProjectKey('ES256')
  const tok = accessToken(hosted, user)
  await importKeys(JSON.stringify({ keys: [hosted.publicJwk] }))
  const res = await asToken(tok).from('user_follow_labels').select('label_id')
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, [])
  const { data, error } = await newClient().auth.getClaims(tok)
  assert.equal(error, null)
  assert.equal(data.claims.sub, user.id)
})

test('JWT API keys signed by an imported key are accepted; foreign, expired and user tokens are not', async () => {
  const old = oldProjectKey('ES256')
  await importKeys(JSON.stringify([old.jwk]))
  const anon = apiKey(old, 'anon')
  const service = apiKey(old, 'service_role')

  // The anon key of the old project: anon calls and a sign-up work.
  const anonClient = clientWithKey(anon)
  const valid = await anonClient.rpc('validate_invite_code', { code_param: env().inviteCode })
  assert.equal(valid.error, null, JSON.stringify(valid.error))
  assert.deepEqual(valid.data, { valid: true })
  const { session } = await signUpNewUser({ client: anonClient })
  assert.ok(session.access_token)
  assert.equal((await anonClient.from('labels').select('id').limit(1)).error, null)

  // Its service_role key reads what only service_role may.
  const serviceClient = clientWithKey(service)
  const codes = await serviceClient.from('invite_codes').select('code').limit(5)
  assert.equal(codes.error, null, JSON.stringify(codes.error))
  assert.ok(codes.data.length >= 1)

  const stranger = oldProjectKey('ES256')
  const { user } = await signUpNewUser()
  for (const [name, key] of Object.entries({
    'signed by a foreign key under the imported kid': signJWT(stranger, { iss: 'supabase', role: 'anon', exp: now() + 3600 }, old.kid),
    expired: apiKey(old, 'anon', now() - 3600),
    "a user's access token": accessToken(old, user),
  })) {
    const res = await fetch(`${env().url}/rest/v1/labels?select=id`, { headers: { apikey: key } })
    assert.equal(res.status, 401, name)
    assert.equal((await res.json()).message, 'Invalid API key', name)
  }
})

test('an imported key made current signs new sessions with its own kid', async () => {
  const next = oldProjectKey('ES256')
  await importKeys(JSON.stringify({ keys: [next.jwk] }), { current: true })
  const { client, session, user } = await signUpNewUser()
  assert.equal(jwtHeader(session.access_token).kid, next.kid)
  const { data, error } = await client.auth.getClaims()
  assert.equal(error, null)
  assert.equal(data.claims.sub, user.id)
  assert.equal((await client.from('user_follow_labels').select('label_id')).error, null)
})
