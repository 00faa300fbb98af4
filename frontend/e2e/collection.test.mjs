// Journeys on /collection: empty states, tabs, search, pager, per-session order and a label
// whose releases are all listened (dimmed, with a check mark).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { apiSession, eventually, expectPath, followLabels, listenToWholeLabel, newPage, nextRpc, openTab, screenshot, signUp, useBrowser } from './support.mjs'

const labelCards = (page) => page.locator('article[data-label-id]')
const cardNames = async (page) => (await labelCards(page).locator('h2').allTextContents()).map((n) => n.trim())

describe('collection', () => {
  const browser = useBrowser()

  test('empty states for a member who follows nothing', async () => {
    const page = await newPage(browser())
    await signUp(page)
    await page.goto('/collection')
    await page.getByText('Browse all the labels you follow').waitFor()
    await page.getByText('Start following labels in the Labels page to see content on this page!').waitFor()
    await screenshot(page, 'collection-empty')
    await openTab(page, 'All Listened')
    await page.getByText("You don't have any labels with all releases listened to yet.").waitFor()
    await openTab(page, 'To Listen')
    await page.getByRole('link', { name: 'Go to Labels' }).click()
    await expectPath(page, '/labels')
    page.assertNoPageErrors()
    await page.context().close()
  })

  test('tabs, pager, search, stable order and a fully listened label', async () => {
    const page = await newPage(browser())
    const creds = await signUp(page)
    const session = await apiSession(creds)
    const followed = await followLabels(session, 12)

    const load = await nextRpc(page, 'get_all_filtered_labels_by_listen_status', () => page.goto('/collection'))
    assert.deepEqual(load, { user_id_param: session.userId, filter_type: 'unchecked' })
    await labelCards(page).first().waitFor()
    assert.equal(await labelCards(page).count(), 5)
    assert.equal(await page.getByText('Page 1 of 3', { exact: true }).count(), 2, 'the pager shows above and below the list')

    // Each label shows up to 5 releases once loaded (skeletons before).
    await eventually(async () => (await page.locator('[aria-label="Loading releases"]').count()) === 0, 'releases should finish loading')
    for (const count of await labelCards(page).evaluateAll((els) => els.map((el) => el.querySelectorAll('article[data-release-id]').length))) {
      assert.ok(count <= 5)
    }
    await screenshot(page, 'collection')

    // The shuffled order is fixed for the browser session.
    const order = await cardNames(page)
    await page.reload()
    await labelCards(page).first().waitFor()
    assert.deepEqual(await cardNames(page), order)

    // Pager.
    await page.getByRole('button', { name: 'Next page' }).first().click()
    assert.equal(await page.getByText('Page 2 of 3', { exact: true }).count(), 2)
    const secondPage = await cardNames(page)
    assert.equal(secondPage.filter((name) => order.includes(name)).length, 0)
    await page.getByRole('button', { name: 'Previous page' }).last().click()
    await page.getByText('Page 1 of 3', { exact: true }).first().waitFor()

    // Search by name, then by URL; a search returns to page 1.
    const target = followed[7]
    await page.getByRole('button', { name: 'Next page' }).first().click()
    await page.getByLabel('Search your labels by name or URL').fill(target.label_name.toUpperCase())
    await eventually(async () => (await cardNames(page)).join('|') === target.label_name, 'searching a name should find that label')
    await page.getByText('Page 1 of 1', { exact: true }).first().waitFor()
    const host = new URL(target.label_url).host
    await page.getByLabel('Search your labels by name or URL').fill(host)
    await eventually(async () => (await cardNames(page)).includes(target.label_name), 'searching a URL should find that label')
    await screenshot(page, 'collection-search')

    // Listen to every release of one label: it moves to All Listened, dimmed with a check mark.
    await listenToWholeLabel(session, target.id)
    const checked = await nextRpc(page, 'get_all_filtered_labels_by_listen_status', () => openTab(page, 'All Listened'))
    assert.equal(checked.filter_type, 'checked')
    const done = page.locator(`article[data-label-id="${target.id}"]`)
    await done.waitFor()
    assert.equal(await done.getAttribute('data-fully-listened'), 'true')
    assert.ok(Number(await done.evaluate((el) => getComputedStyle(el).opacity)) < 1, 'a fully listened label is dimmed')
    await done.getByText('All releases listened').waitFor()
    await done.getByRole('button', { name: 'Listened', exact: true }).first().waitFor()
    assert.equal(await done.getByRole('button', { name: 'Mark as Listened' }).count(), 0, 'its releases show as listened')
    await screenshot(page, 'collection-all-listened')

    await openTab(page, 'To Listen')
    await page.getByLabel('Search your labels by name or URL').fill('')
    await eventually(async () => (await labelCards(page).count()) === 5, 'clearing the search shows a full page again')
    await page.getByText('Page 1 of 3', { exact: true }).first().waitFor()
    assert.equal(await page.locator(`article[data-label-id="${target.id}"]`).count(), 0)
    page.assertNoPageErrors()
    await page.context().close()
  })
})
