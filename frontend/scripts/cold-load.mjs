// Measures a cold load of / as a signed-in member who follows labels: bytes
// on the wire (CDP encodedDataLength, headers included), requests, time from
// navigation start to the first feed card, and the request waterfall.
// Not a test: it prints figures for docs/performance-web.md.
//
//   LABELBASE_URL=http://127.0.0.1:8123 LABELBASE_INVITE_CODE=... node scripts/cold-load.mjs [runs]
import { chromium } from 'playwright-core'

const url = (process.env.LABELBASE_URL || 'http://127.0.0.1:8123').replace(/\/+$/, '')
const invite = process.env.LABELBASE_INVITE_CODE
if (!invite) throw new Error('LABELBASE_INVITE_CODE is required')
const runs = Math.min(Number(process.argv[2] || 5), 20)

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
})
try {
  // Sign up through the app, follow labels through the API, keep the session.
  const setup = await browser.newContext({ baseURL: url })
  const page = await setup.newPage()
  const email = `perf-${Date.now()}@example.test`
  await page.goto('/signup')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password', { exact: true }).fill('perf-secret-1')
  await page.getByLabel('Confirm password').fill('perf-secret-1')
  await page.getByLabel('Invite code').fill(invite)
  await page.getByRole('button', { name: 'Sign Up' }).click()
  await page.waitForURL((u) => u.pathname === '/')
  const anonKey = await page.evaluate(() => window.__LABELBASE__.anonKey)
  const api = async (path, token, body) => {
    const res = await fetch(url + path, {
      method: 'POST',
      headers: { apikey: anonKey, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
    const t = await res.text()
    return t ? JSON.parse(t) : null
  }
  const s = await api('/auth/v1/token?grant_type=password', anonKey, { email, password: 'perf-secret-1' })
  const labels = await api('/rest/v1/rpc/get_unfollowed_labels', s.access_token, {
    user_id_param: s.user.id,
    page_number: 1,
    items_per_page: 10,
    letter_filter: null,
    tag_filter: null,
    search_term: null,
  })
  for (const l of labels) await api('/rest/v1/user_follow_labels', s.access_token, { user_id: s.user.id, label_id: l.id })
  const state = await setup.storageState()
  await setup.close()

  const results = []
  for (let i = 0; i < runs; i++) {
    // A new context has its own empty HTTP cache: every load is cold.
    const ctx = await browser.newContext({ baseURL: url, storageState: state })
    // Timed inside the page, so the figure does not include Playwright's polling.
    await ctx.addInitScript(() => {
      new MutationObserver((_, obs) => {
        if (document.querySelector('article[data-release-id]')) {
          window.__firstCard = performance.now()
          obs.disconnect()
        }
      }).observe(document, { childList: true, subtree: true })
      // Main-thread work over 50 ms: tells an idle gap (waiting) from a busy one (script).
      window.__longTasks = []
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longTasks.push([Math.round(e.startTime), Math.round(e.startTime + e.duration)])
      }).observe({ type: 'longtask', buffered: true })
    })
    const p = await ctx.newPage()
    const cdp = await ctx.newCDPSession(p)
    await cdp.send('Network.enable')
    let bytes = 0
    let requests = 0
    cdp.on('Network.loadingFinished', (e) => {
      bytes += e.encodedDataLength
      requests++
    })
    await p.goto('/', { waitUntil: 'commit' })
    await p.waitForSelector('article[data-release-id]', { timeout: 15000 })
    const card = await p.evaluate(() => window.__firstCard)
    await p.waitForLoadState('networkidle')
    const waterfall = await p.evaluate(() =>
      performance.getEntriesByType('resource').map((r) => ({
        name: new URL(r.name).pathname.replace(/-[A-Za-z0-9_-]{8}\./, '.'),
        start: Math.round(r.startTime),
        end: Math.round(r.responseEnd),
        kb: +(r.transferSize / 1024).toFixed(1),
      })),
    )
    const longTasks = await p.evaluate(() => window.__longTasks)
    results.push({ card, bytes, requests, waterfall, longTasks })
    await ctx.close()
  }
  results.sort((a, b) => a.card - b.card)
  const median = results[Math.floor(results.length / 2)]
  console.log(`runs=${runs} first-card ms: ${results.map((r) => Math.round(r.card)).join(' ')}`)
  console.log(`median run: first card ${Math.round(median.card)} ms, ${(median.bytes / 1024).toFixed(1)} KB on the wire, ${median.requests} requests`)
  console.log(`  long tasks (ms): ${median.longTasks.map(([a, b]) => `${a}-${b}`).join(' ') || 'none'}`)
  for (const w of median.waterfall) console.log(`  ${String(w.start).padStart(5)}-${String(w.end).padEnd(5)} ${String(w.kb).padStart(6)} KB  ${w.name}`)
} finally {
  await browser.close()
}
