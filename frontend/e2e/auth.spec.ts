// Journeys: sign-up (good and bad invite, password mismatch), log in and out, route guards,
// unknown routes and changing the password.
import type { Page } from '@playwright/test'
import { expect, expectLoginRefused, expectPath, expectToast, logIn, mainNav, PASSWORD, screenshot, signOut, signUp, test, uniqueEmail } from './support.ts'

async function fillSignUp(page: Page, { email, password, confirm = password, invite }: { email: string; password: string; confirm?: string; invite: string }) {
  await page.goto('/signup')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByLabel('Confirm password').fill(confirm)
  await page.getByLabel('Invite code').fill(invite)
  await page.getByRole('button', { name: 'Sign Up' }).click()
}

test('sign-up refuses a bad invite code and mismatched passwords', async ({ page }) => {
  await fillSignUp(page, { email: uniqueEmail('bad-invite'), password: PASSWORD, invite: `not-a-code-${Date.now()}` })
  await expectToast(page, 'Invalid invite code')
  await screenshot(page, 'signup-invalid-invite')
  await expectPath(page, '/signup')

  await fillSignUp(page, { email: uniqueEmail('mismatch'), password: PASSWORD, confirm: `${PASSWORD}-x`, invite: 'anything' })
  await expectToast(page, 'Passwords do not match')
  await expectPath(page, '/signup')
})

test('sign-up with the invite code signs the user in', async ({ page }) => {
  await page.goto('/signup')
  await screenshot(page, 'signup')
  const { email } = await signUp(page)
  await expect(page.getByRole('button', { name: `Account menu for ${email}` })).toBeVisible()
  for (const name of ['New', 'Collection', 'Labels', 'Explore']) {
    await expect(mainNav(page).getByRole('link', { name, exact: true })).toBeVisible()
  }
  await screenshot(page, 'home-after-signup')
})

test('log out, protected and public redirects, log in', async ({ page }) => {
  const creds = await signUp(page)

  // Signed in: the public pages send the user home.
  await page.goto('/login')
  await expectPath(page, '/')
  await page.goto('/signup')
  await expectPath(page, '/')

  await signOut(page)
  await screenshot(page, 'login')
  // On /login the nav shows no Sign In link; on /signup it does.
  await expect(page.getByRole('link', { name: 'Sign In' })).toHaveCount(0)
  await page.goto('/signup')
  await expect(mainNav(page).getByRole('link', { name: 'Sign In' })).toBeVisible()

  for (const path of ['/', '/labels', '/explore', '/collection', '/change-password']) {
    await page.goto(path)
    await expectPath(page, '/login')
  }

  // Leave /login first: reloading it would keep the "return to /change-password" state.
  await page.goto('/signup')
  await expectLoginRefused(page, { email: creds.email, password: 'wrong-password' })

  await logIn(page, creds)
  await expectToast(page, 'Successfully logged in!')
  await expectPath(page, '/')
})

test('a protected page reached while signed out is restored after logging in', async ({ page }) => {
  const creds = await signUp(page)
  await signOut(page)
  await page.goto('/explore')
  await expectPath(page, '/login')
  await logIn(page, creds)
  await expectPath(page, '/explore')
})

test('unknown routes show a not-found page with a link home', async ({ page }) => {
  await page.goto('/no/such/page')
  await expect(page.getByRole('heading', { name: 'Page Not Found' })).toBeVisible()
  await screenshot(page, 'not-found')
  await page.getByRole('link', { name: 'Go home' }).click()
  await expectPath(page, '/login')
})

test('change password: each rule, then success', async ({ page }) => {
  const creds = await signUp(page)
  await page.getByRole('button', { name: /^Account menu for / }).click()
  await page.getByRole('link', { name: 'Change Password' }).click()
  await expectPath(page, '/change-password')
  await screenshot(page, 'change-password')

  const submit = async (current: string, next: string, confirm: string) => {
    await page.getByLabel('Current password').fill(current)
    await page.getByLabel('New password', { exact: true }).fill(next)
    await page.getByLabel('Confirm new password').fill(confirm)
    await page.getByRole('button', { name: 'Change Password' }).click()
  }
  await submit(creds.password, 'newpass-1', 'newpass-2')
  await expectToast(page, 'New passwords do not match')
  await submit(creds.password, 'abc', 'abc')
  await expectToast(page, 'New password should be at least 6 characters')
  await submit('not-my-password', 'newpass-1', 'newpass-1')
  await expectToast(page, 'Current password is incorrect')
  await expectPath(page, '/change-password')

  await submit(creds.password, 'newpass-1', 'newpass-1')
  await expectToast(page, 'Password changed successfully!')
  await expectPath(page, '/')

  await signOut(page)
  await expectLoginRefused(page, creds)
  await logIn(page, { email: creds.email, password: 'newpass-1' })
  await expectToast(page, 'Successfully logged in!')
  await expectPath(page, '/')
})
