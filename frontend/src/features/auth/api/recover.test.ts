import { beforeEach, describe, expect, it, vi } from 'vitest'
import { messages } from '@/config/messages'
import { messageFor, RequestError } from '@/lib/errors'
import * as lib from '@/lib/supabase'
import { requestRecovery, setNewPassword } from './recover'

vi.mock('@/lib/supabase', () => ({
  requestPasswordReset: vi.fn(),
  updatePassword: vi.fn(),
}))
const m = vi.mocked(lib)

beforeEach(() => vi.resetAllMocks())

/** The message the form shows for a call: its UserError's words or the form's fallback. */
async function shown(call: Promise<void>, fallback: string) {
  try {
    await call
    return 'ok'
  } catch (error) {
    return messageFor(error, fallback)
  }
}

describe('requestRecovery', () => {
  it('asks for a link to the reset page of this origin', async () => {
    m.requestPasswordReset.mockResolvedValue()
    await requestRecovery({ email: '  a@b.test ', origin: 'https://app.test' })
    expect(m.requestPasswordReset).toHaveBeenCalledWith('a@b.test', 'https://app.test/reset-password')
  })

  it('needs an email before calling the server', async () => {
    expect(await shown(requestRecovery({ email: '   ', origin: 'https://app.test' }), 'fallback')).toBe(messages.auth.recoveryEmailRequired)
    expect(m.requestPasswordReset).not.toHaveBeenCalled()
  })

  it.each([
    [new RequestError('Email rate limit exceeded', 429, 'over_email_send_rate_limit'), messages.auth.recoveryRateLimited],
    [new RequestError('Unable to validate email address: invalid format', 400, 'validation_failed'), 'Unable to validate email address: invalid format'],
    [new RequestError('boom', 500), messages.auth.recoveryFailed],
    [new RequestError('Failed to fetch', 0), messages.auth.recoveryFailed],
  ])('maps %s to its message', async (error, message) => {
    m.requestPasswordReset.mockRejectedValue(error)
    expect(await shown(requestRecovery({ email: 'a@b.test', origin: 'https://app.test' }), messages.auth.recoveryFailed)).toBe(message)
  })
})

describe('setNewPassword', () => {
  it('checks the confirmation and length before calling the server', async () => {
    expect(await shown(setNewPassword({ next: 'secret1', confirm: 'secret2' }), 'fallback')).toBe(messages.auth.newPasswordsDoNotMatch)
    expect(await shown(setNewPassword({ next: 'abc', confirm: 'abc' }), 'fallback')).toBe(messages.auth.newPasswordTooShort)
    expect(m.updatePassword).not.toHaveBeenCalled()
  })

  it('updates the password', async () => {
    m.updatePassword.mockResolvedValue()
    expect(await shown(setNewPassword({ next: 'secret12', confirm: 'secret12' }), 'fallback')).toBe('ok')
    expect(m.updatePassword).toHaveBeenCalledWith('secret12')
  })

  it('shows the server reason for a same or weak password, a fallback otherwise', async () => {
    const same = 'New password should be different from the old password.'
    m.updatePassword.mockRejectedValueOnce(new RequestError(same, 422, 'same_password'))
    expect(await shown(setNewPassword({ next: 'secret12', confirm: 'secret12' }), messages.auth.changePasswordFailed)).toBe(same)
    m.updatePassword.mockRejectedValueOnce(new RequestError('x', 500))
    expect(await shown(setNewPassword({ next: 'secret12', confirm: 'secret12' }), messages.auth.changePasswordFailed)).toBe(messages.auth.changePasswordFailed)
  })
})
