// Measures a cold load of the web app in Debian's Chromium: bytes on the
// wire (as the browser counts them, compressed), requests, and the time
// until the first API response. Usage: node scripts/measure-cold-load.mjs
// http://127.0.0.1:8123/ [path]. Not a test: figures for docs/performance.md.
import { chromium } from 'playwright-core'

const base = process.argv[2] ?? 'http://127.0.0.1:8080/'
const path = process.argv[3] ?? '/'
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' })
const page = await browser.newPage()
const cdp = await page.context().newCDPSession(page)
await cdp.send('Network.enable')
await cdp.send('Network.setCacheDisabled', { cacheDisabled: true })
let bytes = 0
let requests = 0
cdp.on('Network.loadingFinished', (e) => {
  bytes += e.encodedDataLength
  requests++
})
const start = Date.now()
let firstAPI = null
page.on('response', (r) => {
  if (firstAPI === null && /\/(rest|auth)\/v1\//.test(r.url())) firstAPI = Date.now() - start
})
await page.goto(new URL(path, base).toString(), { waitUntil: 'networkidle' })
const loaded = Date.now() - start
console.log(JSON.stringify({ path, requests, kib: +(bytes / 1024).toFixed(1), firstApiResponseMs: firstAPI, networkIdleMs: loaded }))
await browser.close()
