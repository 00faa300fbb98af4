/**
 * Test helpers for the security feature: a session stored where supabase-js looks for it, and
 * MSW handlers answering GoTrue's /factors endpoints as the gateway does.
 */
import { fireEvent, screen, waitFor } from '@testing-library/react'
import { http, HttpResponse } from 'msw'
import { testUser } from '@/testing/test-utils'

export const factorId = '22222222-2222-4222-8222-222222222222'
export const challengeId = '33333333-3333-4333-8333-333333333333'

type Factor = { id: string; status: 'verified' | 'unverified'; factor_type: 'totp'; friendly_name: string; created_at: string; updated_at: string }

export function totpFactor(status: Factor['status'], id = factorId): Factor {
  return { id, status, factor_type: 'totp', friendly_name: 'Authenticator app', created_at: '2026-03-14T09:00:00Z', updated_at: '2026-03-14T09:00:00Z' }
}

const b64url = (value: object) => btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')

/** An unsigned access token with the claims supabase-js reads (it never checks the signature). */
export function accessToken(aal: 'aal1' | 'aal2') {
  const now = Math.floor(Date.now() / 1000)
  return `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({
    sub: testUser.id,
    email: testUser.email,
    role: 'authenticated',
    aud: 'authenticated',
    aal,
    amr:
      aal === 'aal2'
        ? [
            { method: 'totp', timestamp: now },
            { method: 'password', timestamp: now },
          ]
        : [{ method: 'password', timestamp: now }],
    session_id: '44444444-4444-4444-8444-444444444444',
    exp: now + 3600,
    iat: now,
  })}.c2ln`
}

export function userWith(factors: Factor[]) {
  return {
    id: testUser.id,
    aud: 'authenticated',
    role: 'authenticated',
    email: testUser.email,
    app_metadata: {},
    user_metadata: {},
    identities: [],
    factors,
    created_at: '2026-01-01T00:00:00Z',
  }
}

export function sessionBody(aal: 'aal1' | 'aal2', factors: Factor[]) {
  return {
    access_token: accessToken(aal),
    token_type: 'bearer',
    expires_in: 3600,
    expires_at: Math.floor(Date.now() / 1000) + 3600,
    refresh_token: `refresh-${aal}`,
    user: userWith(factors),
  }
}

/** Stores a session as supabase-js does (its key for a gateway on localhost). */
export function storeSession(aal: 'aal1' | 'aal2', factors: Factor[]) {
  window.localStorage.setItem('sb-localhost-auth-token', JSON.stringify(sessionBody(aal, factors)))
}

export interface Calls {
  requests: string[]
  verifyBodies: unknown[]
}

/**
 * /user lists `factors()`; challenge answers; verify answers `verify()` (a Response) or a
 * new aal2 session with the factor verified.
 */
export function factorHandlers(calls: Calls, factors: () => Factor[], verify?: () => Response | undefined) {
  const record = (request: Request) => calls.requests.push(`${request.method} ${new URL(request.url).pathname.replace('/auth/v1', '')}`)
  return [
    http.get('*/auth/v1/user', ({ request }) => {
      record(request)
      return HttpResponse.json(userWith(factors()))
    }),
    http.post('*/auth/v1/factors', ({ request }) => {
      record(request)
      return HttpResponse.json({
        id: factorId,
        type: 'totp',
        friendly_name: 'Authenticator app',
        totp: {
          qr_code: '<svg xmlns="http://www.w3.org/2000/svg"></svg>',
          secret: 'JBSWY3DPEHPK3PXP',
          uri: 'otpauth://totp/Labelbase:member@example.test?secret=JBSWY3DPEHPK3PXP',
        },
      })
    }),
    http.post('*/auth/v1/factors/:id/challenge', ({ request }) => {
      record(request)
      return HttpResponse.json({ id: challengeId, type: 'totp', expires_at: Math.floor(Date.now() / 1000) + 300 })
    }),
    http.post('*/auth/v1/factors/:id/verify', async ({ request }) => {
      record(request)
      calls.verifyBodies.push(await request.json())
      return verify?.() ?? HttpResponse.json(sessionBody('aal2', [totpFactor('verified')]))
    }),
    http.delete('*/auth/v1/factors/:id', ({ request, params }) => {
      record(request)
      return HttpResponse.json({ id: params.id })
    }),
  ]
}

export function gotrueError(status: number, code: string, msg: string) {
  return HttpResponse.json({ code: status, error_code: code, msg }, { status })
}

/**
 * Types a code into the second step and presses Verify once the button is enabled: the field
 * shows before the factors have loaded, and until they have, the button is disabled and a click
 * does nothing (a test that clicked then waited for the answer failed on a slow run).
 */
export async function submitCode(code: string) {
  fireEvent.change(screen.getByLabelText('Authentication code'), { target: { value: code } })
  const verify = () => screen.getByRole('button', { name: 'Verify' }) as HTMLButtonElement
  await waitFor(() => {
    if (verify().disabled) throw new Error('Verify is still disabled')
  })
  fireEvent.click(verify())
}
