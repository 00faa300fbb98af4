// Journeys on /labels: following and unfollowing in both tabs with the count line, search,
// tag filter, infinite scroll, and the "Submit a label" dialog.
import type { Page } from '@playwright/test'
import {
  expect,
  expectLabelsCount,
  expectToast,
  followToggle,
  labelCards,
  labelsCount,
  nextRpc,
  openTab,
  recordRpc,
  screenshot,
  signUp,
  test,
} from './support.ts'

/** The app refuses a follow or listen toggle within 300 ms of the previous one. */
const TOGGLE_THROTTLE_MS = 300

const cardNames = async (page: Page) => (await labelCards(page).getByRole('heading').allTextContents()).map((name) => name.trim())
const cardNamed = (page: Page, name: string) => labelCards(page).filter({ has: page.getByRole('heading', { name, exact: true }) })
const searchBox = (page: Page) => page.getByLabel('Search labels by name')

test('follow and unfollow in both tabs, with the count changing', async ({ page }) => {
  // Time runs as usual, but the journey can jump past the toggle throttle instead of waiting.
  await page.clock.install()
  await signUp(page)
  await page.goto('/labels')
  const available = await labelsCount(page, 'available')
  expect(available, 'the demo data should offer labels to discover').toBeGreaterThanOrEqual(3)
  await screenshot(page, 'labels-discover')

  await openTab(page, 'Following')
  await expectLabelsCount(page, 'followed', 0)
  await expect(page.getByText("You're not following any labels yet. Discover new labels in the Discover tab!")).toBeVisible()
  await screenshot(page, 'labels-following-empty')

  await openTab(page, 'Discover')
  await expectLabelsCount(page, 'available', available)
  const followed: string[] = []
  for (let i = 0; i < 2; i++) {
    const name = (await labelCards(page).first().getByRole('heading').first().textContent())?.trim() ?? ''
    followed.push(name)
    const card = cardNamed(page, name)
    await expect(followToggle(card)).toHaveAttribute('aria-pressed', 'false')
    await followToggle(card).click()
    await expectToast(page, 'Following label')
    await expect(card).toHaveCount(0)
    await expectLabelsCount(page, 'available', available - i - 1)
    await page.clock.fastForward(TOGGLE_THROTTLE_MS)
  }

  await openTab(page, 'Following')
  await expectLabelsCount(page, 'followed', 2)
  await expect.poll(async () => (await cardNames(page)).sort()).toEqual([...followed].sort())
  for (const name of followed) await expect(followToggle(cardNamed(page, name))).toHaveAttribute('aria-pressed', 'true')
  await screenshot(page, 'labels-following')

  const card = cardNamed(page, followed[0])
  await followToggle(card).click()
  await expectToast(page, 'Unfollowed label')
  await expect(labelCards(page), 'the unfollowed label should leave the Following tab').toHaveCount(1)
  await expect(card).toHaveCount(0)
  await expectLabelsCount(page, 'followed', 1)

  await openTab(page, 'Discover')
  await expectLabelsCount(page, 'available', available - 1)
})

