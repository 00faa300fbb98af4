// Journeys at 360 px: no sideways scrolling on any screen, and the collapsed navigation menu.
import type { Page } from '@playwright/test'
import { apiSession, expect, expectPath, followLabels, hasHorizontalScroll, mainNav, MOBILE, screenshot, settled, signUp, test } from './support.ts'

test.use({ viewport: MOBILE })

/** The button that opens and closes the collapsed menu ("Open menu" / "Close menu" today). */
const menuToggle = (page: Page) => page.getByRole('button', { name: /^(open |close |toggle )?(main |navigation )?menu$/i })

test('signed-out pages fit the screen', async ({ page }) => {
  for (const path of ['/login', '/signup', '/no/such/page']) {
    await page.goto(path)
    await settled(page)
    expect(await hasHorizontalScroll(page), `${path} must not scroll sideways`).toBe(false)
    await screenshot(page, `mobile${path.replaceAll('/', '-')}`)
  }
})

test('the menu collapses into a toggle; every screen fits', async ({ page }) => {
  const creds = await signUp(page)
  await followLabels(await apiSession(creds), 6)

  await expect(mainNav(page).getByRole('link', { name: 'Collection' }), 'links are hidden behind the toggle').toBeHidden()
  const toggle = menuToggle(page)
  await expect(toggle).toHaveAttribute('aria-expanded', 'false')
  await toggle.click()
  await expect(toggle).toHaveAttribute('aria-expanded', 'true')
  const menu = page.locator(`#${await toggle.getAttribute('aria-controls')}`)
  for (const name of ['New', 'Collection', 'Labels', 'Explore', 'Change Password']) {
    await expect(menu.getByRole('link', { name, exact: true })).toBeVisible()
  }
  await expect(menu.getByText(creds.email)).toBeVisible()
  await expect(menu.getByRole('button', { name: 'Sign Out' })).toBeVisible()
  await screenshot(page, 'mobile-menu')

  await menu.getByRole('link', { name: 'Labels', exact: true }).click()
  await expectPath(page, '/labels')
  await expect(menu).toBeHidden()
  await expect(toggle).toHaveAttribute('aria-expanded', 'false')

  for (const path of ['/', '/labels', '/explore', '/collection', '/change-password']) {
    await page.goto(path)
    await settled(page)
    expect(await hasHorizontalScroll(page), `${path} must not scroll sideways at 360 px`).toBe(false)
    await screenshot(page, `mobile${path === '/' ? '-feed' : path.replaceAll('/', '-')}`)
  }

  await toggle.click()
  await menu.getByRole('button', { name: 'Sign Out' }).click()
  await expectPath(page, '/login')
})
