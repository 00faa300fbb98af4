// Contract suite for /auth/v1: the unmodified @supabase/supabase-js (the
// version pinned in package.json) against a live gateway named by the
// environment (see support.mjs). Every assertion is about what the client
// library does with our answers, not about our JSON as such.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { isAuthApiError, isAuthSessionMissingError, isAuthWeakPasswordError } from '@supabase/supabase-js'

import { countingFetch, env, memoryStorage, newClient, rawFetch, signUpNewUser, sleep, uniqueEmail } from './support.mjs'

// Collects a client's onAuthStateChange events in order.
function recordEvents(client) {
  const events = []
  const { data } = client.auth.onAuthStateChange((event, session) => {
    events.push({ event, session })
  })
  return { events, names: () => events.map((e) => e.event), stop: () => data.subscription.unsubscribe() }
}

// Waits until pred() holds, polling; fails after timeoutMs.
async function until(pred, what, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs
  while (!pred()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`)
    await sleep(25)
  }
}

test('the environment names a live gateway', async () => {
  env() // throws, failing the suite, when a variable is missing
  const res = await rawFetch('/auth/v1/health')
  assert.equal(res.status, 200)
})

test('signUp with a valid invite returns a session and keeps the metadata', async () => {
  const { inviteCode } = env()
  const client = newClient()
  const rec = recordEvents(client)
  const email = uniqueEmail('signup')
  const { data, error } = await client.auth.signUp({
    email,
    password: 'pw-123456',
    options: { data: { invite_code: inviteCode, display_name: 'Contract' }, emailRedirectTo: 'http://localhost:5173' },
  })
  assert.equal(error, null)
  assert.ok(data.session, 'autoconfirm gives a session')
  assert.equal(data.session.token_type, 'bearer')
  assert.equal(data.session.expires_in, 3600)
  assert.equal(typeof data.session.expires_at, 'number')
  assert.ok(data.session.refresh_token)
  assert.equal(data.user.email, email)
  assert.equal(data.user.user_metadata.invite_code, inviteCode)
  assert.equal(data.user.user_metadata.display_name, 'Contract')
  assert.equal(data.user.aud, 'authenticated')
  assert.equal(data.user.identities[0].provider, 'email')
  assert.ok(data.user.email_confirmed_at)

  await until(() => rec.names().includes('SIGNED_IN'), 'SIGNED_IN')
  assert.deepEqual(rec.names(), ['INITIAL_SESSION', 'SIGNED_IN'])
  const { data: stored } = await client.auth.getSession()
  assert.equal(stored.session.access_token, data.session.access_token)
  rec.stop()
})

test('signUp with a bad invite shows the error and signs nobody in', async () => {
  for (const data of [{ invite_code: 'no-such-invite-code' }, {}]) {
    const client = newClient()
    const rec = recordEvents(client)
    const res = await client.auth.signUp({ email: uniqueEmail('badinvite'), password: 'pw-123456', options: { data } })
    assert.ok(isAuthApiError(res.error), `AuthApiError, got ${res.error?.name}`)
    assert.equal(res.error.code, 'invalid_invite_code')
    assert.equal(res.error.status, 422)
    assert.equal(res.error.message, 'Invalid invite code')
    assert.equal(res.data.session, null)
    assert.equal(res.data.user, null)
    await sleep(50)
    assert.deepEqual(rec.names(), ['INITIAL_SESSION'])
    rec.stop()
  }
})

test('signUp with a taken email or a weak password fails with GoTrue codes', async () => {
  const { inviteCode } = env()
  const { email } = await signUpNewUser()
  const dup = await newClient().auth.signUp({ email: email.toUpperCase(), password: 'pw-123456', options: { data: { invite_code: inviteCode } } })
  assert.ok(isAuthApiError(dup.error))
  assert.equal(dup.error.code, 'user_already_exists')
  assert.equal(dup.error.status, 422)

  const weak = await newClient().auth.signUp({ email: uniqueEmail('weak'), password: '123', options: { data: { invite_code: inviteCode } } })
  assert.ok(isAuthWeakPasswordError(weak.error), `AuthWeakPasswordError, got ${weak.error?.name}`)
  assert.deepEqual(weak.error.reasons, ['length'])
  assert.equal(weak.error.status, 422)

  const invalid = await newClient().auth.signUp({ email: 'not-an-email', password: 'pw-123456', options: { data: { invite_code: inviteCode } } })
  assert.equal(invalid.error.code, 'validation_failed')
  assert.equal(invalid.error.status, 400)
})

test('signInWithPassword accepts the right password only', async () => {
  const { email, password, user } = await signUpNewUser()
  const client = newClient()
  const ok = await client.auth.signInWithPassword({ email, password })
  assert.equal(ok.error, null)
  assert.equal(ok.data.user.id, user.id)
  assert.ok(ok.data.session.access_token)
  assert.ok(ok.data.user.last_sign_in_at)

  for (const creds of [
    { email, password: 'wrong-password' },
    { email: uniqueEmail('ghost'), password },
  ]) {
    const bad = await newClient().auth.signInWithPassword(creds)
    assert.ok(isAuthApiError(bad.error))
    assert.equal(bad.error.code, 'invalid_credentials')
    assert.equal(bad.error.status, 400)
    assert.equal(bad.error.message, 'Invalid login credentials')
    assert.equal(bad.data.session, null)
  }
})

test('getSession reads the stored session without a request; getUser asks the server', async () => {
  const { email, password, user } = await signUpNewUser()
  const counter = countingFetch()
  const client = newClient({ global: { fetch: counter.fetch } })
  await client.auth.signInWithPassword({ email, password })
  counter.calls.length = 0

  const { data: s, error: se } = await client.auth.getSession()
  assert.equal(se, null)
  assert.equal(s.session.user.id, user.id)
  assert.deepEqual(counter.calls, [], 'getSession made no request')

  const { data: u, error: ue } = await client.auth.getUser()
  assert.equal(ue, null)
  assert.equal(u.user.id, user.id)
  assert.equal(u.user.email, email)
  assert.deepEqual(counter.calls, ['GET /auth/v1/user'])
})

test('updateUser changes the password; the new one signs in, the old one no longer does', async () => {
  const { client, email, password } = await signUpNewUser()
  const rec = recordEvents(client)
  const { data, error } = await client.auth.updateUser({ password: 'a-brand-new-password', data: { theme: 'dark' } })
  assert.equal(error, null)
  assert.equal(data.user.email, email)
  assert.equal(data.user.user_metadata.theme, 'dark')
  assert.ok(data.user.user_metadata.invite_code, 'metadata merged, not replaced')
  await until(() => rec.names().includes('USER_UPDATED'), 'USER_UPDATED')
  rec.stop()

  const same = await client.auth.updateUser({ password: 'a-brand-new-password' })
  assert.equal(same.error.code, 'same_password')
  const weak = await client.auth.updateUser({ password: '1' })
  assert.ok(isAuthWeakPasswordError(weak.error))

  const fresh = await newClient().auth.signInWithPassword({ email, password: 'a-brand-new-password' })
  assert.equal(fresh.error, null)
  const old = await newClient().auth.signInWithPassword({ email, password })
  assert.equal(old.error.code, 'invalid_credentials')
})

test('refreshSession rotates the tokens and the new ones work', async () => {
  const { client, session } = await signUpNewUser()
  const rec = recordEvents(client)
  const { data, error } = await client.auth.refreshSession()
  assert.equal(error, null)
  assert.notEqual(data.session.refresh_token, session.refresh_token)
  // (The access token may be byte-identical within the same second: same
  // claims, same iat. That is fine and GoTrue behaves the same.)
  assert.equal(data.session.user.id, session.user.id)
  await until(() => rec.names().includes('TOKEN_REFRESHED'), 'TOKEN_REFRESHED')
  rec.stop()
  const { data: u, error: ue } = await client.auth.getUser()
  assert.equal(ue, null)
  assert.equal(u.user.id, session.user.id)
})

// The gateway's tokens live an hour and a suite cannot shorten that, but
// supabase-js decides when to refresh from the expires_at it stored, which
// it trusts as is (supabase-wire §a). So the test moves the stored
// expires_at to 100 s from now: outside getSession's 90 s margin, inside
// the auto-refresh threshold of 3 ticks (< 120 s). startAutoRefresh runs a
// tick at once, which must refresh against the real server and emit
// TOKEN_REFRESHED, storing a session that expires in an hour again.
test('auto-refresh refreshes a session close to expiry', async () => {
  const storage = memoryStorage()
  const { client, session } = await signUpNewUser({ client: newClient({ auth: { storage } }) })
  const key = [...storage.map.keys()].find((k) => k.endsWith('-auth-token'))
  assert.ok(key, 'session stored')
  const stored = JSON.parse(storage.map.get(key))
  stored.expires_at = Math.round(Date.now() / 1000) + 100
  storage.map.set(key, JSON.stringify(stored))

  const rec = recordEvents(client)
  await client.auth.startAutoRefresh()
  try {
    await until(() => rec.names().includes('TOKEN_REFRESHED'), 'TOKEN_REFRESHED from the auto-refresh tick')
  } finally {
    await client.auth.stopAutoRefresh()
    rec.stop()
  }
  const { data } = await client.auth.getSession()
  assert.notEqual(data.session.refresh_token, session.refresh_token)
  assert.ok(data.session.expires_at - Date.now() / 1000 > 3000, 'new session expires in about an hour')
  const { error } = await client.auth.getUser()
  assert.equal(error, null)
})

// Two tabs holding the same session refresh at the same moment. Rotation
// must not sign either out: the loser of the race gets the winner's token
// (refresh-token reuse interval).
test('two clients refreshing the same token at once both stay signed in', async () => {
  const { session } = await signUpNewUser()
  const a = newClient()
  const b = newClient()
  for (const c of [a, b]) {
    const { error } = await c.auth.setSession({ access_token: session.access_token, refresh_token: session.refresh_token })
    assert.equal(error, null)
  }
  const [ra, rb] = await Promise.all([a.auth.refreshSession(), b.auth.refreshSession()])
  assert.equal(ra.error, null, `first: ${ra.error?.message}`)
  assert.equal(rb.error, null, `second: ${rb.error?.message}`)
  assert.equal(ra.data.session.refresh_token, rb.data.session.refresh_token, 'both hold the one live token')
  assert.notEqual(ra.data.session.refresh_token, session.refresh_token)

  // Both keep working, and can race again.
  const [ua, ub] = await Promise.all([a.auth.getUser(), b.auth.getUser()])
  assert.equal(ua.error, null)
  assert.equal(ub.error, null)
  const [ra2, rb2] = await Promise.all([a.auth.refreshSession(), b.auth.refreshSession()])
  assert.equal(ra2.error, null)
  assert.equal(rb2.error, null)
})

test('signOut ends the session on the server: its access token stops working', async () => {
  const { client, session } = await signUpNewUser()
  // Another client holding the same session, e.g. a second tab.
  const other = newClient()
  await other.auth.setSession({ access_token: session.access_token, refresh_token: session.refresh_token })
  const otherEvents = recordEvents(other)

  const { error } = await client.auth.signOut()
  assert.equal(error, null)
  const { data: after } = await client.auth.getSession()
  assert.equal(after.session, null)
  const own = await client.auth.getUser()
  assert.ok(isAuthSessionMissingError(own.error), 'no session left locally')

  // The server refuses the old access token with session_not_found, which
  // supabase-js turns into AuthSessionMissingError and a sign-out.
  const res = await other.auth.getUser()
  assert.ok(isAuthSessionMissingError(res.error), `AuthSessionMissingError, got ${res.error?.name}: ${res.error?.message}`)
  await until(() => otherEvents.names().includes('SIGNED_OUT'), 'SIGNED_OUT on the other client')
  assert.equal((await other.auth.getSession()).data.session, null)
  otherEvents.stop()

  // Its refresh token is gone too.
  const raw = await rawFetch('/auth/v1/token?grant_type=refresh_token', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' },
    body: JSON.stringify({ refresh_token: session.refresh_token }),
  })
  assert.equal(raw.status, 400)
  assert.equal((await raw.json()).code, 'refresh_token_not_found')
})

test('signOut scopes: others keeps this session, local ends only this one', async () => {
  const { client, email, password } = await signUpNewUser()
  const second = newClient()
  await second.auth.signInWithPassword({ email, password })

  assert.equal((await client.auth.signOut({ scope: 'others' })).error, null)
  assert.equal((await client.auth.getUser()).error, null, 'own session kept')
  assert.ok(isAuthSessionMissingError((await second.auth.getUser()).error), 'other session ended')

  const third = newClient()
  await third.auth.signInWithPassword({ email, password })
  assert.equal((await client.auth.signOut({ scope: 'local' })).error, null)
  assert.equal((await client.auth.getSession()).data.session, null)
  assert.equal((await third.auth.getUser()).error, null, 'other session kept')
})

test('onAuthStateChange events come in the order supabase-wire.md recorded', async () => {
  const { inviteCode } = env()
  const client = newClient()
  const rec = recordEvents(client)
  const email = uniqueEmail('events')
  const password = 'pw-123456'
  assert.equal((await client.auth.signUp({ email, password, options: { data: { invite_code: inviteCode } } })).error, null)
  assert.equal((await client.auth.signOut()).error, null)
  assert.equal((await client.auth.signInWithPassword({ email, password })).error, null)
  assert.equal((await client.auth.getSession()).error, null)
  assert.equal((await client.auth.getUser()).error, null)
  assert.equal((await client.auth.updateUser({ password: 'newpass123' })).error, null)
  assert.equal((await client.auth.refreshSession()).error, null)
  assert.equal((await client.auth.signOut()).error, null)
  await until(() => rec.events.length >= 7, '7 events')
  await sleep(50)
  assert.deepEqual(rec.names(), ['INITIAL_SESSION', 'SIGNED_IN', 'SIGNED_OUT', 'SIGNED_IN', 'USER_UPDATED', 'TOKEN_REFRESHED', 'SIGNED_OUT'])
  assert.equal(rec.events[0].session, null)
  assert.equal(rec.events.at(-1).session, null)
  rec.stop()
})

test('the wire: settings, unsupported grants and the error shapes', async () => {
  const settings = await rawFetch('/auth/v1/settings')
  assert.equal(settings.status, 200)
  const s = await settings.json()
  assert.equal(s.external.email, true)
  assert.equal(s.mailer_autoconfirm, true)

  const grant = await rawFetch('/auth/v1/token?grant_type=magic', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' },
    body: '{}',
  })
  assert.equal(grant.status, 400)
  assert.equal(grant.headers.get('x-supabase-api-version'), '2024-01-01')
  assert.equal(grant.headers.get('x-sb-error-code'), 'invalid_credentials')
  assert.deepEqual(await grant.json(), { code: 'invalid_credentials', message: 'unsupported_grant_type' })

  // Without the version header: GoTrue's legacy shape.
  const legacy = await rawFetch('/auth/v1/token?grant_type=password', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"email":',
  })
  assert.equal(legacy.status, 400)
  const body = await legacy.json()
  assert.equal(body.code, 400)
  assert.equal(body.error_code, 'bad_json')
  assert.equal(typeof body.msg, 'string')
})
