import { beforeEach, describe, expect, it, vi } from 'vitest'
import { messages } from '@/config/messages'
import { messageFor, RequestError } from '@/lib/errors'
import * as lib from '@/lib/supabase'
import { changePassword, newPasswordProblem } from './change-password'
import { login } from './login'
import { signUpWithInvite, validateInviteCode } from './sign-up'

vi.mock('@/lib/supabase', () => ({
  rpc: vi.fn(),
  signUp: vi.fn(),
  signInWithPassword: vi.fn(),
  checkPassword: vi.fn(),
  updatePassword: vi.fn(),
  assuranceLevels: vi.fn(),
}))
const m = vi.mocked(lib)
const user = { id: 'u1', email: 'a@b.test' }
const ok = { user, session: { user } }
const refused = (message: string) => new RequestError(message, 400, 'invalid_credentials')

/** What the form shows for a call: 'ok' and its result, or its UserError's words / the fallback. */
async function outcome<T>(call: Promise<T>, fallback: string) {
  try {
    return { ok: true, result: await call }
  } catch (error) {
    return { ok: false, message: messageFor(error, fallback) }
  }
}

beforeEach(() => vi.resetAllMocks())

describe('validateInviteCode', () => {
  it.each([
    [{ valid: true }, true],
    [{ valid: false }, false],
    [[{ valid: true }], true],
    [true, true],
    [null, false],
  ])('reads %j as %s', async (data, expected) => {
    m.rpc.mockResolvedValue(data as never)
    expect(await validateInviteCode('CODE')).toBe(expected)
    expect(m.rpc).toHaveBeenCalledWith('validate_invite_code', { code_param: 'CODE' })
  })

  it('treats a failed call as invalid', async () => {
    m.rpc.mockRejectedValue(new RequestError('x', 500))
    expect(await validateInviteCode('CODE')).toBe(false)
  })
})

describe('signUpWithInvite', () => {
  const input = { email: 'a@b.test', password: 'secret1', confirm: 'secret1', inviteCode: 'GOOD' }
  const fallback = messages.auth.signupFailed

  it('checks the confirmation before any request', async () => {
    expect(await outcome(signUpWithInvite({ ...input, confirm: 'secret2' }), fallback)).toEqual({ ok: false, message: messages.auth.passwordsDoNotMatch })
    expect(m.rpc).not.toHaveBeenCalled()
  })

  it('stops at an invalid invite without creating the account', async () => {
    m.rpc.mockResolvedValue({ valid: false } as never)
    expect(await outcome(signUpWithInvite({ ...input, inviteCode: 'BAD' }), fallback)).toEqual({ ok: false, message: messages.auth.invalidInviteCode })
    expect(m.signUp).not.toHaveBeenCalled()
  })

  it('passes the invite as metadata and the origin as redirect, then signs in', async () => {
    m.rpc.mockResolvedValue({ valid: true } as never)
    m.signUp.mockResolvedValue({ user, session: null })
    m.signInWithPassword.mockResolvedValue(ok)
    expect(await signUpWithInvite(input)).toEqual({ signedIn: true })
    expect(m.signUp).toHaveBeenCalledWith('a@b.test', 'secret1', { invite_code: 'GOOD' }, window.location.origin)
    expect(m.signInWithPassword).toHaveBeenCalledWith('a@b.test', 'secret1')
  })

  it('does not sign in again when sign-up returned a session', async () => {
    m.rpc.mockResolvedValue({ valid: true } as never)
    m.signUp.mockResolvedValue(ok)
    expect(await signUpWithInvite(input)).toEqual({ signedIn: true })
    expect(m.signInWithPassword).not.toHaveBeenCalled()
  })

  it('asks for a manual sign-in when the automatic one fails', async () => {
    m.rpc.mockResolvedValue({ valid: true } as never)
    m.signUp.mockResolvedValue({ user, session: null })
    m.signInWithPassword.mockRejectedValue(refused('Email not confirmed'))
    expect(await signUpWithInvite(input)).toEqual({ signedIn: false })
  })

  it('reports the server message, or the fallbacks', async () => {
    m.rpc.mockResolvedValue({ valid: true } as never)
    m.signUp.mockRejectedValueOnce(refused('User already registered'))
    expect(await outcome(signUpWithInvite(input), fallback)).toEqual({ ok: false, message: 'User already registered' })
    m.signUp.mockResolvedValueOnce({ user: null, session: null })
    expect(await outcome(signUpWithInvite(input), fallback)).toEqual({ ok: false, message: messages.auth.signupNoUser })
    m.signUp.mockRejectedValueOnce(new Error('boom'))
    expect(await outcome(signUpWithInvite(input), fallback)).toEqual({ ok: false, message: messages.auth.signupFailed })
  })
})

