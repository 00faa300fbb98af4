import { beforeEach, describe, expect, it, vi } from 'vitest'
import { messages } from '@/config/messages'
import * as lib from '@/lib/supabase'
import { requestRecovery, setNewPassword } from './recover'

vi.mock('@/lib/supabase', () => ({
  requestPasswordReset: vi.fn(),
  updatePassword: vi.fn(),
}))
const m = vi.mocked(lib)

beforeEach(() => vi.resetAllMocks())

describe('requestRecovery', () => {
  it('asks for a link to the reset page of this origin', async () => {
    m.requestPasswordReset.mockResolvedValue(null)
    expect(await requestRecovery('  a@b.test ', 'https://app.test')).toEqual({ ok: true })
    expect(m.requestPasswordReset).toHaveBeenCalledWith('a@b.test', 'https://app.test/reset-password')
  })

  it('needs an email before calling the server', async () => {
    expect(await requestRecovery('   ', 'https://app.test')).toEqual({ ok: false, message: messages.auth.recoveryEmailRequired })
    expect(m.requestPasswordReset).not.toHaveBeenCalled()
  })

  it.each([
    [{ message: 'Email rate limit exceeded', status: 429, code: 'over_email_send_rate_limit' }, messages.auth.recoveryRateLimited],
    [
      { message: 'Unable to validate email address: invalid format', status: 400, code: 'validation_failed' },
      'Unable to validate email address: invalid format',
    ],
    [{ message: 'boom', status: 500 }, messages.auth.recoveryFailed],
  ])('maps %j to its message', async (error, message) => {
    m.requestPasswordReset.mockResolvedValue(error)
    expect(await requestRecovery('a@b.test', 'https://app.test')).toEqual({ ok: false, message })
  })

  it('reports a thrown call as a failure', async () => {
    m.requestPasswordReset.mockRejectedValue(new Error('offline'))
    expect(await requestRecovery('a@b.test', 'https://app.test')).toEqual({ ok: false, message: messages.auth.recoveryFailed })
  })
})

describe('setNewPassword', () => {
  it('checks the confirmation and length before calling the server', async () => {
    expect(await setNewPassword('secret1', 'secret2')).toEqual({ ok: false, message: messages.auth.newPasswordsDoNotMatch })
    expect(await setNewPassword('abc', 'abc')).toEqual({ ok: false, message: messages.auth.newPasswordTooShort })
    expect(m.updatePassword).not.toHaveBeenCalled()
  })

  it('updates the password', async () => {
    m.updatePassword.mockResolvedValue(null)
    expect(await setNewPassword('secret12', 'secret12')).toEqual({ ok: true })
    expect(m.updatePassword).toHaveBeenCalledWith('secret12')
  })

  it('shows the server reason for a same or weak password, a fallback otherwise', async () => {
    const same = 'New password should be different from the old password.'
    m.updatePassword.mockResolvedValueOnce({ message: same, status: 422, code: 'same_password' })
    expect(await setNewPassword('secret12', 'secret12')).toEqual({ ok: false, message: same })
    m.updatePassword.mockResolvedValueOnce({ message: 'x', status: 500 })
    expect(await setNewPassword('secret12', 'secret12')).toEqual({ ok: false, message: messages.auth.changePasswordFailed })
  })
})
