// Journey: two-factor authentication. Set up an authenticator app on the Security page with a
// code computed from the key it shows, sign out, sign in with the password and then a code
// (a used code is refused), change the password in that session, and remove the app again.
import { createRequire } from 'node:module'
import type { Page } from '@playwright/test'
import type { AxeResults } from 'axe-core'
import { animationsDone, expect, expectPath, expectToast, logIn, PASSWORD, screenshot, signOut, signUp, test } from './support.ts'
import { totp } from './totp.ts'

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js')

/** axe-core (WCAG 2.1 A/AA, as a11y.spec.ts) finds nothing serious or critical on this screen. */
async function expectAccessible(page: Page, screen: string) {
  await animationsDone(page)
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE_PATH })
  const result = await page.evaluate(() =>
    (window as unknown as { axe: { run: (...args: unknown[]) => Promise<AxeResults> } }).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      resultTypes: ['violations'],
    }),
  )
  const blocking = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  expect(blocking.map((v) => `${screen}: ${v.id} (${v.help}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([])
}

test('set up an authenticator app, sign in with a code, remove it', async ({ page }) => {
  const { email } = await signUp(page)

  await page.getByRole('button', { name: `Account menu for ${email}` }).click()
  await page.getByRole('link', { name: 'Security' }).click()
  await expectPath(page, '/security')
  await expect(page.getByRole('heading', { name: 'Two-factor authentication' })).toBeVisible()
  await expect(page.getByText('Off', { exact: true })).toBeVisible()
  await screenshot(page, 'security-off')
  await expectAccessible(page, 'security, off')

  await page.getByRole('button', { name: 'Set up authenticator app' }).click()
  const qr = page.getByRole('img', { name: 'QR code to scan with your authenticator app' })
  await expect(qr).toBeVisible()
  // The QR code is drawn (the SVG data: URI decoded), not a broken image.
  await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true)
  const secret = (await page.getByTestId('totp-secret').textContent())?.trim() ?? ''
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/)
  await screenshot(page, 'security-setup')
  await expectAccessible(page, 'security, setup')
  const setupCode = totp(secret)
  await page.getByLabel('Authentication code').fill(setupCode)
  await page.getByRole('button', { name: 'Verify and turn on' }).click()
  await expectToast(page, 'Two-factor authentication is on.')
  await expect(page.getByText('On', { exact: true })).toBeVisible()
  await screenshot(page, 'security-on')
  await expectAccessible(page, 'security, on')

  await signOut(page)
  await logIn(page, { email, password: PASSWORD })
  await expect(page.getByRole('heading', { name: 'Two-Step Verification' })).toBeVisible()
  await expectPath(page, '/login')
  await screenshot(page, 'login-code-step')
  await expectAccessible(page, 'sign-in code step')

  // The app stays closed until the code is given, also after a reload.
  await page.goto('/labels')
  await expectPath(page, '/login')
  await expect(page.getByRole('heading', { name: 'Two-Step Verification' })).toBeVisible()

  // The setup's code was used once: it does not open a second session.
  await page.getByLabel('Authentication code').fill(setupCode)
  await page.getByRole('button', { name: 'Verify' }).click()
  await expectToast(page, 'That code is not right, or was already used.')
  await expectPath(page, '/login')

  await page.getByLabel('Authentication code').fill(totp(secret, 1))
  await page.getByRole('button', { name: 'Verify' }).click()
  await expectToast(page, 'Successfully logged in!')
  await expectPath(page, '/labels')
  await expect(page.getByRole('button', { name: `Account menu for ${email}` })).toBeVisible()

  // Changing the password keeps the session that passed the code (the server refuses a
  // password change from a session that did not).
  const newPassword = `${PASSWORD}-2fa`
  await page.goto('/change-password')
  await page.getByLabel('Current password').fill(PASSWORD)
  await page.getByLabel('New password', { exact: true }).fill(newPassword)
  await page.getByLabel('Confirm new password').fill(newPassword)
  await page.getByRole('button', { name: 'Change Password' }).click()
  await expectToast(page, 'Password changed successfully!')
  await expectPath(page, '/')
  await expect(page.getByRole('button', { name: `Account menu for ${email}` })).toBeVisible()

  await page.goto('/security')
  await page.getByRole('button', { name: 'Remove' }).click()
  const dialog = page.getByRole('dialog', { name: 'Remove the authenticator app?' })
  await expect(dialog).toBeVisible()
  await expectAccessible(page, 'remove dialog')
  await dialog.getByRole('button', { name: 'Remove' }).click()
  await expectToast(page, 'Authenticator app removed.')
  await expect(page.getByText('Off', { exact: true })).toBeVisible()

  // Without the app, the password alone signs in again.
  await signOut(page)
  await logIn(page, { email, password: newPassword })
  await expect(page.getByRole('button', { name: `Account menu for ${email}` })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Two-Step Verification' })).toHaveCount(0)
})
