// Accessibility journeys: axe-core (WCAG 2.1 A/AA) on every screen, signed out and signed in,
// including the open "Submit a label" dialog, the open Explore filter panel and the 360 px menu;
// plus the dialog driven by keyboard only (focus trap, Escape, focus returns to the opener).
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { describe, test } from 'node:test'
import { apiSession, expectPath, followLabels, listenToWholeLabel, MOBILE, newPage, signUp, useBrowser } from './support.mjs'

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js')
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']
const BLOCKING = new Set(['serious', 'critical'])

/** Runs axe on the current page and returns the serious/critical violations, tagged with `screen`. */
async function audit(page, screen) {
  // Let colour transitions (e.g. a button turning enabled) finish, so axe measures the final colours.
  await page.waitForTimeout(300)
  if (!(await page.evaluate(() => typeof window.axe !== 'undefined'))) await page.addScriptTag({ path: AXE_PATH })
  const result = await page.evaluate(
    (tags) => window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] }),
    WCAG_TAGS,
  )
  return result.violations
    .filter((v) => BLOCKING.has(v.impact))
    .map((v) => ({
      screen,
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => `${n.target.join(' ')}\n        ${n.failureSummary?.replaceAll('\n', '\n        ')}`),
    }))
}

function report(violations) {
  return violations
    .map((v) => `[${v.impact}] ${v.screen}: ${v.id} - ${v.help}\n${v.nodes.map((n) => `      ${n}`).join('\n')}`)
    .join('\n')
}

function assertClean(violations) {
  assert.equal(violations.length, 0, `axe found serious/critical WCAG 2.1 A/AA violations:\n${report(violations)}`)
}

/** Loads `path` and waits until the page has its heading and its data. */
async function visit(page, path) {
  await page.goto(path)
  await page.locator('main h1').first().waitFor()
  await page.waitForLoadState('networkidle')
}

describe('accessibility (axe-core, WCAG 2.1 A/AA)', () => {
  const browser = useBrowser()

  test('signed-out screens have no serious or critical violations', async () => {
    const page = await newPage(browser())
    const found = []
    for (const path of ['/login', '/signup', '/no/such/page']) {
      await visit(page, path)
      found.push(...(await audit(page, path)))
    }
    assertClean(found)
    page.assertNoPageErrors()
    await page.context().close()
  })

  test('signed-in screens, the open dialog and the open filter panel have no serious or critical violations', async () => {
    const page = await newPage(browser())
    // Followed labels and a listened label, so the feed, the collection and the cards have content.
    const session = await apiSession(await signUp(page))
    const [first] = await followLabels(session, 6)
    await listenToWholeLabel(session, first.id)
    const found = []
    for (const path of ['/', '/labels', '/explore', '/collection', '/change-password', '/no/such/page']) {
      await visit(page, path)
      found.push(...(await audit(page, path)))

      if (path === '/labels') {
        await page.getByRole('button', { name: 'Submit a label' }).click()
        const dialog = page.getByRole('dialog', { name: 'Submit a label' })
        await dialog.waitFor()
        found.push(...(await audit(page, '/labels (Submit a label dialog, empty)')))
        await dialog.getByLabel('Bandcamp label URL').fill('not a url')
        found.push(...(await audit(page, '/labels (Submit a label dialog, invalid URL)')))
        await dialog.getByLabel('Bandcamp label URL').fill('https://example.bandcamp.com')
        found.push(...(await audit(page, '/labels (Submit a label dialog, valid URL)')))
        await dialog.getByRole('button', { name: 'Cancel' }).click()
        await dialog.waitFor({ state: 'detached' })
      }
      if (path === '/explore') {
        await page.getByRole('button', { name: 'Filters' }).click()
        await page.getByRole('complementary', { name: 'Explore filters' }).waitFor()
        found.push(...(await audit(page, '/explore (filter panel open)')))
      }
    }
    assertClean(found)
    page.assertNoPageErrors()
    await page.context().close()
  })

  test('at 360 px, the screens and the open mobile menu have no serious or critical violations', async () => {
    const page = await newPage(browser(), MOBILE)
    await followLabels(await apiSession(await signUp(page)), 3)
    const found = []
    for (const path of ['/', '/labels', '/explore', '/collection']) {
      await visit(page, path)
      found.push(...(await audit(page, `${path} (360 px)`)))
    }
    await page.getByRole('button', { name: 'Open menu' }).click()
    await page.locator('#mobile-menu').waitFor()
    found.push(...(await audit(page, '/labels (360 px, mobile menu open)')))
    assertClean(found)
    page.assertNoPageErrors()
    await page.context().close()
  })

  test('the Submit a label dialog works by keyboard: focus trap, Escape, focus back to the opener', async () => {
    const page = await newPage(browser())
    await signUp(page)
    await visit(page, '/labels')

    const opener = page.getByRole('button', { name: 'Submit a label' })
    await opener.focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'Submit a label' })
    await dialog.waitFor()

    const active = () =>
      page.evaluate(() => {
        const el = document.activeElement
        return {
          inDialog: Boolean(el?.closest('[role="dialog"]')),
          name: el?.getAttribute('aria-label') || el?.getAttribute('name') || el?.textContent?.trim() || el?.tagName,
        }
      })
    const start = await active()
    assert.deepEqual(start, { inDialog: true, name: 'label_url' }, 'focus moves to the URL field when the dialog opens')

    // With an empty field the Submit button is disabled: the stops are the field, Cancel and Close.
    await dialog.getByLabel('Bandcamp label URL').fill('https://example.bandcamp.com')
    const seen = []
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab')
      const now = await active()
      assert.ok(now.inDialog, `Tab #${i + 1} must keep focus inside the dialog (it went to ${now.name})`)
      seen.push(now.name)
    }
    for (const name of ['Close dialog', 'label_url', 'Cancel', 'Submit']) assert.ok(seen.includes(name), `Tab reaches ${name} (saw ${seen.join(', ')})`)
    assert.ok(seen.indexOf('label_url') !== seen.lastIndexOf('label_url'), `Tab cycles back to the start (saw ${seen.join(', ')})`)

    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Shift+Tab')
      const now = await active()
      assert.ok(now.inDialog, `Shift+Tab #${i + 1} must keep focus inside the dialog (it went to ${now.name})`)
    }

    // Visible focus: the focused control draws an outline or a ring.
    const indicated = await page.evaluate(() => {
      const style = getComputedStyle(document.activeElement)
      return (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || (style.boxShadow && style.boxShadow !== 'none')
    })
    assert.ok(indicated, 'the focused control inside the dialog shows a visible focus indicator')

    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    assert.equal(await opener.evaluate((el) => el === document.activeElement), true, 'focus returns to the Submit a label button')
    await expectPath(page, '/labels')
    page.assertNoPageErrors()
    await page.context().close()
  })
})
