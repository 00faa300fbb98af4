// Journeys: sign-up (good and bad invite, password mismatch), log in and out, route guards,
// unknown routes and changing the password.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { expectLoginRefused, expectPath, expectToast, logIn, newPage, PASSWORD, screenshot, signOut, signUp, uniqueEmail, useBrowser } from './support.mjs'

describe('authentication', () => {
  const browser = useBrowser()

  async function fillSignUp(page, { email, password, confirm = password, invite }) {
    await page.goto('/signup')
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password', { exact: true }).fill(password)
    await page.getByLabel('Confirm password').fill(confirm)
    await page.getByLabel('Invite code').fill(invite)
    await page.getByRole('button', { name: 'Sign Up' }).click()
  }

  test('sign-up refuses a bad invite code and mismatched passwords', async () => {
    const page = await newPage(browser())
    await fillSignUp(page, { email: uniqueEmail('bad-invite'), password: PASSWORD, invite: `not-a-code-${Date.now()}` })
    await expectToast(page, 'Invalid invite code')
    await screenshot(page, 'signup-invalid-invite')
    assert.equal(new URL(page.url()).pathname, '/signup')

    await fillSignUp(page, { email: uniqueEmail('mismatch'), password: PASSWORD, confirm: `${PASSWORD}-x`, invite: 'anything' })
    await expectToast(page, 'Passwords do not match')
    assert.equal(new URL(page.url()).pathname, '/signup')
    page.assertNoPageErrors()
    await page.context().close()
  })

  test('sign-up with the invite code signs the user in', async () => {
    const page = await newPage(browser())
    await page.goto('/signup')
    await screenshot(page, 'signup')
    const { email } = await signUp(page)
    await page.getByRole('button', { name: `Account menu for ${email}` }).waitFor()
    for (const name of ['New', 'Collection', 'Labels', 'Explore']) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).waitFor()
    }
    await screenshot(page, 'home-after-signup')
    page.assertNoPageErrors()
    await page.context().close()
  })

  test('log out, protected and public redirects, log in', async () => {
    const page = await newPage(browser())
    const creds = await signUp(page)

    // Signed in: the public pages send the user home.
    await page.goto('/login')
    await expectPath(page, '/')
    await page.goto('/signup')
    await expectPath(page, '/')

    await signOut(page)
    await screenshot(page, 'login')
    // On /login the nav shows no Sign In link; on /signup it does.
    assert.equal(await page.getByRole('link', { name: 'Sign In' }).count(), 0)
    await page.goto('/signup')
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sign In' }).waitFor()

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
    page.assertNoPageErrors()
    await page.context().close()
  })

  test('a protected page reached while signed out is restored after logging in', async () => {
    const page = await newPage(browser())
    const creds = await signUp(page)
    await signOut(page)
    await page.goto('/explore')
    await expectPath(page, '/login')
    await logIn(page, creds)
    await expectPath(page, '/explore')
    await page.context().close()
  })

  test('unknown routes show a not-found page with a link home', async () => {
    const page = await newPage(browser())
    await page.goto('/no/such/page')
    await page.getByRole('heading', { name: 'Page not found' }).waitFor()
    await screenshot(page, 'not-found')
    await page.getByRole('link', { name: 'Go home' }).click()
    await expectPath(page, '/login')
    await page.context().close()
  })

  test('change password: each rule, then success', async () => {
    const page = await newPage(browser())
    const creds = await signUp(page)
    await page.getByRole('button', { name: /^Account menu for / }).click()
    await page.getByRole('link', { name: 'Change Password' }).click()
    await expectPath(page, '/change-password')
    await screenshot(page, 'change-password')

    const submit = async (current, next, confirm) => {
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
    assert.equal(new URL(page.url()).pathname, '/change-password')

    await submit(creds.password, 'newpass-1', 'newpass-1')
    await expectToast(page, 'Password changed successfully!')
    await expectPath(page, '/')

    await signOut(page)
    await expectLoginRefused(page, creds)
    await logIn(page, { email: creds.email, password: 'newpass-1' })
    await expectToast(page, 'Successfully logged in!')
    await expectPath(page, '/')
    page.assertNoPageErrors()
    await page.context().close()
  })
})
