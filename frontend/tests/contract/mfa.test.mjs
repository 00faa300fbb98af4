// Contract suite for TOTP two-factor authentication: the unmodified
// supabase-js (auth.mfa.*, auth.admin.mfa.*) against a live gateway, and
// /rest/v1 under a row-level security policy that requires aal2 (the table
// public.mfa_probe_notes is created by pkg/app's acceptance test for this
// suite only, see mfa_fixture_test.go).
//
// The last test exhausts the MFA verify rate limit of this address, so it
// stays last.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { isAuthApiError } from '@supabase/supabase-js'

import { env, newClient, signUpNewUser } from './support.mjs'

// RFC 6238 TOTP (SHA-1, 30 s, 6 digits), written out so the test computes
// codes the way an authenticator app does, independently of the server's
// library. step shifts the time by that many 30-second steps.
function base32(s) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  let bits = 0
  let value = 0
  const out = []
  for (const ch of s.replace(/=+$/, '').toUpperCase()) {
    const i = alphabet.indexOf(ch)
    if (i < 0) throw new Error(`not base32: ${s}`)
    value = ((value << 5) | i) & 0xffff
    bits += 5
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff)
      bits -= 8
    }
  }
  return Buffer.from(out)
}

function totp(secret, step = 0) {
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30000) + step))
  const h = createHmac('sha1', base32(secret)).update(counter).digest()
  const o = h[h.length - 1] & 0xf
  return String((h.readUInt32BE(o) & 0x7fffffff) % 1_000_000).padStart(6, '0')
}

const adminClient = () => newClient({ key: env().serviceRoleKey })

function assertAuthError(error, status, code) {
  assert.ok(isAuthApiError(error), `expected an AuthApiError, got ${error}`)
  assert.equal(error.status, status, error.message)
  assert.equal(error.code, code, error.message)
}

// A signed-up user with a verified TOTP factor, in an aal2 session; code
// is the one that verified it.
async function userWithTOTP() {
  const u = await signUpNewUser()
  const { data: f, error } = await u.client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Authenticator' })
  assert.equal(error, null)
  const code = totp(f.totp.secret)
  const v = await u.client.auth.mfa.challengeAndVerify({ factorId: f.id, code })
  assert.equal(v.error, null)
  return { ...u, factorId: f.id, secret: f.totp.secret, code }
}

async function signIn(email, password) {
  const client = newClient()
  const { error } = await client.auth.signInWithPassword({ email, password })
  assert.equal(error, null)
  return client
}

async function levels(client) {
  const { data, error } = await client.auth.mfa.getAuthenticatorAssuranceLevel()
  assert.equal(error, null)
  return data
}

test('enroll → challenge → verify raises the session to aal2; RLS can require aal2; unenroll', async () => {
  const { client, email, password } = await signUpNewUser()
  assert.deepEqual((await levels(client)).nextLevel, 'aal1')

  const { data: f, error } = await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone', issuer: 'Labelbase' })
  assert.equal(error, null)
  assert.equal(f.type, 'totp')
  assert.equal(f.friendly_name, 'Phone')
  assert.ok(f.totp.qr_code.startsWith('data:image/svg+xml;utf-8,<svg'), f.totp.qr_code.slice(0, 40))
  assert.ok(f.totp.uri.startsWith('otpauth://totp/Labelbase:'), f.totp.uri)
  assert.ok(f.totp.uri.includes(`secret=${f.totp.secret}`))
  const listed = await client.auth.mfa.listFactors()
  assert.equal(listed.data.all.length, 1)
  assert.equal(listed.data.all[0].status, 'unverified')
  assert.deepEqual(listed.data.totp, [])

  // With aal1 the policy hides the rows and refuses writes.
  const refused = await client.from('mfa_probe_notes').insert({ body: 'secret plans' })
  assert.equal(refused.error?.code, '42501')

  const { data: ch, error: chErr } = await client.auth.mfa.challenge({ factorId: f.id })
  assert.equal(chErr, null)
  assert.equal(ch.type, 'totp')
  assert.ok(ch.expires_at > Date.now() / 1000)
  const events = []
  client.auth.onAuthStateChange((event) => events.push(event))
  const { data: session, error: vErr } = await client.auth.mfa.verify({ factorId: f.id, challengeId: ch.id, code: totp(f.totp.secret) })
  assert.equal(vErr, null)
  assert.ok(session.access_token)
  assert.ok(events.includes('MFA_CHALLENGE_VERIFIED'), events.join())
  const aal = await levels(client)
  assert.equal(aal.currentLevel, 'aal2')
  assert.equal(aal.nextLevel, 'aal2')
  assert.deepEqual(
    aal.currentAuthenticationMethods.map((m) => m.method),
    ['totp', 'password'],
  )
  assert.equal((await client.auth.mfa.listFactors()).data.totp.length, 1)

  // With aal2 the same policy lets the owner in.
  const ins = await client.from('mfa_probe_notes').insert({ body: 'secret plans' }).select('body')
  assert.equal(ins.error, null)
  assert.deepEqual(ins.data, [{ body: 'secret plans' }])

  // A new password sign-in is aal1 with aal2 next: the app asks for a code.
  const second = await signIn(email, password)
  const next = await levels(second)
  assert.equal(next.currentLevel, 'aal1')
  assert.equal(next.nextLevel, 'aal2')
  const hidden = await second.from('mfa_probe_notes').select('body')
  assert.equal(hidden.error, null)
  assert.deepEqual(hidden.data, [])
  const unenrollAAL1 = await second.auth.mfa.unenroll({ factorId: f.id })
  assertAuthError(unenrollAAL1.error, 422, 'insufficient_aal')

  const passed = await second.auth.mfa.challengeAndVerify({ factorId: f.id, code: totp(f.totp.secret, 1) })
  assert.equal(passed.error, null)
  assert.equal((await levels(second)).currentLevel, 'aal2')
  const shown = await second.from('mfa_probe_notes').select('body')
  assert.deepEqual(shown.data, [{ body: 'secret plans' }])

  const { data: gone, error: uErr } = await second.auth.mfa.unenroll({ factorId: f.id })
  assert.equal(uErr, null)
  assert.equal(gone.id, f.id)
  await second.auth.refreshSession()
  const after = await levels(second)
  assert.equal(after.currentLevel, 'aal1')
  assert.equal(after.nextLevel, 'aal1')
  assert.deepEqual((await second.auth.mfa.listFactors()).data.all, [])
})

