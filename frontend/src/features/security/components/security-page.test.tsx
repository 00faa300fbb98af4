import { fireEvent, screen, within } from '@testing-library/react'
import { http } from 'msw'
import { beforeEach, describe, expect, it } from 'vitest'
import { extraMessages } from '@/config/messages'
import { apiServer, setupApiServer } from '@/testing/api-server'
import { renderPage } from '@/testing/render-page'
import { factorHandlers, factorId, gotrueError, storeSession, totpFactor, type Calls } from '../testing'
import { SecurityPage } from './security-page'

setupApiServer()

let calls: Calls
beforeEach(() => {
  calls = { requests: [], verifyBodies: [] }
  window.localStorage.clear()
})

// Toasts: successes are role=status, errors role=alert; an earlier toast may still show.
const shown = async (message: string) => expect(await screen.findByText(message)).toBeTruthy()
const typeCode = (code: string) => fireEvent.change(screen.getByLabelText('Authentication code'), { target: { value: code } })

describe('Security page', () => {
  it('sets up an authenticator app: QR code and key, then a code turns it on', async () => {
    storeSession('aal1', [])
    let factors = [] as ReturnType<typeof totpFactor>[]
    let answer: Response | undefined = gotrueError(422, 'mfa_verification_failed', 'Invalid TOTP code entered')
    apiServer.use(
      ...factorHandlers(
        calls,
        () => factors,
        () => {
          const a = answer
          answer = undefined
          return a
        },
      ),
    )
    renderPage(<SecurityPage />, '/security')
    expect(await screen.findByText('Off')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Set up authenticator app' }))

    const qr = await screen.findByRole('img', { name: 'QR code to scan with your authenticator app' })
    expect(qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;utf-8,<svg/)
    expect(screen.getByTestId('totp-secret').textContent).toBe('JBSWY3DPEHPK3PXP')

    // A code that is not six digits is refused before any request.
    typeCode('12 34')
    fireEvent.click(screen.getByRole('button', { name: 'Verify and turn on' }))
    await shown(extraMessages.mfa.codeFormat)
    expect(calls.verifyBodies).toHaveLength(0)

    // The server refuses the first code, accepts the second.
    typeCode('111 111')
    fireEvent.click(screen.getByRole('button', { name: 'Verify and turn on' }))
    await shown(extraMessages.mfa.codeInvalid)
    factors = [totpFactor('verified')]
    typeCode('654321')
    fireEvent.click(screen.getByRole('button', { name: 'Verify and turn on' }))
    await shown(extraMessages.mfa.enabled)
    expect(await screen.findByText('On')).toBeTruthy()
    expect(calls.verifyBodies).toEqual([
      { challenge_id: expect.any(String), code: '111111' },
      { challenge_id: expect.any(String), code: '654321' },
    ])
    expect(calls.requests).toContain('POST /factors')
  })

  it('drops an unfinished setup before starting a new one', async () => {
    storeSession('aal1', [])
    const leftover = '55555555-5555-4555-8555-555555555555'
    apiServer.use(...factorHandlers(calls, () => [totpFactor('unverified', leftover)]))
    renderPage(<SecurityPage />, '/security')
    fireEvent.click(await screen.findByRole('button', { name: 'Set up authenticator app' }))
    await screen.findByTestId('totp-secret')
    expect(calls.requests.filter((r) => r !== 'GET /user')).toEqual([`DELETE /factors/${leftover}`, 'POST /factors'])
  })

  it('removes the app after a confirmation', async () => {
    storeSession('aal2', [totpFactor('verified')])
    let factors = [totpFactor('verified')]
    apiServer.use(...factorHandlers(calls, () => factors))
    renderPage(<SecurityPage />, '/security')
    expect(await screen.findByText('On')).toBeTruthy()
    expect(screen.getByText(/added Mar 14, 2026/)).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Remove' }))
    const dialog = await screen.findByRole('dialog', { name: 'Remove the authenticator app?' })
    factors = []
    fireEvent.click(within(dialog).getByRole('button', { name: 'Remove' }))
    await shown(extraMessages.mfa.removed)
    expect(await screen.findByText('Off')).toBeTruthy()
    expect(calls.requests).toContain(`DELETE /factors/${factorId}`)
  })

  it('says why a removal was refused (the session has not passed the code)', async () => {
    storeSession('aal1', [totpFactor('verified')])
    apiServer.use(...factorHandlers(calls, () => [totpFactor('verified')]))
    // Handlers added later answer first.
    apiServer.use(http.delete('*/auth/v1/factors/:id', () => gotrueError(422, 'insufficient_aal', 'AAL2 required to unenroll verified factor')))
    renderPage(<SecurityPage />, '/security')
    fireEvent.click(await screen.findByRole('button', { name: 'Remove' }))
    const dialog = await screen.findByRole('dialog')
    fireEvent.click(within(dialog).getByRole('button', { name: 'Remove' }))
    await shown(extraMessages.mfa.removeNeedsCode)
    expect(screen.getByText('On')).toBeTruthy()
  })

  it('shows the load error', async () => {
    storeSession('aal1', [])
    apiServer.use(http.get('*/auth/v1/user', () => gotrueError(500, 'unexpected_failure', 'boom')))
    renderPage(<SecurityPage />, '/security')
    expect(await screen.findByText(extraMessages.mfa.loadFailed, { selector: 'p' })).toBeTruthy()
  })
})
