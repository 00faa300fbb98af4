// The admin console (/admin): a member promoted through the admin users API moderates a
// submission, hides a label and sees it gone for a member, and creates and revokes an invite.
// Hiding a label changes what every member sees, so this file runs after the other journeys
// (the "admin" project in playwright.config.ts).
import { createRequire } from 'node:module'
import type { Browser, Page } from '@playwright/test'
import type { AxeResults } from 'axe-core'
import {
  apiSession,
  config,
  expect,
  expectPath,
  expectToast,
  hasHorizontalScroll,
  labelsCountLine,
  logIn,
  MOBILE,
  openTab,
  recordRpc,
  rpc,
  screenshot,
  settled,
  signOut,
  signUp,
  test,
} from './support.ts'
import { totp } from './totp.ts'

const serviceKey = () => {
  const key = process.env.LABELBASE_SERVICE_ROLE_KEY
  if (!key) throw new Error('LABELBASE_SERVICE_ROLE_KEY is not set: the admin journey promotes its admin through the admin users API.')
  return key
}

/** Writes app_metadata.role = "admin" through PUT /auth/v1/admin/users/{id}, as `labelbase user admin` does. */
async function promote(userId: string) {
  const res = await fetch(`${config.url}/auth/v1/admin/users/${userId}`, {
    method: 'PUT',
    headers: { apikey: serviceKey(), Authorization: `Bearer ${serviceKey()}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ app_metadata: { role: 'admin' } }),
  })
  expect(res.status, await res.text()).toBe(200)
}

async function newMember(browser: Browser) {
  const context = await browser.newContext()
  const page = await context.newPage()
  const creds = await signUp(page)
  return { page, creds, session: await apiSession(creds) }
}

const card = (page: Page, list: string, text: string) => page.getByRole('list', { name: list }).getByRole('listitem').filter({ hasText: text })

test('promote, moderate a submission, hide a label from members, create and revoke an invite', async ({ page, browser }) => {
  // A member, who submits a label URL and will look for a label the admin hides.
  const member = await newMember(browser)
  const url = `https://e2e-admin-${Date.now().toString(36)}.bandcamp.com`
  await fetch(`${config.url}/rest/v1/labels_to_add`, {
    method: 'POST',
    headers: { apikey: config.anonKey, Authorization: `Bearer ${member.session.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ label_url: url, user_id: member.session.userId }),
  }).then((r) => expect(r.status).toBe(201))

  // The admin-to-be has no Admin entry and is refused by the database.
  const adminCreds = await signUp(page)
  await page.getByRole('button', { name: /^Account menu for / }).click()
  await expect(page.getByRole('link', { name: 'Admin' })).toHaveCount(0)
  await page.keyboard.press('Escape')
  await page.goto('/admin')
  await expect(page.getByText('This page is for admins.', { exact: false })).toBeVisible()

  // Promoted; the role reaches the token at the next sign-in.
  await promote((await apiSession(adminCreds)).userId)
  await page.goto('/')
  await signOut(page)
  await logIn(page, adminCreds)
  await expectPath(page, '/')
  await page.getByRole('button', { name: /^Account menu for / }).click()
  await page.getByRole('link', { name: 'Admin' }).click()
  await expectPath(page, '/admin')
  await expect(page.getByRole('heading', { name: 'Admin', level: 1 })).toBeVisible()

  // Queue: reject the member's submission with a reason, then retry it.
  await page.getByRole('button', { name: 'Pending' }).click()
  const sub = card(page, 'Submissions', url)
  await expect(sub).toBeVisible()
  await expect(sub).toContainText(member.creds.email)
  await screenshot(page, 'admin-queue')
  await sub.getByRole('button', { name: `Reject ${url}` }).click()
  await page.getByLabel('Reason for rejecting').fill('a shop, not a label')
  await page.getByRole('button', { name: 'Reject submission' }).click()
  await expectToast(page, 'Submission rejected.')
  await expect(sub).toHaveCount(0)
  await page.getByRole('button', { name: 'Refused' }).click()
  await expect(page).toHaveURL(/status=refused/)
  await expect(card(page, 'Submissions', url)).toContainText('a shop, not a label')
  await card(page, 'Submissions', url)
    .getByRole('button', { name: `Retry ${url}` })
    .click()
  await expectToast(page, 'Queued again')
  await expect(card(page, 'Submissions', url)).toHaveCount(0)

  // Labels: hide one the member sees in Discover.
  const [label] = await rpc(member.session, 'get_unfollowed_labels', { user_id_param: member.session.userId, page_number: 1, items_per_page: 1 })
  await member.page.goto(`/labels?q=${encodeURIComponent(label.label_name)}`)
  await expect(member.page.locator('article[data-label-id]').getByRole('heading', { name: label.label_name, exact: true })).toBeVisible()
  await openTab(page, 'Labels')
  await page.getByRole('searchbox', { name: 'Search labels by name or URL' }).fill(label.label_name)
  await expect(page).toHaveURL(/tab=labels&q=/)
  const row = card(page, 'Labels', label.label_name).first()
  await row.getByRole('button', { name: `Hide ${label.label_name}` }).click()
  await expectToast(page, `${label.label_name} is hidden from members.`)
  await expect(row.getByText('hidden', { exact: true })).toBeVisible()
  await screenshot(page, 'admin-labels')
  await member.page.reload()
  await expect(labelsCountLine(member.page, 'available')).toBeVisible()
  await expect(member.page.locator(`article[data-label-id="${label.id}"]`)).toHaveCount(0)
  // And back.
  await row.getByRole('button', { name: `Unhide ${label.label_name}` }).click()
  await expectToast(page, `${label.label_name} is visible to members again.`)
  await member.page.reload()
  await expect(member.page.locator(`article[data-label-id="${label.id}"]`)).toBeVisible()

  // Invites: create one for two people, see it listed, revoke it; the sign-up form refuses it.
  await openTab(page, 'Invites')
  await page.getByLabel('Uses').fill('2')
  await page.getByLabel('Note').fill('for the e2e band')
  await page.getByRole('button', { name: 'Create invite' }).click()
  await expectToast(page, 'Invite created.')
  const code = (await page.locator('[aria-live="polite"] code').textContent())?.trim() ?? ''
  expect(code).toMatch(/^[2-9a-z]{4}(-[2-9a-z]{4}){5}$/)
  const invite = card(page, 'Invite codes', code)
  await expect(invite).toContainText('for the e2e band')
  await expect(invite).toContainText('active')
  await invite.getByRole('button', { name: `Revoke invite ${code}` }).click()
  await expectToast(page, 'Invite revoked.')
  await expect(invite).toContainText('revoked')
  const valid = await rpc(member.session, 'validate_invite_code', { code_param: code })
  expect(valid).toEqual({ valid: false })

  // Members and Crawls render for the admin; the member's row shows the invite used.
  await openTab(page, 'Members')
  await page.getByRole('searchbox', { name: 'Search members by email' }).fill(member.creds.email)
  // The search reaches the address after its debounce; a tab switched before it could lose to it.
  await expect(page).toHaveURL(/tab=members&q=/)
  await expect(card(page, 'Members', member.creds.email)).toContainText(config.inviteCode)
  await openTab(page, 'Crawls')
  await page.getByRole('button', { name: 'Crawl now' }).click()
  await expectToast(page, 'Crawl requested')
  await screenshot(page, 'admin-crawls')
  await member.page.context().close()
})

test('the console works at 360 px and by keyboard', async ({ page }) => {
  const creds = await signUp(page)
  await promote((await apiSession(creds)).userId)
  await signOut(page)
  await page.setViewportSize(MOBILE)
  await logIn(page, creds)
  await expectPath(page, '/')
  await page.goto('/admin?tab=invites')
  await expect(page.getByRole('button', { name: 'Create invite' })).toBeVisible()
  expect(await hasHorizontalScroll(page)).toBe(false)
  // The tab list: focus the selected tab, move with the arrow keys.
  await page.getByRole('tab', { name: 'Invites' }).focus()
  await page.keyboard.press('ArrowLeft')
  await expect(page.getByRole('tab', { name: 'Members' })).toBeFocused()
  await expect(page).toHaveURL(/tab=members/)
  await expect(page.getByRole('list', { name: 'Members' })).toBeVisible()
  expect(await hasHorizontalScroll(page)).toBe(false)
  await screenshot(page, 'admin-members-mobile')
  // Mobile menu carries the Admin entry.
  await page.getByRole('button', { name: 'Open menu' }).click()
  await expect(page.locator('#mobile-menu').getByRole('link', { name: 'Admin' })).toBeVisible()
})

test('an admin with an authenticator app opens the console only with a session that passed the code', async ({ page, browser }) => {
  const creds = await signUp(page)
  await promote((await apiSession(creds)).userId)
  await signOut(page)
  await logIn(page, creds)
  await expectPath(page, '/')
  const adminCalls = recordRpc(page, 'admin_submissions')

  // The same admin turns an authenticator app on in another browser. This browser's session is
  // aal1 and was stored before the factor existed, so the app alone would still count it as
  // signed in; the console asks the server instead, which has ended that session.
  const other = await browser.newContext()
  const phone = await other.newPage()
  await logIn(phone, creds)
  await expectPath(phone, '/')
  await phone.goto('/security')
  await phone.getByRole('button', { name: 'Set up authenticator app' }).click()
  const secret = (await phone.getByTestId('totp-secret').textContent())?.trim() ?? ''
  await phone.getByLabel('Authentication code').fill(totp(secret))
  await phone.getByRole('button', { name: 'Verify and turn on' }).click()
  await expectToast(phone, 'Two-factor authentication is on.')
  await other.close()

  await page.goto('/admin')
  await expectPath(page, '/login')
  await expect(page.getByRole('heading', { name: 'Admin', level: 1 })).toHaveCount(0)
  expect(adminCalls).toEqual([])

  // Password, then the code: the console opens where the admin was going.
  await page.getByLabel('Email').fill(creds.email)
  await page.getByLabel('Password').fill(creds.password)
  await page.getByRole('button', { name: 'Sign In' }).click()
  await expect(page.getByRole('heading', { name: 'Two-Step Verification' })).toBeVisible()
  expect(adminCalls).toEqual([])
  await page.getByLabel('Authentication code').fill(totp(secret, 1))
  await page.getByRole('button', { name: 'Verify' }).click()
  await expectPath(page, '/admin')
  await expect(page.getByRole('heading', { name: 'Admin', level: 1 })).toBeVisible()
  await expect(page.getByRole('tab', { name: 'Queue' })).toBeVisible()
  await expect.poll(() => adminCalls.length).toBeGreaterThan(0)
})

/** axe-core (WCAG 2.1 A/AA) on the current page: the serious and critical violations, as in a11y.spec.ts. */
async function axeViolations(page: Page, screen: string) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') })
  const result = await page.evaluate(() =>
    (window as unknown as { axe: { run: (...args: unknown[]) => Promise<AxeResults> } }).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      resultTypes: ['violations'],
    }),
  )
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${screen}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
}

test('every admin tab passes axe', async ({ page }) => {
  const creds = await signUp(page)
  await promote((await apiSession(creds)).userId)
  await signOut(page)
  await logIn(page, creds)
  await expectPath(page, '/')
  const findings: string[] = []
  for (const tab of ['queue', 'crawls', 'labels', 'members', 'invites']) {
    await page.goto(`/admin?tab=${tab}`)
    await settled(page)
    await expect(page.getByRole('tabpanel')).toBeVisible()
    findings.push(...(await axeViolations(page, tab)))
  }
  expect(findings).toEqual([])
})