describe('login', () => {
  const input = { email: 'a@b.test', password: 'pw' }
  const fallback = messages.auth.loginFailed

  it('returns the server message, the no-user message or the fallback', async () => {
    m.assuranceLevels.mockResolvedValue({ current: 'aal1', next: 'aal1' })
    m.signInWithPassword.mockResolvedValueOnce(ok)
    expect(await outcome(login(input), fallback)).toEqual({ ok: true, result: { secondFactor: false } })
    m.signInWithPassword.mockRejectedValueOnce(refused('Invalid login credentials'))
    expect(await outcome(login(input), fallback)).toEqual({ ok: false, message: 'Invalid login credentials' })
    m.signInWithPassword.mockRejectedValueOnce(refused(''))
    expect(await outcome(login(input), fallback)).toEqual({ ok: false, message: messages.auth.loginFailed })
    m.signInWithPassword.mockResolvedValueOnce({ user: null, session: null })
    expect(await outcome(login(input), fallback)).toEqual({ ok: false, message: messages.auth.loginNoUser })
    m.signInWithPassword.mockRejectedValueOnce(new Error('boom'))
    expect(await outcome(login(input), fallback)).toEqual({ ok: false, message: messages.auth.loginFailed })
  })

  it('reports a code step when the account has an authenticator app (aal2 next)', async () => {
    m.signInWithPassword.mockResolvedValue(ok)
    m.assuranceLevels.mockResolvedValueOnce({ current: 'aal1', next: 'aal2' })
    expect(await login(input)).toEqual({ secondFactor: true })
    m.assuranceLevels.mockResolvedValueOnce({ current: 'aal1', next: 'aal1' })
    expect(await login(input)).toEqual({ secondFactor: false })
    m.assuranceLevels.mockRejectedValueOnce(new RequestError('offline', 0))
    expect(await login(input)).toEqual({ secondFactor: false })
  })
})

describe('changePassword', () => {
  const input = { email: 'a@b.test', current: 'old', next: 'newpass1', confirm: 'newpass1' }
  const fallback = messages.auth.changePasswordFailed

  it('checks the rules in order before any request', async () => {
    expect(newPasswordProblem('abcdef', 'abcdeg')).toBe('New passwords do not match')
    expect(newPasswordProblem('abc', 'abc')).toBe('New password should be at least 6 characters')
    expect(newPasswordProblem('abcdef', 'abcdef')).toBeNull()
    expect(await outcome(changePassword({ ...input, next: 'abc', confirm: 'abc' }), fallback)).toEqual({
      ok: false,
      message: messages.auth.newPasswordTooShort,
    })
    expect(m.checkPassword).not.toHaveBeenCalled()
  })

  it('verifies the current password with a separate sign-in', async () => {
    m.checkPassword.mockRejectedValue(refused('Invalid login credentials'))
    expect(await outcome(changePassword({ ...input, current: 'wrong' }), fallback)).toEqual({ ok: false, message: 'Current password is incorrect' })
    expect(m.checkPassword).toHaveBeenCalledWith('a@b.test', 'wrong')
    expect(m.updatePassword).not.toHaveBeenCalled()
  })

  it('updates the password, or reports the failure', async () => {
    m.checkPassword.mockResolvedValue(user)
    m.updatePassword.mockResolvedValueOnce()
    expect(await outcome(changePassword(input), fallback)).toEqual({ ok: true, result: undefined })
    expect(m.updatePassword).toHaveBeenCalledWith('newpass1')
    m.updatePassword.mockRejectedValueOnce(new RequestError('same_password', 422))
    expect(await outcome(changePassword(input), fallback)).toEqual({ ok: false, message: messages.auth.changePasswordFailed })
  })
})
