// Journey: a member who forgot their password gets back in through the mailed link. The gateway
// under test captures mail at /_dev/inbox (MAIL_DEV_INBOX), which the journey reads like a mailbox.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { eventually, expectLoginRefused, expectPath, expectToast, logIn, newPage, PASSWORD, screenshot, signOut, signUp, uniqueEmail, useBrowser } from './support.mjs'

describe('password recovery', () => {
  const browser = useBrowser()

  // Opens the dev inbox and returns the newest reset link mailed to email.
  async function mailedLink(page, email) {
    return eventually(async () => {
      await page.goto('/_dev/inbox')
      const text = await page.locator(`article[data-to="${email}"] pre`).first().textContent({ timeout: 1000 }).catch(() => null)
      return text?.match(/https?:\/\/\S+\/auth\/v1\/verify\?\S+/)?.[0]
    }, `a reset mail for ${email} in the dev inbox`)
  }

  test('forgot password → mail → link → new password → sign in', async () => {
    const page = await newPage(browser())
    const email = uniqueEmail('recover')
    await signUp(page, { email })
    await signOut(page)

    await page.getByRole('link', { name: 'Forgot password?' }).click()
    await expectPath(page, '/forgot-password')
    await page.getByLabel('Email').fill(email)
    await screenshot(page, 'forgot-password')
    await page.getByRole('button', { name: 'Send reset link' }).click()
    await expectToast(page, 'If an account exists for that email, a link to reset your password is on its way.')
    await page.getByRole('status').filter({ hasText: 'expires after an hour' }).waitFor()

    const link = await mailedLink(page, email)
    await screenshot(page, 'dev-inbox')
    await page.goto(link)
    await expectPath(page, '/reset-password')
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor()
    await screenshot(page, 'reset-password')

    // Mismatch first: refused on the page, nothing sent.
    await page.getByLabel('New password', { exact: true }).fill('e2e-new-secret-1')
    await page.getByLabel('Confirm new password').fill('e2e-new-secret-2')
    await page.getByRole('button', { name: 'Set new password' }).click()
    await expectToast(page, 'New passwords do not match')
    await page.getByLabel('Confirm new password').fill('e2e-new-secret-1')
    await page.getByRole('button', { name: 'Set new password' }).click()
    await expectToast(page, 'Your password has been reset.')
    await expectPath(page, '/')

    await signOut(page)
    await expectLoginRefused(page, { email, password: PASSWORD })
    await logIn(page, { email, password: 'e2e-new-secret-1' })
    await expectPath(page, '/')
    await signOut(page)

    // The link worked once.
    await page.goto(link)
    await expectPath(page, '/reset-password')
    await page.getByText('This password reset link is invalid or has expired. Please request a new one.').waitFor()
    assert.equal(await page.getByRole('button', { name: 'Set new password' }).count(), 0)
    await screenshot(page, 'reset-link-spent')
    page.assertNoPageErrors()
    await page.context().close()
  })

  test('an unknown email gets the same answer and no mail', async () => {
    const page = await newPage(browser())
    const email = uniqueEmail('stranger')
    await page.goto('/forgot-password')
    await page.getByLabel('Email').fill(email)
    await page.getByRole('button', { name: 'Send reset link' }).click()
    await expectToast(page, 'If an account exists for that email, a link to reset your password is on its way.')
    await page.goto('/_dev/inbox')
    assert.equal(await page.locator(`article[data-to="${email}"]`).count(), 0)
    page.assertNoPageErrors()
    await page.context().close()
  })
})
