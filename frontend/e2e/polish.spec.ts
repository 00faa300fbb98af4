// Journeys for the app's finish (issue 22): toasts above the dialog and clear of the press on
// phones, Shuffle starting over, the Collection's live fully-listened state, the tag row that
// stays put, the covers a row at 1280 px, and screenshots of every screen at four widths.
import type { Locator, Page } from '@playwright/test'
import {
  apiSession,
  config,
  expect,
  followLabels,
  labelCard,
  labelCards,
  listenToggle,
  listenToWholeLabel,
  MOBILE,
  notifications,
  releaseCards,
  rpc,
  screenshot,
  settled,
  signUp,
  test,
} from './support.ts'

/** True when the element at the centre of `target` is `target` or inside it (nothing paints over it there). */
async function isTopAtCentre(page: Page, target: Locator) {
  const box = await target.boundingBox()
  expect(box, 'the element is on screen').not.toBeNull()
  const handle = await target.elementHandle()
  return page.evaluate(
    ([el, x, y]) => {
      const top = document.elementFromPoint(x as number, y as number)
      return top !== null && (el as Element).contains(top)
    },
    [handle, box!.x + box!.width / 2, box!.y + box!.height / 2] as const,
  )
}

test('a toast shown while the dialog is open is painted above it', async ({ page }) => {
  await signUp(page)
  await page.goto('/labels')
  await page.getByRole('button', { name: 'Submit a label' }).click()
  const dialog = page.getByRole('dialog', { name: 'Submit a label' })
  await expect(dialog).toBeVisible()
  await dialog.getByLabel('Bandcamp label URL').fill('https://bandcamp.com/discover')
  await dialog.getByRole('button', { name: 'Submit' }).click()
  const toast = notifications(page).getByRole('alert').filter({ hasText: 'Invalid URL. Please provide a valid Bandcamp label URL.' })
  await expect(toast).toBeVisible()
  // The pointer on it holds it (an error toast lasts 3 s; the checks below can take longer on a busy machine).
  await toast.hover()
  expect(await isTopAtCentre(page, toast), 'the toast is the top element at its own centre').toBe(true)
  await screenshot(page, 'submit-dialog-toast')
  // Its close button works while the dialog is open (it is not behind the inert page).
  await toast.getByRole('button', { name: 'Dismiss notification' }).click()
  await expect(toast).toHaveCount(0)
  await expect(dialog).toBeVisible()
  // The wrong-shape message's example is a label URL, not the typed host.
  await expect(dialog.getByText('Please provide a URL like "https://labelname.bandcamp.com"')).toBeVisible()
})

test('a URL of a label already on Labelbase offers to follow it', async ({ page }) => {
  const creds = await signUp(page)
  const session = await apiSession(creds)
  const [label] = await rpc(session, 'get_unfollowed_labels', { user_id_param: session.userId, page_number: 1, items_per_page: 1 })
  await page.goto('/labels')
  await page.getByRole('button', { name: 'Submit a label' }).click()
  const dialog = page.getByRole('dialog', { name: 'Submit a label' })
  await dialog.getByLabel('Bandcamp label URL').fill(label.label_url)
  await dialog.getByRole('button', { name: 'Submit' }).click()
  await expect(dialog.getByText(`${label.label_name} is already on Labelbase.`)).toBeVisible()
  await screenshot(page, 'submit-dialog-already-listed')
  await dialog.getByRole('button', { name: `Follow ${label.label_name}` }).click()
  await expect(notifications(page).getByText('Following label')).toBeVisible()
  await expect(dialog).toHaveCount(0)
  await page.getByRole('tab', { name: 'Following' }).click()
  await expect(labelCard(page, label.id)).toBeVisible()
})

