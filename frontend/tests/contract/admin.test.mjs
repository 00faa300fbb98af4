// Contract suite for the admin users API and account recovery: the
// unmodified supabase-js (auth.admin.*, resetPasswordForEmail, verifyOtp,
// setSession, updateUser) against a live gateway whose mail is captured at
// /_dev/inbox (MAIL_DEV_INBOX, set by pkg/app's acceptance test).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { isAuthApiError } from '@supabase/supabase-js'

import { env, newClient, rawFetch, signUpNewUser, sleep, uniqueEmail } from './support.mjs'

const adminClient = () => newClient({ key: env().serviceRoleKey })

// Recovery mail goes out after /recover answers; poll the dev inbox (at most
// 10 s) for the newest link mailed to email that is not in `seen`.
async function mailedLink(email, seen = []) {
  const { url } = env()
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${url}/_dev/inbox?to=${encodeURIComponent(email)}`, { headers: { accept: 'application/json' } })
    assert.equal(res.status, 200)
    const msgs = await res.json()
    const links = msgs.map((m) => m.text.match(/https?:\/\/\S+\/auth\/v1\/verify\?\S+/)?.[0]).filter(Boolean)
    const fresh = links.find((l) => !seen.includes(l))
    if (fresh) return fresh
    await sleep(50)
  }
  assert.fail(`no recovery mail for ${email}`)
}

// Opens a link without following the redirect and returns the fragment.
async function follow(link) {
  const res = await fetch(link, { redirect: 'manual' })
  assert.equal(res.status, 303)
  const loc = new URL(res.headers.get('location'))
  return { loc, frag: new URLSearchParams(loc.hash.slice(1)) }
}

test('admin calls need the service_role key (403 not_admin)', async () => {
  const { client } = await signUpNewUser()
  for (const c of [newClient(), client]) {
    const { data, error } = await c.auth.admin.listUsers()
    assert.ok(isAuthApiError(error))
    assert.equal(error.status, 403)
    assert.equal(error.code, 'not_admin')
    assert.deepEqual(data.users, [])
  }
})

test('auth.admin: create without an invite, get, list with paging, update, ban, delete', async () => {
  const admin = adminClient()
  const email = uniqueEmail('admin')
  const created = await admin.auth.admin.createUser({
    email,
    password: 'pw-admin-1',
    email_confirm: true,
    user_metadata: { display_name: 'Admin-made' },
    app_metadata: { plan: 'gold' },
  })
  assert.equal(created.error, null)
  const user = created.data.user
  assert.equal(user.email, email)
  assert.equal(user.user_metadata.display_name, 'Admin-made')
  assert.equal(user.app_metadata.plan, 'gold')
  assert.ok(user.email_confirmed_at)

  const member = newClient()
  assert.equal((await member.auth.signInWithPassword({ email, password: 'pw-admin-1' })).error, null)

  const dup = await admin.auth.admin.createUser({ email })
  assert.equal(dup.error?.code, 'email_exists')
  assert.equal(dup.error?.status, 422)

  const got = await admin.auth.admin.getUserById(user.id)
  assert.equal(got.error, null)
  assert.equal(got.data.user.id, user.id)
  const missing = await admin.auth.admin.getUserById('00000000-0000-0000-0000-00000000beef')
  assert.equal(missing.error?.status, 404)
  assert.equal(missing.error?.code, 'user_not_found')

  await admin.auth.admin.createUser({ email: uniqueEmail('admin2') })
  const all = await admin.auth.admin.listUsers({ page: 1, perPage: 1000 })
  assert.equal(all.error, null)
  assert.ok(all.data.users.some((u) => u.id === user.id))
  assert.equal(all.data.total, all.data.users.length)
  const page1 = await admin.auth.admin.listUsers({ page: 1, perPage: 2 })
  assert.equal(page1.error, null)
  assert.equal(page1.data.users.length, 2)
  assert.equal(page1.data.total, all.data.total)
  assert.equal(page1.data.nextPage, 2)
  const page2 = await admin.auth.admin.listUsers({ page: 2, perPage: 2 })
  assert.equal(page2.error, null)
  assert.ok(!page2.data.users.some((u) => page1.data.users.some((p) => p.id === u.id)), 'pages do not overlap')

  const upd = await admin.auth.admin.updateUserById(user.id, { app_metadata: { plan: 'silver' }, ban_duration: '24h' })
  assert.equal(upd.error, null)
  assert.equal(upd.data.user.app_metadata.plan, 'silver')
  assert.ok(upd.data.user.banned_until === undefined || upd.data.user.banned_until)
  const banned = await newClient().auth.signInWithPassword({ email, password: 'pw-admin-1' })
  assert.equal(banned.error?.code, 'invalid_credentials')
  const bad = await admin.auth.admin.updateUserById(user.id, { ban_duration: 'a while' })
  assert.equal(bad.error?.status, 400)
  assert.equal((await admin.auth.admin.updateUserById(user.id, { ban_duration: 'none', password: 'pw-admin-2' })).error, null)
  assert.equal((await newClient().auth.signInWithPassword({ email, password: 'pw-admin-2' })).error, null)

  const del = await admin.auth.admin.deleteUser(user.id)
  assert.equal(del.error, null)
  assert.equal((await admin.auth.admin.getUserById(user.id)).error?.code, 'user_not_found')
  assert.equal((await admin.auth.admin.deleteUser(user.id)).error?.status, 404)
})

test('ordinary sign-up still needs an invite code', async () => {
  const { error } = await newClient().auth.signUp({ email: uniqueEmail('noinvite'), password: 'pw-123456' })
  assert.equal(error?.code, 'invalid_invite_code')
})

test('recovery: request, mailed link, session, new password, sign-in; the link works once', async () => {
  const { email, password } = await signUpNewUser()
  const { url } = env()
  const client = newClient()
  const { data, error } = await client.auth.resetPasswordForEmail(email, { redirectTo: `${url}/reset-password` })
  assert.equal(error, null)
  assert.deepEqual(data, {})
  const link = await mailedLink(email)

  const { loc, frag } = await follow(link)
  assert.equal(loc.origin + loc.pathname, `${url}/reset-password`)
  assert.equal(frag.get('type'), 'recovery')
  const set = await client.auth.setSession({ access_token: frag.get('access_token'), refresh_token: frag.get('refresh_token') })
  assert.equal(set.error, null)
  assert.equal(set.data.user.email, email)
  const upd = await client.auth.updateUser({ password: 'pw-recovered-1' })
  assert.equal(upd.error, null)

  assert.equal((await newClient().auth.signInWithPassword({ email, password })).error?.code, 'invalid_credentials')
  assert.equal((await newClient().auth.signInWithPassword({ email, password: 'pw-recovered-1' })).error, null)

  const again = await follow(link)
  assert.equal(again.frag.get('error'), 'access_denied')
  assert.equal(again.frag.get('error_code'), 'otp_expired')
})

test('recovery with PKCE: the link redirects with a code only the asking client can exchange', async () => {
  const { email, password } = await signUpNewUser()
  const { url } = env()
  const client = newClient({ auth: { flowType: 'pkce' } })
  const { error } = await client.auth.resetPasswordForEmail(email, { redirectTo: `${url}/reset-password` })
  assert.equal(error, null)
  const link = await mailedLink(email)

  const res = await fetch(link, { redirect: 'manual' })
  assert.equal(res.status, 303)
  const loc = new URL(res.headers.get('location'))
  assert.equal(loc.origin + loc.pathname, `${url}/reset-password`)
  assert.equal(loc.hash, '', 'a PKCE redirect carries no session in the fragment')
  const code = loc.searchParams.get('code')
  assert.ok(code)

  // Another client (no code verifier) cannot use the code.
  const stranger = await newClient({ auth: { flowType: 'pkce' } }).auth.exchangeCodeForSession(code)
  assert.ok(stranger.error)

  const ex = await client.auth.exchangeCodeForSession(code)
  assert.equal(ex.error, null)
  assert.equal(ex.data.user.email, email)
  const claims = await client.auth.getClaims()
  assert.equal(claims.error, null)
  assert.equal(claims.data.claims.amr[0].method, 'recovery')
  assert.equal((await client.auth.updateUser({ password: 'pw-pkce-1' })).error, null)
  assert.equal((await newClient().auth.signInWithPassword({ email, password })).error?.code, 'invalid_credentials')
  assert.equal((await newClient().auth.signInWithPassword({ email, password: 'pw-pkce-1' })).error, null)

  // The code works once, and so does the link.
  const { verifier } = await rawPKCEReuse(code)
  assert.equal(verifier.status, 404)
  assert.equal(verifier.body.error_code, 'flow_state_not_found')
  const again = await follow(link)
  assert.equal(again.frag.get('error_code'), 'otp_expired')
})

// Sends the exchange again by hand (supabase-js forgets the verifier once it
// is used), with a made-up verifier: a spent code is not found whatever the verifier.
async function rawPKCEReuse(code) {
  const { url, anonKey } = env()
  const res = await fetch(`${url}/auth/v1/token?grant_type=pkce`, {
    method: 'POST',
    headers: { apikey: anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ auth_code: code, code_verifier: 'x'.repeat(43) }),
  })
  return { verifier: { status: res.status, body: await res.json() } }
}

test('recovery: verifyOtp with the token hash, and the same answer for unknown emails', async () => {
  const { email } = await signUpNewUser()
  const known = await newClient().auth.resetPasswordForEmail(email)
  const unknown = await newClient().auth.resetPasswordForEmail(uniqueEmail('stranger'))
  assert.deepEqual(known, unknown)
  const token = new URL(await mailedLink(email)).searchParams.get('token')

  const client = newClient()
  const v = await client.auth.verifyOtp({ type: 'recovery', token_hash: token })
  assert.equal(v.error, null)
  assert.equal(v.data.user.email, email)
  assert.ok(v.data.session.access_token)
  assert.equal((await client.auth.updateUser({ password: 'pw-otp-2' })).error, null)
  const reused = await newClient().auth.verifyOtp({ type: 'recovery', token_hash: token })
  assert.equal(reused.error?.code, 'otp_expired')
})

test('auth.admin.generateLink returns a working recovery link', async () => {
  const { email } = await signUpNewUser()
  const { data, error } = await adminClient().auth.admin.generateLink({ type: 'recovery', email })
  assert.equal(error, null)
  assert.equal(data.user.email, email)
  assert.equal(data.properties.verification_type, 'recovery')
  const { frag } = await follow(data.properties.action_link)
  assert.ok(frag.get('access_token'))
  const res = await rawFetch('/auth/v1/admin/generate_link', {
    method: 'POST',
    headers: { authorization: `Bearer ${env().anonKey}` },
    body: JSON.stringify({ type: 'recovery', email }),
  })
  assert.equal(res.status, 403)
  assert.equal((await res.json()).error_code, 'not_admin')
})
