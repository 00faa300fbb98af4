// Journey: a member who forgot their password gets back in through the mailed link. The gateway
// under test captures mail at /_dev/inbox (MAIL_DEV_INBOX), which the journey reads like a mailbox.
import type { Page } from '@playwright/test'
import { expect, expectLoginRefused, expectPath, expectToast, logIn, PASSWORD, screenshot, signOut, signUp, test, uniqueEmail } from './support.ts'

const mailTo = (page: Page, email: string) => page.locator(`article[data-to="${email}"]`)

/** Opens the dev inbox until it holds a reset mail for `email`, and returns the newest link in it. */
async function mailedLink(page: Page, email: string) {
  let link: string | undefined
  await expect(async () => {
    await page.goto('/_dev/inbox')
    const text = await mailTo(page, email).locator('pre').first().textContent({ timeout: 1000 })
    link = text?.match(/https?:\/\/\S+\/auth\/v1\/verify\?\S+/)?.[0]
    expect(link, `a reset mail for ${email} in the dev inbox`).toBeTruthy()
  }).toPass({ timeout: 10_000 })
  return link as string
}

test('forgot password → mail → link → new password → sign in', async ({ page }) => {
  const email = uniqueEmail('recover')
  await signUp(page, { email })
  await signOut(page)

  await page.getByRole('link', { name: 'Forgot Password?' }).click()
  await expectPath(page, '/forgot-password')
  await page.getByLabel('Email').fill(email)
  await screenshot(page, 'forgot-password')
  await page.getByRole('button', { name: 'Send Reset Link' }).click()
  // Said once, on the page (no toast repeating it).
  await expect(page.getByRole('status').filter({ hasText: 'If an account exists for that email, a link to reset your password is on its way.' })).toBeVisible()
  await expect(page.locator('[data-toast]')).toHaveCount(0)

  const link = await mailedLink(page, email)
  await screenshot(page, 'dev-inbox')
  await page.goto(link)
  await expectPath(page, '/reset-password')
  await expect(page.getByRole('heading', { name: 'Choose a New Password' })).toBeVisible()
  await screenshot(page, 'reset-password')

  // Mismatch first: refused on the page, nothing sent.
  await page.getByLabel('New password', { exact: true }).fill('e2e-new-secret-1')
  await page.getByLabel('Confirm new password').fill('e2e-new-secret-2')
  await page.getByRole('button', { name: 'Set New Password' }).click()
  await expectToast(page, 'New passwords do not match')
  await page.getByLabel('Confirm new password').fill('e2e-new-secret-1')
  await page.getByRole('button', { name: 'Set New Password' }).click()
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
  await expect(page.getByText('This password reset link is invalid or has expired. Please request a new one.')).toBeVisible()
  await expect(page.getByRole('button', { name: 'Set New Password' })).toHaveCount(0)
  await screenshot(page, 'reset-link-spent')
})

test('an unknown email gets the same answer and no mail', async ({ page }) => {
  const email = uniqueEmail('stranger')
  await page.goto('/forgot-password')
  await page.getByLabel('Email').fill(email)
  await page.getByRole('button', { name: 'Send Reset Link' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'If an account exists for that email' })).toBeVisible()
  await page.goto('/_dev/inbox')
  await expect(mailTo(page, email)).toHaveCount(0)
})

// The gateway under test listens on a port the kernel chose, and SITE_URL is that address (as
// `labelbase dev` now derives it). A link that returns to the site root, as the one `labelbase
// user reset-password` prints does, still asks for a new password before anything else.
test('a reset link that lands on the site root asks for a new password first', async ({ page, baseURL }) => {
  const email = uniqueEmail('recover-root')
  await signUp(page, { email })
  await signOut(page)
  await page.goto('/forgot-password')
  await page.getByLabel('Email').fill(email)
  await page.getByRole('button', { name: 'Send Reset Link' }).click()
  // The answer first: leaving the page would cancel the request, and with it the mail.
  await expect(page.getByRole('status').filter({ hasText: 'If an account exists for that email' })).toBeVisible()
  const mailed = new URL(await mailedLink(page, email))
  expect(mailed.origin, 'the link points at the gateway under test').toBe(new URL(baseURL as string).origin)
  mailed.searchParams.delete('redirect_to')
  await page.goto(mailed.toString())
  await expectPath(page, '/reset-password')
  await expect(page.getByRole('heading', { name: 'Choose a New Password' })).toBeVisible()
  // Leaving for another page does not skip it.
  await page.goto('/labels')
  await expectPath(page, '/reset-password')
  await page.getByLabel('New password', { exact: true }).fill('e2e-root-secret-1')
  await page.getByLabel('Confirm new password').fill('e2e-root-secret-1')
  await page.getByRole('button', { name: 'Set New Password' }).click()
  await expectToast(page, 'Your password has been reset.')
  await expectPath(page, '/')
  await page.goto('/reset-password')
  await expectPath(page, '/change-password')
  await page.goto('/')
  await signOut(page)
  await logIn(page, { email, password: 'e2e-root-secret-1' })
  await expectPath(page, '/')

  // The spent link, at the site root, says why it did not work.
  await signOut(page)
  await page.goto(mailed.toString())
  await expectPath(page, '/reset-password')
  await expect(page.getByText('This password reset link is invalid or has expired. Please request a new one.')).toBeVisible()
})
