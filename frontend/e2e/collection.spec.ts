// Journeys on /collection: empty states, tabs, search, pager, per-session order and a label
// whose releases are all listened (dimmed, with a check mark).
import type { Page } from '@playwright/test'
import {
  apiSession,
  expect,
  expectPath,
  followLabels,
  labelCard,
  labelCards,
  listenToggle,
  listenToWholeLabel,
  nextRpc,
  openTab,
  releaseCards,
  screenshot,
  signUp,
  test,
} from './support.ts'

const cardHeadings = (page: Page) => labelCards(page).getByRole('heading', { level: 2 })
const cardNames = async (page: Page) => (await cardHeadings(page).allTextContents()).map((name) => name.trim())
const pager = (page: Page, text: string) => page.getByText(text, { exact: true })
const searchBox = (page: Page) => page.getByLabel('Search your labels by name or URL')

test('empty states for a member who follows nothing', async ({ page }) => {
  await signUp(page)
  await page.goto('/collection')
  await expect(page.getByText('Browse all the labels you follow')).toBeVisible()
  await expect(page.getByText('Start following labels in the Labels page to see content on this page!')).toBeVisible()
  await screenshot(page, 'collection-empty')
  await openTab(page, 'All Listened')
  await expect(page.getByText("You don't have any labels with all releases listened to yet.")).toBeVisible()
  await openTab(page, 'To Listen')
  await page.getByRole('link', { name: 'Go to Labels' }).click()
  await expectPath(page, '/labels')
})

test('tabs, pager, search, stable order and a fully listened label', async ({ page }) => {
  const creds = await signUp(page)
  const session = await apiSession(creds)
  const followed = await followLabels(session, 12)

  const load = await nextRpc(page, 'get_all_filtered_labels_by_listen_status', () => page.goto('/collection'))
  expect(load).toEqual({ user_id_param: session.userId, filter_type: 'unchecked' })
  await expect(labelCards(page)).toHaveCount(5)
  await expect(pager(page, 'Page 1 of 3'), 'the pager shows above and below the list').toHaveCount(2)

  // Each label shows up to 5 releases once loaded (skeletons before).
  await expect(page.getByLabel('Loading releases'), 'releases should finish loading').toHaveCount(0)
  for (const card of await labelCards(page).all()) {
    expect(await releaseCards(card).count()).toBeLessThanOrEqual(5)
  }
  await screenshot(page, 'collection')

  // The shuffled order is fixed for the browser session.
  const order = await cardNames(page)
  await page.reload()
  await expect(cardHeadings(page)).toHaveText(order)

  // Pager.
  await page.getByRole('button', { name: 'Next page' }).first().click()
  await expect(pager(page, 'Page 2 of 3')).toHaveCount(2)
  await expect(labelCards(page)).toHaveCount(5)
  const secondPage = await cardNames(page)
  expect(
    secondPage.filter((name) => order.includes(name)),
    'page 2 shows other labels than page 1',
  ).toEqual([])
  await page.getByRole('button', { name: 'Previous page' }).last().click()
  await expect(pager(page, 'Page 1 of 3').first()).toBeVisible()

  // Search by name, then by URL; a search returns to page 1.
  const target = followed[7]
  await page.getByRole('button', { name: 'Next page' }).first().click()
  await searchBox(page).fill(target.label_name.toUpperCase())
  await expect(cardHeadings(page), 'searching a name should find that label').toHaveText([target.label_name])
  await expect(pager(page, 'Page 1 of 1').first()).toBeVisible()
  const host = new URL(target.label_url).host
  await searchBox(page).fill(host)
  await expect.poll(() => cardNames(page), { message: 'searching a URL should find that label' }).toContain(target.label_name)
  await screenshot(page, 'collection-search')

  // Listen to every release of one label: it moves to All Listened, dimmed with a check mark.
  await listenToWholeLabel(session, target.id)
  // The marks reach the open page live (listens:<uid>), and each one reloads the fully-listened
  // flags (filter 'all'); the tab's own list call is the next one that is not a flags call.
  const checked = await nextRpc(
    page,
    'get_all_filtered_labels_by_listen_status',
    () => openTab(page, 'All Listened'),
    (body) => body.filter_type !== 'all',
  )
  expect(checked.filter_type).toBe('checked')
  const done = labelCard(page, target.id)
  await expect(done).toHaveAttribute('data-fully-listened', 'true')
  await expect.poll(() => done.evaluate((el) => Number(getComputedStyle(el).opacity)), { message: 'a fully listened label is dimmed' }).toBeLessThan(1)
  await expect(done.getByText('All releases listened')).toBeVisible()
  await expect(listenToggle(done, { pressed: true }).first()).toBeVisible()
  await expect(listenToggle(done, { pressed: false }), 'its releases show as listened').toHaveCount(0)
  await screenshot(page, 'collection-all-listened')

  await openTab(page, 'To Listen')
  await searchBox(page).fill('')
  await expect(labelCards(page), 'clearing the search shows a full page again').toHaveCount(5)
  await expect(pager(page, 'Page 1 of 3').first()).toBeVisible()
  await expect(labelCard(page, target.id)).toHaveCount(0)
})
