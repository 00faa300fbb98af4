import { beforeEach, describe, expect, it, vi } from 'vitest'
import { messages } from '@/config/messages'
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
const ok = { user, session: { user }, error: null }
const authError = (message: string) => ({ user: null, session: null, error: { message, status: 400, code: 'invalid_credentials' } })

beforeEach(() => vi.resetAllMocks())

describe('validateInviteCode', () => {
  it.each([
    [{ valid: true }, true],
    [{ valid: false }, false],
    [[{ valid: true }], true],
    [true, true],
    [null, false],
  ])('reads %j as %s', async (data, expected) => {
    m.rpc.mockResolvedValue({ data, error: null })
    expect(await validateInviteCode('CODE')).toBe(expected)
    expect(m.rpc).toHaveBeenCalledWith('validate_invite_code', { code_param: 'CODE' })
  })

  it('treats a failed call as invalid', async () => {
    m.rpc.mockResolvedValue({ data: null, error: { message: 'x', status: 500 } })
    expect(await validateInviteCode('CODE')).toBe(false)
  })
})

describe('signUpWithInvite', () => {
  it('stops at an invalid invite without creating the account', async () => {
    m.rpc.mockResolvedValue({ data: { valid: false }, error: null })
    expect(await signUpWithInvite('a@b.test', 'secret1', 'BAD')).toEqual({ ok: false, message: messages.auth.invalidInviteCode })
    expect(m.signUp).not.toHaveBeenCalled()
  })

  it('passes the invite as metadata and the origin as redirect, then signs in', async () => {
    m.rpc.mockResolvedValue({ data: { valid: true }, error: null })
    m.signUp.mockResolvedValue({ user, session: null, error: null })
    m.signInWithPassword.mockResolvedValue(ok)
    expect(await signUpWithInvite('a@b.test', 'secret1', 'GOOD')).toEqual({ ok: true, signedIn: true })
    expect(m.signUp).toHaveBeenCalledWith('a@b.test', 'secret1', { invite_code: 'GOOD' }, window.location.origin)
    expect(m.signInWithPassword).toHaveBeenCalledWith('a@b.test', 'secret1')
  })

  it('does not sign in again when sign-up returned a session', async () => {
    m.rpc.mockResolvedValue({ data: { valid: true }, error: null })
    m.signUp.mockResolvedValue(ok)
    expect(await signUpWithInvite('a@b.test', 'secret1', 'GOOD')).toEqual({ ok: true, signedIn: true })
    expect(m.signInWithPassword).not.toHaveBeenCalled()
  })

  it('asks for a manual sign-in when the automatic one fails', async () => {
    m.rpc.mockResolvedValue({ data: { valid: true }, error: null })
    m.signUp.mockResolvedValue({ user, session: null, error: null })
    m.signInWithPassword.mockResolvedValue(authError('Email not confirmed'))
    expect(await signUpWithInvite('a@b.test', 'secret1', 'GOOD')).toEqual({ ok: true, signedIn: false })
  })

  it('reports the server message, or the fallbacks', async () => {
    m.rpc.mockResolvedValue({ data: { valid: true }, error: null })
    m.signUp.mockResolvedValueOnce(authError('User already registered'))
    expect(await signUpWithInvite('a@b.test', 'secret1', 'GOOD')).toEqual({ ok: false, message: 'User already registered' })
    m.signUp.mockResolvedValueOnce({ user: null, session: null, error: null })
    expect(await signUpWithInvite('a@b.test', 'secret1', 'GOOD')).toEqual({ ok: false, message: messages.auth.signupNoUser })
    m.signUp.mockRejectedValueOnce(new Error('boom'))
    expect(await signUpWithInvite('a@b.test', 'secret1', 'GOOD')).toEqual({ ok: false, message: messages.auth.signupFailed })
  })
})

describe('login', () => {
  it('returns the server message, the no-user message or the fallback', async () => {
    m.signInWithPassword.mockResolvedValueOnce(ok)
    expect(await login('a@b.test', 'pw')).toEqual({ ok: true })
    m.signInWithPassword.mockResolvedValueOnce(authError('Invalid login credentials'))
    expect(await login('a@b.test', 'pw')).toEqual({ ok: false, message: 'Invalid login credentials' })
    m.signInWithPassword.mockResolvedValueOnce(authError(''))
    expect(await login('a@b.test', 'pw')).toEqual({ ok: false, message: messages.auth.loginFailed })
    m.signInWithPassword.mockResolvedValueOnce({ user: null, session: null, error: null })
    expect(await login('a@b.test', 'pw')).toEqual({ ok: false, message: messages.auth.loginNoUser })
  })

  it('reports a code step when the account has an authenticator app (aal2 next)', async () => {
    m.signInWithPassword.mockResolvedValue(ok)
    m.assuranceLevels.mockResolvedValueOnce({ data: { current: 'aal1', next: 'aal2' }, error: null })
    expect(await login('a@b.test', 'pw')).toEqual({ ok: true, secondFactor: true })
    m.assuranceLevels.mockResolvedValueOnce({ data: { current: 'aal1', next: 'aal1' }, error: null })
    expect(await login('a@b.test', 'pw')).toEqual({ ok: true })
  })
})

describe('changePassword', () => {
  it('checks the rules in order before any request', async () => {
    expect(newPasswordProblem('abcdef', 'abcdeg')).toBe('New passwords do not match')
    expect(newPasswordProblem('abc', 'abc')).toBe('New password should be at least 6 characters')
    expect(newPasswordProblem('abcdef', 'abcdef')).toBeNull()
    expect(await changePassword('a@b.test', 'old', 'abc', 'abc')).toEqual({ ok: false, message: messages.auth.newPasswordTooShort })
    expect(m.checkPassword).not.toHaveBeenCalled()
  })

  it('verifies the current password with a separate sign-in', async () => {
    m.checkPassword.mockResolvedValue(authError('Invalid login credentials'))
    expect(await changePassword('a@b.test', 'wrong', 'newpass1', 'newpass1')).toEqual({
      ok: false,
      message: 'Current password is incorrect',
    })
    expect(m.checkPassword).toHaveBeenCalledWith('a@b.test', 'wrong')
    expect(m.updatePassword).not.toHaveBeenCalled()
  })

  it('updates the password, or reports the failure', async () => {
    m.checkPassword.mockResolvedValue(ok)
    m.updatePassword.mockResolvedValueOnce(null)
    expect(await changePassword('a@b.test', 'old', 'newpass1', 'newpass1')).toEqual({ ok: true })
    expect(m.updatePassword).toHaveBeenCalledWith('newpass1')
    m.updatePassword.mockResolvedValueOnce({ message: 'same_password', status: 422 })
    expect(await changePassword('a@b.test', 'old', 'newpass1', 'newpass1')).toEqual({ ok: false, message: messages.auth.changePasswordFailed })
  })
})