test('on a phone, a toast keeps clear of the control just pressed; Undo brings an unmarked release back', async ({ page }) => {
  await page.clock.install()
  await page.setViewportSize(MOBILE)
  const creds = await signUp(page)
  await followLabels(await apiSession(creds), 3)
  await page.goto('/')
  await expect(releaseCards(page).first()).toBeVisible()
  // A card whose button sits in the lower half of the screen.
  const card = releaseCards(page).nth(2)
  await card.scrollIntoViewIfNeeded()
  const button = listenToggle(card)
  // The button at the bottom of the screen, where a bottom toast would cover it.
  await button.evaluate((el) => el.scrollIntoView({ block: 'end' }))
  await button.click()
  await expect(notifications(page).getByText('Marked as listened')).toBeVisible()
  expect(await isTopAtCentre(page, button), 'the toast does not cover the button just pressed').toBe(true)
  await screenshot(page, 'w360-toast-clear-of-press')

  await page.clock.fastForward(350) // past the 300 ms toggle throttle
  await button.click()
  const undoToast = notifications(page).getByRole('status').filter({ hasText: 'Unmarked as listened' })
  await expect(undoToast).toBeVisible()
  await undoToast.hover() // the toast waits while pointed at
  await page.clock.fastForward(350)
  await undoToast.getByRole('button', { name: 'Undo' }).click()
  await expect(button).toHaveAttribute('aria-pressed', 'true')
})

test('Shuffle starts over once it has shown every match', async ({ page }) => {
  await signUp(page)
  // A narrow pick (today's releases, or the last week's), so a few shuffles show every match.
  for (const range of ['0', '6', '30']) {
    await page.goto(`/explore?range=${range}`)
    await expect(page.locator('main [aria-busy="true"]')).toHaveCount(0)
    if ((await releaseCards(page).count()) > 0) break
  }
  const first = await releaseCards(page).count()
  expect(first, 'the demo catalogue has releases in a short range').toBeGreaterThan(0)
  const shuffle = page.getByRole('button', { name: 'Shuffle' })
  const allShown = page.getByText('You have seen every release that matches. Shuffle to start over.')
  for (let i = 0; i < 30 && !(await allShown.isVisible()); i++) {
    await shuffle.click()
    await expect(shuffle).toBeEnabled()
  }
  await expect(allShown).toBeVisible()
  await screenshot(page, 'explore-all-shown')
  await shuffle.click()
  await expect(releaseCards(page).first()).toBeVisible()
  await expect(allShown).toHaveCount(0)
})

test('the Collection shows a label fully listened the moment its last release is marked, and reverts', async ({ page }) => {
  await page.clock.install()
  const creds = await signUp(page)
  const session = await apiSession(creds)
  const [label] = await followLabels(session, 1)
  // Everything but the five newest (the strip) is listened already.
  const all: { id: number }[] = await rpc(session, 'get_latest_releases_per_label', { p_label_ids: [label.id], p_limit: 100 })
  await listenToWholeLabel(session, label.id)
  for (const release of all.slice(0, 5)) {
    const res = await fetch(`${config.url}/rest/v1/user_listened_releases?user_id=eq.${session.userId}&release_id=eq.${release.id}`, {
      method: 'DELETE',
      headers: { apikey: config.anonKey, Authorization: `Bearer ${session.token}` },
    })
    expect(res.ok).toBe(true)
  }
  await page.goto('/collection')
  const card = labelCard(page, label.id)
  await expect(releaseCards(card)).toHaveCount(5)
  await expect(card).not.toHaveAttribute('data-fully-listened')
  for (const release of all.slice(0, 5)) {
    const toggle = listenToggle(card.locator(`article[data-release-id="${release.id}"]`))
    await toggle.click()
    await expect(toggle).toHaveAttribute('aria-pressed', 'true')
    await page.clock.fastForward(350)
  }
  await expect(card).toHaveAttribute('data-fully-listened', 'true')
  await expect(card.getByText('All releases listened')).toBeAttached()
  await screenshot(page, 'collection-fully-listened-live')
  await page.clock.fastForward(350)
  const third = listenToggle(card.locator(`article[data-release-id="${all[2].id}"]`))
  await third.click()
  await expect(card).not.toHaveAttribute('data-fully-listened')
  // Marked again, the label is among the fully listened ones in the other tab.
  await page.clock.fastForward(350)
  await third.click()
  await expect(card).toHaveAttribute('data-fully-listened', 'true')
  await page.getByRole('tab', { name: 'All Listened' }).click()
  await expect(labelCard(page, label.id)).toHaveAttribute('data-fully-listened', 'true')
})