test('a TOTP code is single-use', async () => {
  const { email, password, factorId, secret, code } = await userWithTOTP()
  const other = await signIn(email, password)
  // The very code that verified, not totp(secret) again: across a 30 s
  // boundary that would be the next, unused code.
  const again = await other.auth.mfa.challengeAndVerify({ factorId, code })
  assertAuthError(again.error, 422, 'mfa_verification_failed')
  assert.equal((await levels(other)).currentLevel, 'aal1')
  const fresh = await other.auth.mfa.challengeAndVerify({ factorId, code: totp(secret, 1) })
  assert.equal(fresh.error, null)
  assert.equal((await levels(other)).currentLevel, 'aal2')
})

test('refusals carry GoTrue codes', async () => {
  const { client, factorId, secret, email, password } = await userWithTOTP()
  // With a verified factor, the password alone may not change the password or the email.
  const weak = await signIn(email, password)
  assertAuthError((await weak.auth.updateUser({ password: 'a-new-password-1' })).error, 401, 'insufficient_aal')
  assertAuthError((await weak.auth.updateUser({ email: `x-${email}` })).error, 401, 'insufficient_aal')
  const wrong = totp(secret, 1) === '000000' ? '111111' : '000000'
  assertAuthError((await client.auth.mfa.challengeAndVerify({ factorId, code: wrong })).error, 422, 'mfa_verification_failed')
  const unknown = '00000000-0000-4000-8000-000000000000'
  assertAuthError((await client.auth.mfa.challenge({ factorId: unknown })).error, 404, 'mfa_factor_not_found')
  const phone = await client.auth.mfa.enroll({ factorType: 'phone', phone: '+15550100' })
  assertAuthError(phone.error, 422, 'mfa_phone_enroll_not_enabled')
  assert.equal((await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Tablet' })).error, null)
  const dup = await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Tablet' })
  assertAuthError(dup.error, 422, 'mfa_factor_name_conflict')
  const signedOut = newClient()
  const noSession = await signedOut.auth.mfa.enroll({ factorType: 'totp' })
  assert.ok(noSession.error)
  assert.equal(noSession.data, null)
})

test('auth.admin.mfa lists and deletes a user’s factors', async () => {
  const { client, user, factorId, email, password } = await userWithTOTP()
  const admin = adminClient()
  const { data, error } = await admin.auth.admin.mfa.listFactors({ userId: user.id })
  assert.equal(error, null)
  assert.equal(data.factors.length, 1)
  assert.equal(data.factors[0].id, factorId)
  assert.equal(data.factors[0].status, 'verified')
  assert.equal(data.factors[0].secret, undefined)
  const denied = await client.auth.admin.mfa.listFactors({ userId: user.id })
  assertAuthError(denied.error, 403, 'not_admin')

  const del = await admin.auth.admin.mfa.deleteFactor({ userId: user.id, id: factorId })
  assert.equal(del.error, null)
  // auth-js hands back _request's own { data, error } wrapper here.
  assert.equal(del.data.data.id, factorId)
  assert.deepEqual((await admin.auth.admin.mfa.listFactors({ userId: user.id })).data.factors, [])
  // The member signs in with the password alone again.
  const back = await signIn(email, password)
  const l = await levels(back)
  assert.equal(l.currentLevel, 'aal1')
  assert.equal(l.nextLevel, 'aal1')
})

test('guessing codes is rate-limited (GoTrue: 15 a minute, bursts of 30, per address)', async () => {
  const { client, email, password, factorId, secret } = await userWithTOTP()
  const guesser = await signIn(email, password)
  const { data: ch } = await guesser.auth.mfa.challenge({ factorId })
  const right = totp(secret, 1)
  let attempts = 0
  let limited = null
  for (let guess = 100000; attempts < 40 && !limited; guess++) {
    const code = String(guess)
    if (code === right || code === totp(secret)) continue
    attempts++
    const { error } = await guesser.auth.mfa.verify({ factorId, challengeId: ch.id, code })
    if (error?.status === 429) limited = error
    else assertAuthError(error, 422, 'mfa_verification_failed')
  }
  assert.ok(limited, `no 429 after ${attempts} wrong codes`)
  assert.ok(attempts <= 31, `${attempts} attempts before the limit`)
  assertAuthError(limited, 429, 'over_request_rate_limit')
  // Even the right code waits now.
  const blocked = await guesser.auth.mfa.verify({ factorId, challengeId: ch.id, code: right })
  assertAuthError(blocked.error, 429, 'over_request_rate_limit')
  assert.equal((await levels(guesser)).currentLevel, 'aal1')
  assert.equal((await levels(client)).currentLevel, 'aal2')
})
