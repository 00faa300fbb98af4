// Contract suite for GoTrue's email flows and disabled features: the
// unmodified supabase-js (signInWithOtp, verifyOtp, resend, reauthenticate,
// updateUser, auth.admin.inviteUserByEmail and generateLink, and the
// sign-in methods Labelbase does not offer) against a live gateway whose
// mail is captured at /_dev/inbox. pkg/app's acceptance test also starts a
// "plain" gateway (LABELBASE_PLAIN_URL: INVITE_REQUIRED=false,
// MAILER_AUTOCONFIRM=false) for sign-up without an invite and confirmed
// email changes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createClient } from '@supabase/supabase-js'

import { env, memoryStorage, newClient, plainURL, signUpNewUser, sleep, uniqueEmail } from './support.mjs'

const adminClient = () => newClient({ key: env().serviceRoleKey })

function plainClient() {
  return createClient(plainURL(), env().anonKey, {
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

// Mail goes out after the answer; poll the inbox of base (at most 10 s)
// for the newest mail to email beyond the first `skip`, and return its link
// and six-digit code.
async function mailed(email, { base = env().url, skip = 0 } = {}) {
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${base}/_dev/inbox?to=${encodeURIComponent(email)}`, { headers: { accept: 'application/json' } })
    assert.equal(res.status, 200)
    const msgs = await res.json()
    if (msgs.length > skip) {
      const text = msgs[0].text
      return {
        link: text.match(/https?:\/\/\S+\/auth\/v1\/verify\?\S+/)?.[0],
        code: text.match(/code: (\d{6})/)?.[1],
        subject: msgs[0].subject,
        count: msgs.length,
      }
    }
    await sleep(50)
  }
  assert.fail(`no mail for ${email}`)
}

async function follow(link) {
  const res = await fetch(link, { redirect: 'manual' })
  assert.equal(res.status, 303)
  const loc = new URL(res.headers.get('location'))
  return { loc, frag: new URLSearchParams(loc.hash.slice(1)) }
}

test('signInWithOtp: the mailed code signs in once; the mailed link lands with a session', async () => {
  const { email } = await signUpNewUser()
  const client = newClient()
  const sent = await client.auth.signInWithOtp({ email, options: { shouldCreateUser: false } })
  assert.equal(sent.error, null)
  assert.equal(sent.data.session, null)
  const { code } = await mailed(email)
  assert.match(code, /^\d{6}$/)
  const v = await client.auth.verifyOtp({ email, token: code, type: 'email' })
  assert.equal(v.error, null)
  assert.equal(v.data.user.email, email)
  assert.equal((await client.auth.getUser()).data.user.email, email)
  const again = await newClient().auth.verifyOtp({ email, token: code, type: 'email' })
  assert.equal(again.error?.code, 'otp_expired')
  assert.equal(again.error?.status, 403)

  const { url } = env()
  assert.equal((await newClient().auth.signInWithOtp({ email, options: { emailRedirectTo: `${url}/feed` } })).error, null)
  const { link } = await mailed(email, { skip: 1 })
  const { loc, frag } = await follow(link)
  assert.equal(loc.pathname, '/feed')
  assert.equal(frag.get('type'), 'magiclink')
  const set = await newClient().auth.setSession({ access_token: frag.get('access_token'), refresh_token: frag.get('refresh_token') })
  assert.equal(set.error, null)
  assert.equal(set.data.user.email, email)
  // Used once: the same link now carries GoTrue's error.
  assert.equal((await follow(link)).frag.get('error_code'), 'otp_expired')
})

test('signInWithOtp with flowType pkce: the link redirects with a code only this client can exchange', async () => {
  const { email } = await signUpNewUser()
  const { url } = env()
  const client = newClient({ auth: { flowType: 'pkce' } })
  assert.equal((await client.auth.signInWithOtp({ email, options: { emailRedirectTo: `${url}/feed` } })).error, null)
  const { link } = await mailed(email)
  assert.ok(new URL(link).searchParams.get('token').startsWith('pkce_'))
  const { loc, frag } = await follow(link)
  assert.equal(frag.get('access_token'), null)
  const code = loc.searchParams.get('code')
  assert.ok(code)
  const other = await newClient({ auth: { flowType: 'pkce' } }).auth.exchangeCodeForSession(code)
  assert.ok(other.error, 'a client without the verifier cannot exchange the code')
  const ex = await client.auth.exchangeCodeForSession(code)
  assert.equal(ex.error, null)
  assert.equal(ex.data.user.email, email)
})

test('signInWithOtp with shouldCreateUser false for an unknown address: otp_disabled', async () => {
  const { error } = await newClient().auth.signInWithOtp({ email: uniqueEmail('nobody'), options: { shouldCreateUser: false } })
  assert.equal(error?.status, 422)
  assert.equal(error?.code, 'otp_disabled')
  assert.equal(error?.message, 'Signups not allowed for otp')
})

test('inviteUserByEmail → mailed link → session → password → sign-in', async () => {
  const email = uniqueEmail('invited')
  const { url } = env()
  const inv = await adminClient().auth.admin.inviteUserByEmail(email, { redirectTo: `${url}/welcome`, data: { name: 'Guest' } })
  assert.equal(inv.error, null)
  assert.ok(inv.data.user.invited_at)
  assert.equal(inv.data.user.email_confirmed_at ?? null, null)
  const { link } = await mailed(email)
  const { loc, frag } = await follow(link)
  assert.equal(loc.pathname, '/welcome')
  assert.equal(frag.get('type'), 'invite')
  const client = newClient()
  assert.equal((await client.auth.setSession({ access_token: frag.get('access_token'), refresh_token: frag.get('refresh_token') })).error, null)
  assert.equal((await client.auth.updateUser({ password: 'pw-invited-1' })).error, null)
  assert.equal((await newClient().auth.signInWithPassword({ email, password: 'pw-invited-1' })).error, null)
  const twice = await adminClient().auth.admin.inviteUserByEmail(email)
  assert.equal(twice.error?.code, 'email_exists')
  const member = await signUpNewUser()
  assert.equal((await member.client.auth.admin.inviteUserByEmail(uniqueEmail('x'))).error?.code, 'not_admin')
})

test('generateLink: every type returns GoTrue properties whose token verifies', async () => {
  const admin = adminClient()
  const { email } = await signUpNewUser()
  const newEmail = uniqueEmail('moved')
  const cases = [
    [{ type: 'signup', email: uniqueEmail('gen-signup'), password: 'pw-gen-123' }, 'signup'],
    [{ type: 'invite', email: uniqueEmail('gen-invite') }, 'invite'],
    [{ type: 'magiclink', email }, 'magiclink'],
    [{ type: 'recovery', email }, 'recovery'],
    [{ type: 'email_change_current', email, newEmail }, 'email_change'],
    [{ type: 'email_change_new', email: newEmail, newEmail: uniqueEmail('moved-again') }, 'email_change'],
  ]
  for (const [params, verification] of cases) {
    const { data, error } = await admin.auth.admin.generateLink(params)
    assert.equal(error, null, params.type)
    const p = data.properties
    assert.equal(p.verification_type, verification)
    assert.match(p.email_otp, /^\d{6}$/)
    assert.ok(p.hashed_token)
    assert.equal(new URL(p.action_link).searchParams.get('token'), p.hashed_token)
    assert.equal(p.redirect_to, env().url)
    const v = await newClient().auth.verifyOtp({ token_hash: p.hashed_token, type: verification })
    assert.equal(v.error, null, params.type)
    assert.ok(v.data.session?.access_token, params.type)
    // With autoconfirm, one email-change link moves the address at once;
    // the next case changes the moved account again.
  }
  const bad = await admin.auth.admin.generateLink({ type: 'magiclink', email: 'not-an-email' })
  assert.equal(bad.error?.code, 'validation_failed')
})

test('reauthenticate mails a nonce that updateUser accepts', async () => {
  const { client, email } = await signUpNewUser()
  const r = await client.auth.reauthenticate()
  assert.equal(r.error, null)
  const { code } = await mailed(email)
  assert.match(code, /^\d{6}$/)
  assert.equal((await client.auth.updateUser({ password: 'pw-reauth-1', nonce: code })).error, null)
  assert.equal((await newClient().auth.signInWithPassword({ email, password: 'pw-reauth-1' })).error, null)
})

test('features Labelbase does not offer answer as a GoTrue with them disabled', async () => {
  const c = newClient()
  const anon = await c.auth.signInAnonymously()
  assert.equal(anon.error?.code, 'anonymous_provider_disabled')
  assert.equal(anon.error?.status, 422)
  const sso = await c.auth.signInWithSSO({ domain: 'example.com' })
  assert.equal(sso.error?.code, 'saml_provider_disabled')
  assert.equal(sso.error?.status, 404)
  const idt = await c.auth.signInWithIdToken({ provider: 'google', token: 'x.y.z' })
  assert.equal(idt.error?.code, 'provider_disabled')
  const phone = await c.auth.signInWithOtp({ phone: '+15555550100' })
  assert.equal(phone.error?.code, 'phone_provider_disabled')
  const { client } = await signUpNewUser()
  const link = await client.auth.linkIdentity({ provider: 'github', options: { skipBrowserRedirect: true } })
  assert.equal(link.error?.code, 'manual_linking_disabled')
  assert.equal(link.error?.status, 404)
  const settings = await (await fetch(`${env().url}/auth/v1/settings`, { headers: { apikey: env().anonKey } })).json()
  assert.equal(settings.external.anonymous_users, false)
  assert.equal(settings.saml_enabled, false)
  assert.equal(settings.mailer_autoconfirm, true)
})

test('plain gateway: sign-up without an invite, confirmed by the mailed code; resend', async () => {
  const client = plainClient()
  const email = uniqueEmail('plain')
  const s = await client.auth.signUp({ email, password: 'pw-plain-1' })
  assert.equal(s.error, null)
  assert.equal(s.data.session, null)
  assert.equal(s.data.user.email, email)
  const early = await plainClient().auth.signInWithPassword({ email, password: 'pw-plain-1' })
  assert.equal(early.error?.code, 'email_not_confirmed')
  assert.equal((await client.auth.resend({ type: 'signup', email })).error, null)
  const { code, count } = await mailed(email, { base: plainURL(), skip: 1 })
  assert.equal(count, 2)
  const v = await client.auth.verifyOtp({ email, token: code, type: 'signup' })
  assert.equal(v.error, null)
  assert.ok(v.data.user.email_confirmed_at)
  assert.equal((await plainClient().auth.signInWithPassword({ email, password: 'pw-plain-1' })).error, null)
  const settings = await (await fetch(`${plainURL()}/auth/v1/settings`, { headers: { apikey: env().anonKey } })).json()
  assert.equal(settings.mailer_autoconfirm, false)
})

test('plain gateway: email change is confirmed from both addresses', async () => {
  const client = plainClient()
  const email = uniqueEmail('change-old')
  await client.auth.signUp({ email, password: 'pw-change-1' })
  const { code: confirm } = await mailed(email, { base: plainURL() })
  assert.equal((await client.auth.verifyOtp({ email, token: confirm, type: 'signup' })).error, null)
  const newEmail = uniqueEmail('change-new')
  const u = await client.auth.updateUser({ email: newEmail })
  assert.equal(u.error, null)
  assert.equal(u.data.user.email, email)
  assert.equal(u.data.user.new_email, newEmail)
  const oldMail = await mailed(email, { base: plainURL(), skip: 1 })
  const newMail = await mailed(newEmail, { base: plainURL() })
  const first = await client.auth.verifyOtp({ email, token: oldMail.code, type: 'email_change' })
  assert.equal(first.error, null)
  assert.equal(first.data.session, null)
  const second = await client.auth.verifyOtp({ email: newEmail, token: newMail.code, type: 'email_change' })
  assert.equal(second.error, null)
  assert.equal(second.data.user.email, newEmail)
  assert.equal((await plainClient().auth.signInWithPassword({ email: newEmail, password: 'pw-change-1' })).error, null)
})