test('search, tag filter, active filters and infinite scroll', async ({ page }) => {
  await signUp(page)
  const requests = recordRpc(page, 'get_unfollowed_labels')
  await page.goto('/labels')
  const available = await labelsCount(page, 'available')
  await expect(labelCards(page).first()).toBeVisible()
  // Filters not in use are left out (their default, NULL, means no filter).
  expect(requests[0]).toMatchObject({ page_number: 1, items_per_page: 20 })
  expect(requests[0]).not.toHaveProperty('search_term')
  expect(requests[0]).not.toHaveProperty('tag_filter')

  if (available > 20) {
    await page.getByRole('contentinfo').scrollIntoViewIfNeeded()
    await expect.poll(() => labelCards(page).count(), { message: 'scrolling down should load the next page of labels' }).toBeGreaterThan(20)
    expect(
      requests.some((body) => body.page_number === 2),
      'the next page is requested',
    ).toBe(true)
    await page.evaluate(() => window.scrollTo(0, 0))
  }

  // Search by a word of the first label's name (debounced). A next page the infinite scroll asks
  // for meanwhile is not the search.
  const word = ((await labelCards(page).first().getByRole('heading').first().textContent()) ?? '').trim().split(/\s+/)[0]
  const started = Date.now()
  const search = await nextRpc(
    page,
    'get_unfollowed_labels',
    () => searchBox(page).fill(word),
    (body) => body.search_term != null,
  )
  expect(Date.now() - started, 'the search should wait for the 600 ms debounce').toBeGreaterThanOrEqual(550)
  expect(search).toMatchObject({ search_term: word, page_number: 1 })
  await expect(page.getByText(`Search: “${word}”`)).toBeVisible()
  await expect
    .poll(
      async () => {
        const names = await cardNames(page)
        return names.length > 0 && names.every((name) => name.toLowerCase().includes(word.toLowerCase()))
      },
      { message: 'every label shown should match the search' },
    )
    .toBe(true)
  await screenshot(page, 'labels-search')

  // A tag chip resets the search and filters by tag.
  const first = labelCards(page).first()
  const tag = ((await first.getByRole('list', { name: 'Tags' }).getByRole('listitem').first().textContent()) ?? '').trim()
  await first.getByRole('button', { name: `Filter by tag ${tag}` }).click()
  await expect(page.getByText(`Tag: ${tag}`)).toBeVisible()
  await expect(searchBox(page)).toHaveValue('')
  await expect(page.getByText(/^Search: /), 'changing the tag should clear the search').toHaveCount(0)
  await expect
    .poll(
      async () => {
        const tagLists = await labelCards(page).getByRole('list', { name: 'Tags' }).allTextContents()
        return tagLists.length > 0 && tagLists.every((text) => text.includes(tag))
      },
      { message: 'every label shown should carry the tag' },
    )
    .toBe(true)
  await screenshot(page, 'labels-tag-filter')

  // Switching tabs resets the search text.
  await searchBox(page).fill('zz')
  await openTab(page, 'Following')
  await expect(searchBox(page)).toHaveValue('')
  // The member follows nothing, so no followed label carries the tag: it is not carried over.
  await expect(page.getByText(`Tag: ${tag}`)).toHaveCount(0)

  await openTab(page, 'Discover')
  await expectLabelsCount(page, 'available', available)
})

test('submit a label: each invalid URL message, success, already in the queue', async ({ page }) => {
  await signUp(page)
  await page.goto('/labels')
  const opener = page.getByRole('button', { name: 'Submit a label' })
  await opener.click()
  const dialog = page.getByRole('dialog', { name: 'Submit a label' })
  const input = dialog.getByLabel('Bandcamp label URL')
  await expect(input).toBeVisible()

  const cases = [
    ['https://example.com/some-label', 'Please enter a valid Bandcamp label URL'],
    ['some-label.bandcamp.com', 'Please enter a valid URL'],
    [
      'https://bandcamp.com/discover/ambient',
      'The URL does not appear to be a valid Bandcamp label URL. Please provide a URL like "https://labelname.bandcamp.com" or "https://labelname.bandcamp.com/label/labelname".',
    ],
  ]
  for (const [value, message] of cases) {
    await input.fill(value)
    await expect(dialog.getByRole('alert').filter({ hasText: message })).toBeVisible()
  }
  await screenshot(page, 'submit-label-invalid')
  await dialog.getByRole('button', { name: 'Submit', exact: true }).click()
  await expectToast(page, 'Invalid URL. Please provide a valid Bandcamp label URL.')

  const sub = `e2e-${Date.now()}-${process.pid}`
  await input.fill(`  https://${sub.toUpperCase()}.bandcamp.com/music/  `)
  await expect(dialog.getByText(`Will be submitted as https://${sub}.bandcamp.com`)).toBeVisible()
  await dialog.getByRole('button', { name: 'Submit', exact: true }).click()
  await expectToast(page, 'Label submitted successfully! New label submissions are processed every day. Thank you for your submission!')
  await expect(dialog).toBeHidden()
  await screenshot(page, 'submit-label-success')

  await opener.click()
  await input.fill(`https://${sub}.bandcamp.com`)
  await dialog.getByRole('button', { name: 'Submit', exact: true }).click()
  await expectToast(page, 'This label is already in the queue and is awaiting processing and validation. New submissions are processed every day.')

  // Keyboard: Escape closes the dialog and focus returns to the opener.
  await opener.click()
  await expect(input).toBeFocused()
  await page.keyboard.press('Escape')
  await expect(dialog).toBeHidden()
  await expect(opener).toBeFocused()
})
