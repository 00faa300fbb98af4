// Live updates and the avatar (issues #28 and #29, the app's share): a listened mark made in one
// browser reaches another signed in as the same member; a release inserted with the service key
// while the feed is open shows "1 new release"; an uploaded avatar shows in the header.
import type { Page } from '@playwright/test'
import { apiSession, config, expect, expectPath, expectToast, followLabels, logIn, releaseCard, releaseCards, signOut, signUp, test } from './support'

/**
 * Resolves once the page's realtime socket has joined `topic` (the server's ok reply to
 * phx_join). Start it before the page opens the channel: a broadcast sent before the join is not
 * delivered, as on Supabase.
 */
function joined(page: Page, topic: string): Promise<void> {
  return new Promise((resolve) => {
    page.on('websocket', (ws) => {
      ws.on('framereceived', ({ payload }) => {
        const text = typeof payload === 'string' ? payload : payload.toString()
        if (text.includes(`"realtime:${topic}"`) && text.includes('phx_reply') && text.includes('"status":"ok"')) resolve()
      })
    })
  })
}

test('a listened mark in one browser shows in another, and so does the unmark', async ({ page, browser }) => {
  const creds = await signUp(page)
  const session = await apiSession(creds)
  await followLabels(session, 1)

  const other = await browser.newContext()
  const second = await other.newPage()
  try {
    const firstJoined = joined(page, `listens:${session.userId}`)
    const secondJoined = joined(second, `listens:${session.userId}`)
    await page.goto('/')
    await logIn(second, creds)
    await expect(releaseCards(second).first()).toBeVisible()
    await expect(releaseCards(page).first()).toBeVisible()
    await Promise.all([firstJoined, secondJoined])

    const id = Number(await releaseCards(page).first().getAttribute('data-release-id'))
    const mine = releaseCard(page, id).getByRole('button', { name: 'Mark as Listened' })
    const theirs = releaseCard(second, id).getByRole('button', { name: /listened/i })
    await expect(theirs).toHaveAttribute('aria-pressed', 'false')

    await mine.click()
    await expect(theirs).toHaveAttribute('aria-pressed', 'true')

    await theirs.click()
    await expect(releaseCard(page, id).getByRole('button', { name: /listened/i })).toHaveAttribute('aria-pressed', 'false')
  } finally {
    await other.close()
  }
})

test('a release added while the feed is open shows as "1 new release", and a tap shows it', async ({ page }) => {
  const serviceKey = process.env.LABELBASE_SERVICE_ROLE_KEY
  expect(serviceKey, 'LABELBASE_SERVICE_ROLE_KEY is needed to insert a release as the crawler would').toBeTruthy()
  const creds = await signUp(page)
  const session = await apiSession(creds)
  const [label] = await followLabels(session, 1)

  const releasesJoined = joined(page, 'releases')
  await page.goto('/')
  await expect(releaseCards(page).first()).toBeVisible()
  await releasesJoined
  await expect(page.getByRole('button', { name: /new release/ })).toHaveCount(0)

  const title = `Live release ${Date.now()}`
  const res = await fetch(`${process.env.LABELBASE_URL}/rest/v1/releases`, {
    method: 'POST',
    headers: { apikey: serviceKey!, Authorization: `Bearer ${serviceKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      label_id: label.id,
      title,
      artist: 'Live Artist',
      release_url: `https://live-${Date.now()}.bandcamp.com/album/x`,
      release_date: new Date().toISOString().slice(0, 10),
      genres: ['ambient'],
    }),
  })
  expect(res.status, await res.text()).toBe(201)

  const notice = page.getByRole('button', { name: '1 new release' })
  await expect(notice).toBeVisible()
  await notice.click()
  await expect(page.getByRole('article', { name: new RegExp(`^${title} by Live Artist`) })).toBeVisible()
  await expect(notice).toHaveCount(0)
})

test('an avatar uploaded on the account page shows in the header, and a replacement replaces it', async ({ page }) => {
  await signUp(page)
  await page.goto('/security')
  // A real PNG, drawn by the browser, so the render endpoint has something to crop.
  const drawn = async (color: string) => {
    const dataUrl = await page.evaluate((fill) => {
      const canvas = document.createElement('canvas')
      canvas.width = 300
      canvas.height = 200
      const ctx = canvas.getContext('2d')!
      ctx.fillStyle = fill
      ctx.fillRect(0, 0, 300, 200)
      return canvas.toDataURL('image/png')
    }, color)
    return Buffer.from(dataUrl.split(',')[1], 'base64')
  }
  const input = page.getByLabel('Choose a picture')
  await input.setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: await drawn('#7c3aed') })
  await expectToast(page, 'Your picture is updated.')

  const header = page.getByTestId('header-avatar')
  await expect(header).toBeVisible()
  const first = await header.getAttribute('src')
  expect(first).toContain('/storage/v1/render/image/sign/avatars/')
  // The render endpoint answered with an image: cropped to a square.
  await expect.poll(() => header.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight])).toEqual([192, 192])

  // A file that is too large is refused before any upload.
  await input.setInputFiles({ name: 'big.png', mimeType: 'image/png', buffer: Buffer.alloc(2 * 1024 * 1024 + 1) })
  await expect(page.getByRole('alert')).toHaveText('The picture must be 2 MB or smaller.')

  await input.setInputFiles({ name: 'me2.png', mimeType: 'image/png', buffer: await drawn('#059669') })
  await expect(header).not.toHaveAttribute('src', first!)
})

test('the admin console shows a new submission without a reload, and storage use per bucket', async ({ page, browser }) => {
  const serviceKey = process.env.LABELBASE_SERVICE_ROLE_KEY
  expect(serviceKey, 'LABELBASE_SERVICE_ROLE_KEY is needed to promote the admin').toBeTruthy()
  const adminCreds = await signUp(page)
  const promoted = await fetch(`${config.url}/auth/v1/admin/users/${(await apiSession(adminCreds)).userId}`, {
    method: 'PUT',
    headers: { apikey: serviceKey!, Authorization: `Bearer ${serviceKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ app_metadata: { role: 'admin' } }),
  })
  expect(promoted.status, await promoted.text()).toBe(200)
  await signOut(page)
  await logIn(page, adminCreds)
  await expectPath(page, '/')

  const adminJoined = joined(page, 'admin')
  await page.goto('/admin')
  await expect(page.getByRole('heading', { name: 'Admin', level: 1 })).toBeVisible()
  await adminJoined

  // A member (another browser) submits a label; the open queue shows it by itself.
  const other = await browser.newContext()
  try {
    const memberPage = await other.newPage()
    const member = await apiSession(await signUp(memberPage))
    const url = `https://e2e-live-${Date.now().toString(36)}.bandcamp.com`
    const res = await fetch(`${config.url}/rest/v1/labels_to_add`, {
      method: 'POST',
      headers: { apikey: config.anonKey, Authorization: `Bearer ${member.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ label_url: url, user_id: member.userId }),
    })
    expect(res.status).toBe(201)
    await expect(page.getByRole('list', { name: 'Submissions' }).getByRole('listitem').filter({ hasText: url })).toBeVisible()
  } finally {
    await other.close()
  }

  await page.getByRole('tab', { name: 'Storage' }).click()
  await expect(page.getByRole('list', { name: 'Storage buckets' }).getByRole('listitem').filter({ hasText: 'avatars' })).toContainText('private')
})
