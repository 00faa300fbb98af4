// Shared setup for the browser journeys: configuration, browser launch, sign-up through the
// UI, direct API calls for test data, screenshots and small assertions.
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { after, before } from 'node:test'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'

/** The gateway under test. Throws (the journey fails, it is not skipped) when it is not configured. */
export function gatewayConfig() {
  const url = process.env.LABELBASE_URL
  if (!url) {
    throw new Error(
      'LABELBASE_URL is not set. The e2e journeys need a running gateway that serves the built app plus /auth/v1 and /rest/v1, ' +
        'e.g. LABELBASE_URL=http://127.0.0.1:8080 LABELBASE_ANON_KEY=... LABELBASE_SERVICE_ROLE_KEY=... LABELBASE_INVITE_CODE=... npm run test:e2e',
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
    artifacts: process.env.LABELBASE_ARTIFACTS || fileURLToPath(new URL('../test-results/e2e/', import.meta.url)),
  }
}

export const config = gatewayConfig()
mkdirSync(config.artifacts, { recursive: true })

export const DESKTOP = { width: 1280, height: 900 }
export const MOBILE = { width: 360, height: 740 }
export const PASSWORD = 'e2e-secret-1'

/** Launches Debian's Chromium; playwright gives each launch a fresh, temporary profile. */
export function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}

/** Launches one browser for the enclosing suite and closes it afterwards; call it inside describe(). */
export function useBrowser() {
  let browser
  before(async () => {
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
  })
  return () => browser
}

/** A new, isolated browser context (own storage) and page. Page errors fail the journey. */
export async function newPage(browser, viewport = DESKTOP) {
  const context = await browser.newContext({ viewport, baseURL: config.url })
  context.setDefaultTimeout(15_000)
  const page = await context.newPage()
  const errors = []
  page.on('pageerror', (error) => errors.push(error))
  page.assertNoPageErrors = () => assert.deepEqual(errors.map(String), [], 'uncaught errors in the page')
  return page
}

let counter = 0
export function uniqueEmail(tag = 'user') {
  counter += 1
  return `e2e-${Date.now()}-${process.pid}-${counter}-${tag}@example.test`
}

/** Saves a PNG of the current screen as <artifacts>/<name>.png. */
export async function screenshot(page, name) {
  await page.screenshot({ path: join(config.artifacts, `${name}.png`), fullPage: false })
}

/** Waits for a toast with exactly this text. */
export async function expectToast(page, text) {
  await page.locator('[data-toast]').filter({ hasText: text }).first().waitFor({ state: 'visible' })
}

/** Waits until the page's path is `path`. */
export async function expectPath(page, path) {
  await page.waitForURL((url) => url.pathname === path)
}

/** Signs up through /signup with the invite code and waits for the signed-in home page. */
export async function signUp(page, { email = uniqueEmail(), password = PASSWORD } = {}) {
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

export async function logIn(page, { email, password }) {
  await page.goto('/login')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign In' }).click()
}

/** Logs in with wrong credentials: the server refuses, an error toast shows, the page stays. */
export async function expectLoginRefused(page, creds) {
  const refused = page.waitForResponse((r) => r.url().includes('/auth/v1/token') && r.status() >= 400)
  await logIn(page, creds)
  await refused
  await page.locator('[data-toast="error"]').first().waitFor()
  await expectPath(page, '/login')
}

/** Opens the account menu (desktop) and signs out. */
export async function signOut(page) {
  await page.getByRole('button', { name: /^Account menu for / }).click()
  await page.getByRole('button', { name: 'Sign Out' }).click()
  await expectPath(page, '/login')
}

/** Selects a tab by name and waits until it is the selected one. */
export async function openTab(page, name) {
  await page.getByRole('tab', { name }).click()
  await page.waitForFunction((tab) => document.querySelector('[role="tab"][aria-selected="true"]')?.textContent === tab, name)
}

/** The number in the Labels count line ("N followed labels" / "N available labels"). */
export async function labelsCount(page, kind) {
  const line = page.getByText(new RegExp(`^\\d+ ${kind} labels$`))
  await line.waitFor()
  return Number((await line.textContent()).split(' ')[0])
}

/** Polls `fn` until it returns a truthy value. */
export async function eventually(fn, message, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs
  let last
  while (Date.now() < deadline) {
    last = await fn()
    if (last) return last
    await new Promise((r) => setTimeout(r, 100))
  }
  assert.fail(`${message} (last value: ${JSON.stringify(last)})`)
}

/** True when the page scrolls sideways. */
export function hasHorizontalScroll(page) {
  return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth)
}

/** Waits past the app's 300 ms toggle throttle. */
export const pastThrottle = () => new Promise((r) => setTimeout(r, 350))

// ---- Direct API access (test data), as the user, the way supabase-js would call it ----------

async function call(method, path, { token, body, prefer } = {}) {
  const headers = { apikey: config.anonKey, Authorization: `Bearer ${token ?? config.anonKey}` }
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  if (prefer) headers.Prefer = prefer
  const res = await fetch(`${config.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  const data = text ? JSON.parse(text) : null
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${text}`)
  return data
}

/** Signs in through /auth/v1/token and returns {token, userId}. */
export async function apiSession({ email, password }) {
  const session = await call('POST', '/auth/v1/token?grant_type=password', { body: { email, password } })
  return { token: session.access_token, userId: session.user.id }
}

export const rpc = (session, fn, args) => call('POST', `/rest/v1/rpc/${fn}`, { token: session.token, body: args })

/** Follows the first `n` not-yet-followed labels (alphabetical per the server) and returns them. */
export async function followLabels(session, n) {
  const labels = await rpc(session, 'get_unfollowed_labels', {
    user_id_param: session.userId,
    page_number: 1,
    items_per_page: n,
    letter_filter: null,
    tag_filter: null,
    search_term: null,
  })
  assert.ok(labels.length >= n, `the demo data should hold at least ${n} labels`)
  for (const label of labels) {
    await call('POST', '/rest/v1/user_follow_labels', { token: session.token, body: { user_id: session.userId, label_id: label.id } })
  }
  return labels
}

/** Marks every release of `labelId` as listened. */
export async function listenToWholeLabel(session, labelId) {
  // The procedure caps p_limit at 100; a demo label has far fewer releases.
  const all = await rpc(session, 'get_latest_releases_per_label', { p_label_ids: [labelId], p_limit: 100 })
  assert.ok(all.length > 0 && all.length < 100, `label ${labelId} should have between 1 and 99 releases, has ${all.length}`)
  for (const release of all) {
    await call('POST', '/rest/v1/user_listened_releases?on_conflict=user_id%2Crelease_id', {
      token: session.token,
      body: { user_id: session.userId, release_id: release.id },
      prefer: 'resolution=merge-duplicates',
    })
  }
  return all
}

const isRpc = (request, fn) => request.method() === 'POST' && new URL(request.url()).pathname === `/rest/v1/rpc/${fn}`

/** Runs `action` and returns the JSON body of the next call the app makes to procedure `fn`. */
export async function nextRpc(page, fn, action) {
  const [request] = await Promise.all([page.waitForRequest((r) => isRpc(r, fn)), action()])
  return request.postDataJSON()
}

/** Records the JSON bodies of the app's calls to procedure `fn` from now on (a live array). */
export function recordRpc(page, fn) {
  const bodies = []
  page.on('request', (request) => {
    if (isRpc(request, fn)) bodies.push(request.postDataJSON())
  })
  return bodies
}
