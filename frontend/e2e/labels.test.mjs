// Journeys on /labels: following and unfollowing in both tabs with the count line, search,
// tag filter, infinite scroll, and the "Submit a label" dialog.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { eventually, expectToast, labelsCount, newPage, nextRpc, openTab, pastThrottle, recordRpc, screenshot, signUp, useBrowser } from './support.mjs'

const cards = (page) => page.locator('article[data-label-id]')
const cardNames = (page) => cards(page).locator('h3').allTextContents()

describe('labels', () => {
  const browser = useBrowser()

  test('follow and unfollow in both tabs, with the count changing', async () => {
    const page = await newPage(browser())
    await signUp(page)
    await page.goto('/labels')
    const available = await labelsCount(page, 'available')
    assert.ok(available >= 3, 'the demo data should offer labels to discover')
    await screenshot(page, 'labels-discover')

    await openTab(page, 'Following')
    assert.equal(await labelsCount(page, 'followed'), 0)
    await page.getByText("You're not following any labels yet. Discover new labels in the Discover tab!").waitFor()
    await screenshot(page, 'labels-following-empty')

    await openTab(page, 'Discover')
    await labelsCount(page, 'available')
    const followed = []
    for (let i = 0; i < 2; i++) {
      const card = cards(page).first()
      const name = (await card.locator('h3').textContent()).trim()
      followed.push(name)
      await card.getByRole('button', { name: 'Follow', exact: true }).click()
      await expectToast(page, 'Following label')
      await page.locator('article[data-label-id]', { has: page.getByRole('heading', { name, exact: true }) }).waitFor({ state: 'detached' })
      assert.equal(await labelsCount(page, 'available'), available - i - 1)
      await pastThrottle()
    }

    await openTab(page, 'Following')
    assert.equal(await labelsCount(page, 'followed'), 2)
    assert.deepEqual((await cardNames(page)).map((n) => n.trim()).sort(), [...followed].sort())
    await screenshot(page, 'labels-following')

    const card = cards(page).first()
    await card.getByRole('button', { name: 'Following', exact: true }).click()
    await expectToast(page, 'Unfollowed label')
    await eventually(async () => (await cards(page).count()) === 1, 'the unfollowed label should leave the Following tab')
    assert.equal(await labelsCount(page, 'followed'), 1)

    await openTab(page, 'Discover')
    assert.equal(await labelsCount(page, 'available'), available - 1)
    page.assertNoPageErrors()
    await page.context().close()
  })

  test('search, tag filter, active filters and infinite scroll', async () => {
    const page = await newPage(browser())
    await signUp(page)
    const requests = recordRpc(page, 'get_unfollowed_labels')
    await page.goto('/labels')
    const available = await labelsCount(page, 'available')
    await cards(page).first().waitFor()
    assert.equal(requests[0].page_number, 1)
    assert.equal(requests[0].items_per_page, 20)
    assert.equal(requests[0].search_term, null)
    assert.equal(requests[0].tag_filter, null)

    if (available > 20) {
      await page.locator('footer').scrollIntoViewIfNeeded()
      await eventually(async () => (await cards(page).count()) > 20, 'scrolling down should load the next page of labels')
      assert.ok(requests.some((body) => body.page_number === 2), 'the next page is requested')
      await page.evaluate(() => window.scrollTo(0, 0))
    }

    // Search by a word of the first label's name (debounced).
    const word = (await cards(page).first().locator('h3').textContent()).trim().split(/\s+/)[0]
    const started = Date.now()
    const search = await nextRpc(page, 'get_unfollowed_labels', () => page.getByLabel('Search labels by name').fill(word))
    assert.ok(Date.now() - started >= 550, 'the search should wait for the 600 ms debounce')
    assert.equal(search.search_term, word)
    assert.equal(search.page_number, 1)
    await page.getByText(`Search: “${word}”`).waitFor()
    await eventually(async () => {
      const names = await cardNames(page)
      return names.length > 0 && names.every((name) => name.toLowerCase().includes(word.toLowerCase()))
    }, 'every label shown should match the search')
    await screenshot(page, 'labels-search')

    // A tag chip resets the search and filters by tag.
    const tag = (await cards(page).first().locator('ul[aria-label="Tags"] li').first().textContent()).trim()
    await cards(page).first().getByRole('button', { name: `Filter by tag ${tag}` }).click()
    await page.getByText(`Tag: ${tag}`).waitFor()
    assert.equal(await page.getByLabel('Search labels by name').inputValue(), '')
    await eventually(async () => (await page.getByText(/^Search: /).count()) === 0, 'changing the tag should clear the search')
    await eventually(async () => {
      const tagLists = await cards(page).locator('ul[aria-label="Tags"]').allTextContents()
      return tagLists.length > 0 && tagLists.every((text) => text.includes(tag))
    }, 'every label shown should carry the tag')
    await screenshot(page, 'labels-tag-filter')

    // Switching tabs resets the search text.
    await page.getByLabel('Search labels by name').fill('zz')
    await openTab(page, 'Following')
    assert.equal(await page.getByLabel('Search labels by name').inputValue(), '')

    await openTab(page, 'Discover')
    await page.getByRole('button', { name: 'Clear all' }).click()
    await eventually(async () => (await labelsCount(page, 'available')) === available, 'Clear all should restore the full list')
    page.assertNoPageErrors()
    await page.context().close()
  })

  test('submit a label: each invalid URL message, success, already in the queue', async () => {
    const page = await newPage(browser())
    await signUp(page)
    await page.goto('/labels')
    const opener = page.getByRole('button', { name: 'Submit a label' })
    await opener.click()
    const dialog = page.getByRole('dialog', { name: 'Submit a label' })
    const input = dialog.getByLabel('Bandcamp label URL')
    await input.waitFor()

    const cases = [
      ['https://example.com/some-label', 'Please enter a valid Bandcamp label URL'],
      ['some-label.bandcamp.com', 'Please enter a valid URL'],
      [
        'https://bandcamp.com/discover/ambient',
        'The URL does not appear to be a valid Bandcamp label URL. Please provide a URL like "https://bandcamp.com" or "https://bandcamp.com/label/labelname".',
      ],
    ]
    for (const [value, message] of cases) {
      await input.fill(value)
      await dialog.getByRole('alert').filter({ hasText: message }).waitFor()
    }
    await screenshot(page, 'submit-label-invalid')
    await dialog.getByRole('button', { name: 'Submit', exact: true }).click()
    await expectToast(page, 'Invalid URL. Please provide a valid Bandcamp label URL.')

    const sub = `e2e-${Date.now()}-${process.pid}`
    await input.fill(`  https://${sub.toUpperCase()}.bandcamp.com/music/  `)
    await dialog.getByText(`Will be submitted as https://${sub}.bandcamp.com`).waitFor()
    await dialog.getByRole('button', { name: 'Submit', exact: true }).click()
    await expectToast(page, 'Label submitted successfully! New label submissions are processed every day. Thank you for your submission!')
    await dialog.waitFor({ state: 'detached' })
    await screenshot(page, 'submit-label-success')

    await opener.click()
    await input.fill(`https://${sub}.bandcamp.com`)
    await dialog.getByRole('button', { name: 'Submit', exact: true }).click()
    await expectToast(page, 'This label is already in the queue and is awaiting processing and validation. New submissions are processed every day.')

    // Keyboard: Escape closes the dialog and focus returns to the opener.
    await opener.click()
    await input.waitFor()
    assert.equal(await input.evaluate((el) => el === document.activeElement), true)
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    assert.equal(await opener.evaluate((el) => el === document.activeElement), true)
    page.assertNoPageErrors()
    await page.context().close()
  })
})
