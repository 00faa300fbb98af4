// Journeys on / (New Releases) and /explore: empty states, infinite scroll, a listened toggle
// that survives a reload, the toggle throttle, Shuffle and the filters.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { apiSession, eventually, expectPath, expectToast, followLabels, newPage, nextRpc, pastThrottle, recordRpc, screenshot, signUp, useBrowser } from './support.mjs'

const releaseCards = (page) => page.locator('article[data-release-id]')
const releaseIds = (page) => releaseCards(page).evaluateAll((els) => els.map((el) => Number(el.dataset.releaseId)))
const card = (page, id) => page.locator(`article[data-release-id="${id}"]`)

describe('new releases and explore', () => {
  const browser = useBrowser()

  test('the feed invites a new member to browse labels', async () => {
    const page = await newPage(browser())
    await signUp(page)
    await page.getByText('Start following labels to see their latest releases here!').waitFor()
    await screenshot(page, 'feed-empty')
    await page.getByRole('link', { name: 'Browse Labels' }).click()
    await expectPath(page, '/labels')
    page.assertNoPageErrors()
    await page.context().close()
  })

  test('feed: cards, infinite scroll, listened toggle survives a reload, throttle', async () => {
    const page = await newPage(browser())
    const creds = await signUp(page)
    const session = await apiSession(creds)
    await followLabels(session, 8)

    const first = await nextRpc(page, 'get_latest_releases', () => page.goto('/'))
    assert.deepEqual(first, { user_id: session.userId, label_ids: null, page_size: 9, page: 1 })
    await releaseCards(page).first().waitFor()
    assert.equal(await releaseCards(page).count(), 9)
    await screenshot(page, 'feed')

    // Every card: cover (image or placeholder), date, label link, title, artist, listen button.
    const top = releaseCards(page).first()
    assert.equal(await top.locator('img, [role="img"]').count() >= 1, true)
    await top.locator('time').waitFor()
    const labelLink = top.getByTestId('label-link')
    assert.match(await labelLink.getAttribute('href'), /^https?:\/\//)
    assert.equal(await labelLink.getAttribute('target'), '_blank')
    await top.getByRole('button', { name: 'Mark as Listened' }).waitFor()

    // Infinite scroll: the sentinel loads page 2.
    const second = await nextRpc(page, 'get_latest_releases', () => page.locator('footer').scrollIntoViewIfNeeded())
    assert.equal(second.page, 2)
    await eventually(async () => (await releaseCards(page).count()) > 9, 'scrolling should append the next page')
    await page.evaluate(() => window.scrollTo(0, 0))

    // Listen toggle, then reload: the state comes back from the server.
    const [idA, idB] = await releaseIds(page)
    await card(page, idA).getByRole('button', { name: 'Mark as Listened' }).click()
    await expectToast(page, 'Marked as listened')
    await card(page, idA).getByRole('button', { name: 'Listened', exact: true }).waitFor()
    await page.reload()
    await card(page, idA).getByRole('button', { name: 'Listened', exact: true }).waitFor()
    assert.equal(await card(page, idA).getByRole('button', { name: 'Listened', exact: true }).getAttribute('aria-pressed'), 'true')
    await screenshot(page, 'feed-listened')

    // Two toggles within 300 ms: the second is refused and nothing changes for it.
    await pastThrottle()
    await page.evaluate(
      ([a, b]) => {
        document.querySelector(`article[data-release-id="${a}"] button[aria-pressed]`).click()
        document.querySelector(`article[data-release-id="${b}"] button[aria-pressed]`).click()
      },
      [idA, idB],
    )
    await expectToast(page, "Please slow down, you're toggling too fast!")
    await expectToast(page, 'Unmarked as listened')
    await card(page, idB).getByRole('button', { name: 'Mark as Listened' }).waitFor()
    await page.reload()
    await card(page, idA).getByRole('button', { name: 'Mark as Listened' }).waitFor()
    await card(page, idB).getByRole('button', { name: 'Mark as Listened' }).waitFor()
    page.assertNoPageErrors()
    await page.context().close()
  })

  test('explore: shuffle excludes what was shown; staged filters; genre chips', async () => {
    const page = await newPage(browser())
    const creds = await signUp(page)
    const session = await apiSession(creds)

    const initial = await nextRpc(page, 'get_random_releases', () => page.goto('/explore'))
    assert.equal(initial.user_id, session.userId)
    assert.equal(initial.num_releases, 9)
    assert.equal(initial.time_range_days, 90)
    assert.deepEqual(initial.exclude_ids, [])
    assert.equal(initial.genre_filters, null)
    await releaseCards(page).first().waitFor()
    const shown = await releaseIds(page)
    assert.ok(shown.length > 0 && shown.length <= 9)
    await screenshot(page, 'explore')

    const shuffled = await nextRpc(page, 'get_random_releases', () => page.getByRole('button', { name: 'Shuffle' }).click())
    assert.deepEqual([...shuffled.exclude_ids].sort(), [...shown].sort())
    await eventually(async () => {
      const now = await releaseIds(page)
      return now.length === 0 || now.every((id) => !shown.includes(id))
    }, 'Shuffle should show releases not seen before')

    // Filters are staged: moving the slider sends nothing until Apply Filters.
    await page.getByRole('button', { name: 'Filters' }).click()
    const panel = page.getByRole('complementary', { name: 'Explore filters' })
    const calls = recordRpc(page, 'get_random_releases')
    const slider = panel.getByLabel('Time range')
    await slider.focus()
    await page.keyboard.press('End')
    await panel.getByTestId('time-range-value').filter({ hasText: '6 Months' }).waitFor()
    await screenshot(page, 'explore-filters')
    await new Promise((r) => setTimeout(r, 400))
    assert.equal(calls.length, 0, 'staged filters must not reload')
    const applied = await nextRpc(page, 'get_random_releases', () => panel.getByRole('button', { name: 'Apply Filters' }).click())
    assert.equal(applied.time_range_days, 180)
    assert.deepEqual(applied.exclude_ids, [], 'changing filters clears the excluded ids')
    await panel.getByRole('button', { name: 'Close' }).click()

    // With the panel closed, a genre on a card applies at once.
    await releaseCards(page).first().waitFor()
    const genreButton = releaseCards(page).first().getByRole('button', { name: /^Filter by genre / })
    const genre = (await genreButton.first().textContent()).trim()
    const byGenre = await nextRpc(page, 'get_random_releases', () => genreButton.first().click())
    assert.deepEqual(byGenre.genre_filters, [genre])
    assert.deepEqual(byGenre.exclude_ids, [])
    const chips = page.getByRole('group', { name: 'Genre filters' })
    await chips.getByText(genre, { exact: true }).waitFor()
    await eventually(async () => {
      const lists = await releaseCards(page).locator('ul[aria-label="Genres"]').allTextContents()
      return lists.length > 0 && lists.every((text) => text.includes(genre))
    }, 'every release shown should carry the genre')
    await screenshot(page, 'explore-genre')

    const cleared = await nextRpc(page, 'get_random_releases', () => chips.getByRole('button', { name: 'Clear all' }).click())
    assert.equal(cleared.genre_filters, null)
    await chips.waitFor({ state: 'detached' })
    page.assertNoPageErrors()
    await page.context().close()
  })
})
