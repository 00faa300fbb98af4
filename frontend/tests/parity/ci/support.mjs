// Helpers for the CI-style suite: the shared clients, a signer for tokens
// of our own (HS256 with the gateway's JWT secret), and a bounded wait for
// a configuration change announced with NOTIFY pgrst, 'reload config'.
import { createHmac } from 'node:crypto'
import assert from 'node:assert/strict'

export { client, raw } from '../support.mjs'

/** An HS256 token with claims (iat/exp added), signed as GoTrue would. */
export function sign(claims) {
  const secret = process.env.LABELBASE_JWT_SECRET
  if (!secret) throw new Error('LABELBASE_JWT_SECRET is not set (run via go test -run TestParityCISuite ./pkg/app)')
  const enc = (o) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const now = Math.floor(Date.now() / 1000)
  const head = enc({ alg: 'HS256', typ: 'JWT' })
  const body = enc({ iat: now, exp: now + 3600, ...claims })
  const sig = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url')
  return `${head}.${body}.${sig}`
}

/**
 * Waits until check() holds: the gateway applies a reload when its
 * listener gets the notification, shortly after the change commits.
 */
export async function eventually(check, what) {
  for (let i = 0; i < 400; i++) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 25))
  }
  assert.fail(`${what}: not applied after NOTIFY pgrst, 'reload config'`)
}
