// Journeys at 360 px: no sideways scrolling on any screen, and the collapsed navigation menu.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { apiSession, expectPath, followLabels, hasHorizontalScroll, MOBILE, newPage, screenshot, signUp, useBrowser } from './support.mjs'

describe('small screens (360 px)', () => {
  const browser = useBrowser()

  test('signed-out pages fit the screen', async () => {
    const page = await newPage(browser(), MOBILE)
    for (const path of ['/login', '/signup', '/no/such/page']) {
      await page.goto(path)
      await page.locator('main h1').first().waitFor()
      assert.equal(await hasHorizontalScroll(page), false, `${path} must not scroll sideways`)
      await screenshot(page, `mobile${path.replaceAll('/', '-')}`)
    }
    await page.context().close()
  })

  test('the menu collapses into a toggle; every screen fits', async () => {
    const page = await newPage(browser(), MOBILE)
    const creds = await signUp(page)
    await followLabels(await apiSession(creds), 6)

    const nav = page.getByRole('navigation', { name: 'Main' })
    assert.equal(await nav.getByRole('link', { name: 'Collection' }).isVisible(), false, 'links are hidden behind the toggle')
    const toggle = page.getByRole('button', { name: 'Open menu' })
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false')
    await toggle.click()
    const menu = page.locator('#mobile-menu')
    for (const name of ['New', 'Collection', 'Labels', 'Explore', 'Change Password']) await menu.getByRole('link', { name, exact: true }).waitFor()
    await menu.getByText(creds.email).waitFor()
    await menu.getByRole('button', { name: 'Sign Out' }).waitFor()
    assert.equal(await page.getByRole('button', { name: 'Close menu' }).getAttribute('aria-expanded'), 'true')
    await screenshot(page, 'mobile-menu')

    await menu.getByRole('link', { name: 'Labels', exact: true }).click()
    await expectPath(page, '/labels')
    await menu.waitFor({ state: 'detached' })

    for (const path of ['/', '/labels', '/explore', '/collection', '/change-password']) {
      await page.goto(path)
      await page.locator('main h1').first().waitFor()
      await page.waitForLoadState('networkidle')
      assert.equal(await hasHorizontalScroll(page), false, `${path} must not scroll sideways at 360 px`)
      await screenshot(page, `mobile${path === '/' ? '-feed' : path.replaceAll('/', '-')}`)
    }

    await page.getByRole('button', { name: 'Open menu' }).click()
    await page.locator('#mobile-menu').getByRole('button', { name: 'Sign Out' }).click()
    await expectPath(page, '/login')
    page.assertNoPageErrors()
    await page.context().close()
  })
})
