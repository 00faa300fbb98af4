// Journeys on / (New Releases) and /explore: empty states, infinite scroll, a listened toggle
// that survives a reload, the toggle throttle, Shuffle and the filters.
import {
  apiSession,
  expect,
  expectPath,
  expectToast,
  followLabels,
  listenToggle,
  nextRpc,
  recordRpc,
  releaseCard,
  releaseCards,
  releaseIds,
  screenshot,
  signUp,
  test,
} from './support.ts'

test('the feed invites a new member to browse labels', async ({ page }) => {
  await signUp(page)
  await expect(page.getByText('Start following labels to see their latest releases here!')).toBeVisible()
  await screenshot(page, 'feed-empty')
  await page.getByRole('link', { name: 'Browse Labels' }).click()
  await expectPath(page, '/labels')
})

test('feed: cards, infinite scroll, listened toggle survives a reload, throttle', async ({ page }) => {
  const creds = await signUp(page)
  const session = await apiSession(creds)
  await followLabels(session, 8)

  const first = await nextRpc(page, 'get_latest_releases', () => page.goto('/'))
  // label_ids is left out: its default (NULL) means every followed label.
  expect(first).toEqual({ user_id: session.userId, page_size: 9, page: 1 })
  await expect(releaseCards(page)).toHaveCount(9)
  await screenshot(page, 'feed')

  // Every card: cover (image or placeholder), date, label link, title, artist, listen toggle.
  const top = releaseCards(page).first()
  await expect(top.locator('img, [role="img"]')).not.toHaveCount(0)
  await expect(top.locator('time')).toBeVisible()
  const labelLink = top.getByTestId('label-link')
  await expect(labelLink).toHaveAttribute('href', /^https?:\/\//)
  await expect(labelLink).toHaveAttribute('target', '_blank')
  await expect(listenToggle(top)).toHaveAttribute('aria-pressed', 'false')

  // Infinite scroll: the sentinel loads page 2.
  const second = await nextRpc(page, 'get_latest_releases', () => page.getByRole('contentinfo').scrollIntoViewIfNeeded())
  expect(second.page).toBe(2)
  await expect.poll(() => releaseCards(page).count(), { message: 'scrolling should append the next page' }).toBeGreaterThan(9)
  await page.evaluate(() => window.scrollTo(0, 0))

  // Listen toggle, then reload: the state comes back from the server.
  const [idA, idB] = await releaseIds(page)
  const toggleA = listenToggle(releaseCard(page, idA))
  const toggleB = listenToggle(releaseCard(page, idB))
  await toggleA.click()
  await expectToast(page, 'Marked as listened')
  await expect(toggleA).toHaveAttribute('aria-pressed', 'true')
  await page.reload()
  await expect(toggleA).toHaveAttribute('aria-pressed', 'true')
  await expect(toggleB).toHaveAttribute('aria-pressed', 'false')
  await screenshot(page, 'feed-listened')

  // Two toggles within 300 ms (one task in the page): the second is refused and nothing changes
  // for it. The reload above started a fresh throttle window.
  const both = [await toggleA.elementHandle(), await toggleB.elementHandle()]
  await page.evaluate((buttons) => buttons.forEach((button) => (button as HTMLElement).click()), both)
  await expectToast(page, "Please slow down, you're toggling too fast!")
  await expectToast(page, 'Unmarked as listened')
  await expect(toggleA).toHaveAttribute('aria-pressed', 'false')
  await expect(toggleB).toHaveAttribute('aria-pressed', 'false')
  await page.reload()
  await expect(toggleA).toHaveAttribute('aria-pressed', 'false')
  await expect(toggleB).toHaveAttribute('aria-pressed', 'false')
})

test('explore: shuffle excludes what was shown; staged filters; genre chips', async ({ page }) => {
  const creds = await signUp(page)
  const session = await apiSession(creds)

  const initial = await nextRpc(page, 'get_random_releases', () => page.goto('/explore'))
  expect(initial).toMatchObject({ user_id: session.userId, num_releases: 9, time_range_days: 90, exclude_ids: [] })
  expect(initial, 'no genre filter is sent when none is chosen').not.toHaveProperty('genre_filters')
  await expect(releaseCards(page).first()).toBeVisible()
  const shown = await releaseIds(page)
  expect(shown.length).toBeGreaterThan(0)
  expect(shown.length).toBeLessThanOrEqual(9)
  await screenshot(page, 'explore')

  const shuffled = await nextRpc(page, 'get_random_releases', () => page.getByRole('button', { name: 'Shuffle' }).click())
  expect([...shuffled.exclude_ids].sort()).toEqual([...shown].sort())
  await expect
    .poll(
      async () => {
        const now = await releaseIds(page)
        return now.length === 0 || now.every((id) => !shown.includes(id))
      },
      { message: 'Shuffle should show releases not seen before' },
    )
    .toBe(true)

  // Filters are staged: moving the slider sends nothing until Apply Filters.
  await page.getByRole('button', { name: 'Filters' }).click()
  const panel = page.getByRole('complementary', { name: 'Explore filters' })
  const calls = recordRpc(page, 'get_random_releases')
  const slider = panel.getByRole('slider', { name: 'Time range' })
  await slider.press('End')
  await expect(panel.getByTestId('time-range-value')).toContainText('6 Months')
  await screenshot(page, 'explore-filters')
  expect(calls, 'staged filters must not reload').toEqual([])
  const applied = await nextRpc(page, 'get_random_releases', () => panel.getByRole('button', { name: 'Apply Filters' }).click())
  expect(applied.time_range_days).toBe(180)
  expect(applied.exclude_ids, 'changing filters clears the excluded ids').toEqual([])
  await panel.getByRole('button', { name: 'Close' }).click()
  await expect(panel).toBeHidden()

  // With the panel closed, a genre on a card applies at once.
  await expect(releaseCards(page).first()).toBeVisible()
  const genreButton = releaseCards(page)
    .first()
    .getByRole('button', { name: /^Filter by genre / })
    .first()
  const genre = ((await genreButton.textContent()) ?? '').trim()
  const byGenre = await nextRpc(page, 'get_random_releases', () => genreButton.click())
  expect(byGenre.genre_filters).toEqual([genre])
  expect(byGenre.exclude_ids).toEqual([])
  const chips = page.getByRole('group', { name: 'Genre filters' })
  await expect(chips.getByText(genre, { exact: true })).toBeVisible()
  await expect
    .poll(
      async () => {
        const lists = await releaseCards(page).getByRole('list', { name: 'Genres' }).allTextContents()
        return lists.length > 0 && lists.every((text) => text.includes(genre))
      },
      { message: 'every release shown should carry the genre' },
    )
    .toBe(true)
  await screenshot(page, 'explore-genre')
  // Since the slider moved, only Apply Filters and the genre chip asked for releases: the staged
  // slider value never reloaded on its own, not even later.
  expect(calls, 'only Apply Filters and the genre asked for releases').toEqual([applied, byGenre])

  const cleared = await nextRpc(page, 'get_random_releases', () => chips.getByRole('button', { name: 'Clear all' }).click())
  expect(cleared, 'clearing the genres drops the filter').not.toHaveProperty('genre_filters')
  await expect(chips).toBeHidden()
})
