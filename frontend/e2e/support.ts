// Shared setup for the browser journeys: configuration, the `test` fixture (page errors fail a
// journey), sign-up through the UI, direct API calls for test data, screenshots and the locators
// and assertions that several journeys share.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { test as base, expect, type Locator, type Page, type Request } from '@playwright/test'

export { expect }

/** The gateway under test. Throws (the journeys fail, they are not skipped) when it is not configured. */
function gatewayConfig() {
  const url = process.env.LABELBASE_URL
  if (!url) {
    throw new Error(
      'LABELBASE_URL is not set. The e2e journeys need a running gateway that serves the built app plus /auth/v1 and /rest/v1, ' +
        'e.g. LABELBASE_URL=http://127.0.0.1:8080 LABELBASE_ANON_KEY=... LABELBASE_INVITE_CODE=... npm run test:e2e',
    )
  }
  const anonKey = process.env.LABELBASE_ANON_KEY
  const inviteCode = process.env.LABELBASE_INVITE_CODE
  if (!anonKey) throw new Error('LABELBASE_ANON_KEY is not set: the journeys call the API directly to prepare data.')
  if (!inviteCode) throw new Error('LABELBASE_INVITE_CODE is not set: sign-up needs a valid invite code.')
  return {
    url: url.replace(/\/+$/, ''),
    anonKey,
    inviteCode,
    screens: join(process.env.LABELBASE_ARTIFACTS || 'test-results', 'screens'),
  }
}

export const config = gatewayConfig()
mkdirSync(config.screens, { recursive: true })

export const MOBILE = { width: 360, height: 740 }
export const PASSWORD = 'e2e-secret-1'

/** Playwright's `test`, whose page fails the journey on any uncaught error in the page. */
export const test = base.extend({
  page: async ({ page }, use) => {
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(String(error)))
    await use(page)
    expect(errors, 'uncaught errors in the page').toEqual([])
  },
})

let counter = 0
export function uniqueEmail(tag = 'user') {
  counter += 1
  return `e2e-${Date.now()}-${process.pid}-${counter}-${tag}@example.test`
}

/** Saves a PNG of the current screen as <artifacts>/screens/<name>.png (a record of every screen). */
export async function screenshot(page: Page, name: string) {
  await page.screenshot({ path: join(config.screens, `${name}.png`) })
}

/** The toasts' live region. */
export const notifications = (page: Page) => page.getByRole('region', { name: 'Notifications' })

/** Expects a toast containing this text. */
export async function expectToast(page: Page, text: string) {
  await expect(notifications(page).getByText(text).first()).toBeVisible()
}

/** Expects the page's path (not its query string, which holds view state) to become `path`. */
export async function expectPath(page: Page, path: string) {
  await expect(page).toHaveURL((url) => url.pathname === path)
}

export const mainNav = (page: Page) => page.getByRole('navigation', { name: 'Main' })

/** Signs up through /signup with the invite code and waits for the signed-in home page. */
export async function signUp(page: Page, { email = uniqueEmail(), password = PASSWORD } = {}) {
  await page.goto('/signup')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByLabel('Confirm password').fill(password)
  await page.getByLabel('Invite code').fill(config.inviteCode)
  await page.getByRole('button', { name: 'Sign Up' }).click()
  await expectToast(page, 'Account created successfully! You are now logged in.')
  await expectPath(page, '/')
  return { email, password }
}

export interface Credentials {
  email: string
  password: string
}

export async function logIn(page: Page, { email, password }: Credentials) {
  await page.goto('/login')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign In' }).click()
}

/** Logs in with wrong credentials: the server refuses, an error toast shows, the page stays. */
export async function expectLoginRefused(page: Page, creds: Credentials) {
  const refused = page.waitForResponse((r) => r.url().includes('/auth/v1/token') && r.status() >= 400)
  await logIn(page, creds)
  await refused
  await expect(notifications(page).getByRole('alert').first()).toBeVisible()
  await expectPath(page, '/login')
}

/** Opens the account menu (desktop) and signs out. */
export async function signOut(page: Page) {
  await page.getByRole('button', { name: /^Account menu for / }).click()
  await page.getByRole('button', { name: 'Sign Out' }).click()
  await expectPath(page, '/login')
}

/** Selects a tab by (the start of) its name and waits until it is the selected one. */
export async function openTab(page: Page, name: string) {
  const tab = page.getByRole('tab', { name })
  await tab.click()
  await expect(tab).toHaveAttribute('aria-selected', 'true')
}

/** The Labels count line ("N followed labels" / "N available labels"). */
export const labelsCountLine = (page: Page, kind: 'followed' | 'available') => page.getByText(new RegExp(`^\\d+ ${kind} labels?$`))

/** Reads the number in the Labels count line once it shows. */
export async function labelsCount(page: Page, kind: 'followed' | 'available') {
  const line = labelsCountLine(page, kind)
  await expect(line).toBeVisible()
  return Number((await line.textContent())?.trim().split(' ')[0])
}

/** Expects the Labels count line to read `n`. */
export async function expectLabelsCount(page: Page, kind: 'followed' | 'available', n: number) {
  await expect(labelsCountLine(page, kind)).toHaveText(new RegExp(`^${n} ${kind} labels?$`))
}

// ---- Cards and their toggles -------------------------------------------------------------------
// A toggle keeps its accessible name (or at least its start) and tells its state by aria-pressed,
// so the journeys find a toggle by role and the stable start of its name and assert aria-pressed.

