// Accessibility journeys: axe-core (WCAG 2.1 A/AA) on every screen, signed out and signed in,
// including the open "Submit a label" dialog, the open Explore filter panel and the 360 px menu;
// plus the dialog driven by keyboard only (focus trap, Escape, focus returns to the opener).
import { createRequire } from 'node:module'
import type { Page } from '@playwright/test'
import type { AxeResults } from 'axe-core'
import { animationsDone, apiSession, expect, expectPath, followLabels, listenToWholeLabel, MOBILE, settled, signUp, test } from './support.ts'

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js')
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']
const BLOCKING = new Set(['serious', 'critical'])

interface Finding {
  screen: string
  id: string
  impact: string
  help: string
  nodes: string[]
}

/** Runs axe on the current page and returns the serious/critical violations, tagged with `screen`. */
async function audit(page: Page, screen: string): Promise<Finding[]> {
  // Let colour transitions (e.g. a button turning enabled) finish, so axe measures the final colours.
  await animationsDone(page)
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE_PATH })
  const result = await page.evaluate(
    (tags) =>
      (window as unknown as { axe: { run: (...args: unknown[]) => Promise<AxeResults> } }).axe.run(document, {
        runOnly: { type: 'tag', values: tags },
        resultTypes: ['violations'],
      }),
    WCAG_TAGS,
  )
  return result.violations
    .filter((v) => BLOCKING.has(v.impact ?? ''))
    .map((v) => ({
      screen,
      id: v.id,
      impact: v.impact ?? '',
      help: v.help,
      nodes: v.nodes.map((n) => `${n.target.join(' ')}\n        ${n.failureSummary?.replaceAll('\n', '\n        ')}`),
    }))
}

function report(findings: Finding[]) {
  return findings.map((v) => `[${v.impact}] ${v.screen}: ${v.id} - ${v.help}\n${v.nodes.map((n) => `      ${n}`).join('\n')}`).join('\n')
}

function expectClean(findings: Finding[]) {
  expect(findings, `axe found serious/critical WCAG 2.1 A/AA violations:\n${report(findings)}`).toEqual([])
}

/** Loads `path` and waits until the page has its heading and its data. */
async function visit(page: Page, path: string) {
  await page.goto(path)
  await settled(page)
}

test('signed-out screens have no serious or critical violations', async ({ page }) => {
  const found: Finding[] = []
  for (const path of ['/login', '/signup', '/no/such/page']) {
    await visit(page, path)
    found.push(...(await audit(page, path)))
  }
  expectClean(found)
})

test('signed-in screens, the open dialog and the open filter panel have no serious or critical violations', async ({ page }) => {
  // Followed labels and a listened label, so the feed, the collection and the cards have content.
  const session = await apiSession(await signUp(page))
  const [first] = await followLabels(session, 6)
  await listenToWholeLabel(session, first.id)
  const found: Finding[] = []
  for (const path of ['/', '/labels', '/explore', '/collection', '/change-password', '/no/such/page']) {
    await visit(page, path)
    found.push(...(await audit(page, path)))

    if (path === '/labels') {
      await page.getByRole('button', { name: 'Submit a label' }).click()
      const dialog = page.getByRole('dialog', { name: 'Submit a label' })
      const input = dialog.getByLabel('Bandcamp label URL')
      await expect(input).toBeVisible()
      found.push(...(await audit(page, '/labels (Submit a label dialog, empty)')))
      await input.fill('not a url')
      await expect(dialog.getByRole('alert')).toBeVisible()
      found.push(...(await audit(page, '/labels (Submit a label dialog, invalid URL)')))
      await input.fill('https://example.bandcamp.com')
      await expect(dialog.getByRole('button', { name: 'Submit', exact: true })).toBeEnabled()
      found.push(...(await audit(page, '/labels (Submit a label dialog, valid URL)')))
      await dialog.getByRole('button', { name: 'Cancel' }).click()
      await expect(dialog).toBeHidden()
    }
    if (path === '/explore') {
      await page.getByRole('button', { name: 'Filters' }).click()
      await expect(page.getByRole('complementary', { name: 'Explore filters' })).toBeVisible()
      found.push(...(await audit(page, '/explore (filter panel open)')))
    }
  }
  expectClean(found)
})

test.describe('at 360 px', () => {
  test.use({ viewport: MOBILE })

  test('the screens and the open mobile menu have no serious or critical violations', async ({ page }) => {
    await followLabels(await apiSession(await signUp(page)), 3)
    const found: Finding[] = []
    for (const path of ['/', '/labels', '/explore', '/collection']) {
      await visit(page, path)
      found.push(...(await audit(page, `${path} (360 px)`)))
    }
    const toggle = page.getByRole('button', { name: /^(open |close |toggle )?(main |navigation )?menu$/i })
    await toggle.click()
    await expect(toggle).toHaveAttribute('aria-expanded', 'true')
    await expect(page.locator(`#${await toggle.getAttribute('aria-controls')}`)).toBeVisible()
    found.push(...(await audit(page, '/labels (360 px, mobile menu open)')))
    expectClean(found)
  })
})

test('the Submit a label dialog works by keyboard: focus trap, Escape, focus back to the opener', async ({ page }) => {
  await signUp(page)
  await visit(page, '/labels')

  const opener = page.getByRole('button', { name: 'Submit a label' })
  await opener.focus()
  await page.keyboard.press('Enter')
  const dialog = page.getByRole('dialog', { name: 'Submit a label' })
  const input = dialog.getByLabel('Bandcamp label URL')
  await expect(input, 'focus moves to the URL field when the dialog opens').toBeFocused()

  const active = () =>
    page.evaluate(() => {
      const el = document.activeElement
      return {
        inDialog: Boolean(el?.closest('dialog, [role="dialog"]')),
        name: el?.getAttribute('aria-label') || el?.getAttribute('name') || el?.textContent?.trim() || el?.tagName,
      }
    })

  // With an empty field the Submit button is disabled; with a URL the stops are the field, Cancel, Submit and Close.
  await input.fill('https://example.bandcamp.com')
  await expect(dialog.getByRole('button', { name: 'Submit', exact: true })).toBeEnabled()
  const seen: (string | undefined)[] = []
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press('Tab')
    const now = await active()
    expect(now.inDialog, `Tab #${i + 1} must keep focus inside the dialog (it went to ${now.name})`).toBe(true)
    seen.push(now.name)
  }
  for (const name of ['Close dialog', 'label_url', 'Cancel', 'Submit']) expect(seen, `Tab reaches ${name}`).toContain(name)
  expect(seen.indexOf('label_url'), `Tab cycles back to the start (saw ${seen.join(', ')})`).not.toBe(seen.lastIndexOf('label_url'))

  for (let i = 0; i < 5; i++) {
    await page.keyboard.press('Shift+Tab')
    const now = await active()
    expect(now.inDialog, `Shift+Tab #${i + 1} must keep focus inside the dialog (it went to ${now.name})`).toBe(true)
  }

  // Visible focus: the focused control draws an outline or a ring.
  await animationsDone(page)
  const indicated = await page.evaluate(() => {
    const style = getComputedStyle(document.activeElement as Element)
    return (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || (style.boxShadow !== '' && style.boxShadow !== 'none')
  })
  expect(indicated, 'the focused control inside the dialog shows a visible focus indicator').toBe(true)

  await page.keyboard.press('Escape')
  await expect(dialog).toBeHidden()
  await expect(opener, 'focus returns to the Submit a label button').toBeFocused()
  await expectPath(page, '/labels')
})
