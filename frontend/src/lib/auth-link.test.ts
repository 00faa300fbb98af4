import { describe, expect, it } from 'vitest'
import { parseAuthLink } from './auth-link'

describe('parseAuthLink', () => {
  it('finds a recovery session in the fragment, on any route', () => {
    expect(parseAuthLink('http://127.0.0.1:8099/#access_token=a.b.c&expires_in=3600&refresh_token=r&token_type=bearer&type=recovery')).toEqual({
      recovery: true,
      error: null,
    })
    expect(parseAuthLink('http://x.test/labels#access_token=a&type=recovery').recovery).toBe(true)
  })

  it('does not take a sign-in or a bare type for recovery', () => {
    expect(parseAuthLink('http://x.test/#access_token=a&type=signup').recovery).toBe(false)
    expect(parseAuthLink('http://x.test/#type=recovery').recovery).toBe(false)
    expect(parseAuthLink('http://x.test/reset-password')).toEqual({ recovery: false, error: null })
  })

  it('reads a used or expired link from the fragment or the query', () => {
    expect(parseAuthLink('http://x.test/#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired')).toEqual({
      recovery: false,
      error: { code: 'otp_expired', description: 'Email link is invalid or has expired' },
    })
    expect(
      parseAuthLink('http://x.test/?error=access_denied&error_code=flow_state_not_found&error_description=No+associated+flow+state+found.').error?.code,
    ).toBe('flow_state_not_found')
    expect(parseAuthLink('http://x.test/#error=server_error').error).toEqual({ code: 'server_error', description: '' })
  })

  it('survives a malformed address', () => {
    expect(parseAuthLink('not a url')).toEqual({ recovery: false, error: null })
  })
})