export const releaseCards = (scope: Page | Locator) => scope.locator('article[data-release-id]')
export const releaseCard = (scope: Page | Locator, id: number) => scope.locator(`article[data-release-id="${id}"]`)
export const labelCards = (scope: Page | Locator) => scope.locator('article[data-label-id]')
export const labelCard = (scope: Page | Locator, id: number) => scope.locator(`article[data-label-id="${id}"]`)

/** A release's listened toggle ("Mark as Listened" / "Listened" today; genre chips never match). */
export const listenToggle = (scope: Locator, options: { pressed?: boolean } = {}) => scope.getByRole('button', { name: /^(mark as )?listen/i, ...options })

/** A label's follow toggle ("Follow" / "Following" today; tag chips never match). */
export const followToggle = (scope: Locator) => scope.getByRole('button', { name: /^follow/i })

/** The ids of the release cards shown, in order. */
export const releaseIds = (page: Page) => releaseCards(page).evaluateAll((els) => els.map((el) => Number((el as HTMLElement).dataset.releaseId)))

// ---- Waiting for a screen to settle ------------------------------------------------------------

/**
 * Waits until the screen at hand has its heading and its data: no skeletons, nothing marked
 * busy, no "Loading…" spinner, and no finite CSS animation or transition still running (so that
 * screenshots and axe see the final colours).
 */
export async function settled(page: Page) {
  await expect(page.locator('main h1').first()).toBeVisible()
  await expect(page.locator('[aria-busy="true"], [data-skeleton]')).toHaveCount(0)
  await expect(page.getByRole('status').filter({ hasText: /^Loading/ })).toHaveCount(0)
  await animationsDone(page)
}

/** Waits until no finite CSS animation or transition is running (endless ones, like a spinner's, do not count). */
export async function animationsDone(page: Page) {
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity))
}

/** True when the page scrolls sideways. */
export function hasHorizontalScroll(page: Page) {
  return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth)
}

// ---- Direct API access (test data), as the user, the way supabase-js would call it -------------

async function call(method: string, path: string, { token, body, prefer }: { token?: string; body?: unknown; prefer?: string } = {}) {
  const headers: Record<string, string> = { apikey: config.anonKey, Authorization: `Bearer ${token ?? config.anonKey}` }
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  if (prefer) headers.Prefer = prefer
  const res = await fetch(`${config.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${text}`)
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- API rows, checked by the journeys that use them
  return (text ? JSON.parse(text) : null) as any
}

export interface Session {
  token: string
  userId: string
}

export interface Label {
  id: number
  label_name: string
  label_url: string
}

/** Signs in through /auth/v1/token and returns the session. */
export async function apiSession({ email, password }: Credentials): Promise<Session> {
  const session = await call('POST', '/auth/v1/token?grant_type=password', { body: { email, password } })
  return { token: session.access_token, userId: session.user.id }
}

export const rpc = (session: Session, fn: string, args: unknown) => call('POST', `/rest/v1/rpc/${fn}`, { token: session.token, body: args })

/** Follows the first `n` not-yet-followed labels (alphabetical per the server) and returns them. */
export async function followLabels(session: Session, n: number): Promise<Label[]> {
  const labels: Label[] = await rpc(session, 'get_unfollowed_labels', {
    user_id_param: session.userId,
    page_number: 1,
    items_per_page: n,
    letter_filter: null,
    tag_filter: null,
    search_term: null,
  })
  expect(labels.length, `the demo data should hold at least ${n} labels`).toBeGreaterThanOrEqual(n)
  for (const label of labels) {
    await call('POST', '/rest/v1/user_follow_labels', { token: session.token, body: { user_id: session.userId, label_id: label.id } })
  }
  return labels
}

/** Marks every release of `labelId` as listened. */
export async function listenToWholeLabel(session: Session, labelId: number) {
  // The procedure caps p_limit at 100; a demo label has far fewer releases.
  const all: { id: number }[] = await rpc(session, 'get_latest_releases_per_label', { p_label_ids: [labelId], p_limit: 100 })
  expect(all.length, `label ${labelId} should have between 1 and 99 releases`).toBeGreaterThan(0)
  expect(all.length, `label ${labelId} should have between 1 and 99 releases`).toBeLessThan(100)
  for (const release of all) {
    await call('POST', '/rest/v1/user_listened_releases?on_conflict=user_id%2Crelease_id', {
      token: session.token,
      body: { user_id: session.userId, release_id: release.id },
      prefer: 'resolution=merge-duplicates',
    })
  }
  return all
}

// ---- Watching the app's calls ------------------------------------------------------------------

const isRpc = (request: Request, fn: string) => request.method() === 'POST' && new URL(request.url()).pathname === `/rest/v1/rpc/${fn}`

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- request bodies, checked field by field
type Body = Record<string, any>

/**
 * Runs `action` and returns the JSON body of the next call the app makes to procedure `fn`
 * (the next one whose body satisfies `where`, when given).
 */
export async function nextRpc(page: Page, fn: string, action: () => Promise<unknown>, where: (body: Body) => boolean = () => true): Promise<Body> {
  const [request] = await Promise.all([page.waitForRequest((r) => isRpc(r, fn) && where(r.postDataJSON())), action()])
  return request.postDataJSON()
}

/** Records the JSON bodies of the app's calls to procedure `fn` from now on (a live array). */
export function recordRpc(page: Page, fn: string): Body[] {
  const bodies: Body[] = []
  page.on('request', (request) => {
    if (isRpc(request, fn)) bodies.push(request.postDataJSON())
  })
  return bodies
}