test('the tag row stays put when a tag is chosen, and every tag is reachable', async ({ page }) => {
  await signUp(page)
  await page.goto('/labels')
  const row = page.getByRole('list', { name: 'Filter by tag' })
  await expect(row.getByRole('button').first()).toBeVisible()
  const chips = row.getByRole('button')
  const before = await chips.evaluateAll((els) => els.map((el) => ({ text: el.textContent, ...el.getBoundingClientRect().toJSON() })))
  expect(before.length).toBeGreaterThan(3)
  await chips.nth(3).click()
  await expect(page.getByText(`Tag: ${before[3].text}`)).toBeVisible()
  const after = await chips.evaluateAll((els) => els.map((el) => ({ text: el.textContent, ...el.getBoundingClientRect().toJSON() })))
  expect(after.map(({ text, x, y }) => ({ text, x, y }))).toEqual(before.map(({ text, x, y }) => ({ text, x, y })))
  await expect(chips.nth(3)).toHaveAttribute('aria-pressed', 'true')

  const more = page.getByRole('button', { name: /^More tags \(\d+\)$/ })
  if (await more.count()) {
    await more.click()
    const all = page.getByRole('list', { name: 'All tags' })
    const last = (await all.getByRole('button').last().textContent())!.trim()
    await page.getByLabel('Find a tag').fill(last)
    await all.getByRole('button', { name: last, exact: true }).click()
    await expect(page.getByText(`Tag: ${last}`)).toBeVisible()
    await expect(labelCards(page).first()).toBeVisible()
  }
  await page.getByRole('button', { name: 'Clear all' }).click()
  await expect(page.getByText(/^Tag: /)).toHaveCount(0)
  await screenshot(page, 'labels-tag-row')
})

test('New Releases shows at least four covers a row at 1280 px, more wider, two on a phone', async ({ page }) => {
  const creds = await signUp(page)
  await followLabels(await apiSession(creds), 6)
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.goto('/')
  await expect(releaseCards(page)).toHaveCount(9)
  const firstRow = () =>
    releaseCards(page).evaluateAll((els) => {
      const tops = els.map((el) => Math.round(el.getBoundingClientRect().top))
      return tops.filter((top) => top === tops[0]).length
    })
  expect(await firstRow()).toBeGreaterThanOrEqual(4)
  // Wider screens show more a row, phones two.
  await page.setViewportSize({ width: 1920, height: 1080 })
  await expect.poll(firstRow).toBeGreaterThanOrEqual(5)
  await page.setViewportSize({ width: 360, height: 740 })
  await expect.poll(firstRow).toBe(2)
  await page.setViewportSize({ width: 1280, height: 800 })
  // Title, artist, label and date are legible: nothing clipped to an ellipsis in the first card.
  const card = releaseCards(page).first()
  for (const part of [card.getByRole('heading'), card.getByTestId('label-link')]) {
    expect(await part.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true)
  }
})

test('explore: nine releases fit 1280×800 beside the open filter panel', async ({ page }) => {
  await signUp(page)
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.goto('/explore')
  await expect(releaseCards(page)).toHaveCount(9)
  await page.getByRole('button', { name: 'Filters' }).click()
  await expect(page.getByRole('group', { name: 'Genres' }).getByRole('button').first()).toBeVisible()
  const bottom = await releaseCards(page).evaluateAll((els) => Math.max(...els.map((el) => el.getBoundingClientRect().bottom)))
  expect(bottom, 'the ninth card ends inside the 800 px screen').toBeLessThanOrEqual(800)
  await screenshot(page, 'explore-1280-panel')
})

test('screens at 360, 768, 1280 and 1920 px', async ({ page }) => {
  test.setTimeout(240_000)
  const creds = await signUp(page)
  const session = await apiSession(creds)
  const labels = await followLabels(session, 8)
  await listenToWholeLabel(session, labels[0].id)
  for (const width of [360, 768, 1280, 1920]) {
    await page.setViewportSize({ width, height: width < 768 ? 740 : width < 1920 ? 800 : 1080 })
    for (const [path, name] of [
      ['/', 'new'],
      ['/labels', 'labels'],
      ['/labels?tab=following', 'labels-following'],
      ['/explore', 'explore'],
      ['/collection?tab=checked', 'collection-listened'],
      ['/collection', 'collection'],
    ] as const) {
      await page.goto(path)
      await settled(page)
      await screenshot(page, `w${width}-${name}`)
    }
  }
  await page.setViewportSize({ width: 360, height: 740 })
  await page.goto('/_dev/inbox')
  await screenshot(page, 'w360-dev-inbox')
})
