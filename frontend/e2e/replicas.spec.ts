// Read-your-writes in a real browser (docs/scaling.md): the unmodified supabase-js, loaded from its
// own UMD bundle into a page, writes a row and reads it back while every replica has its replay
// paused. pkg/app's TestReadYourWritesInTheBrowser sets that up and runs this file as the
// "replicas" project (playwright.config.ts), which exists only then.
import { createRequire } from 'node:module'
import type { Page } from '@playwright/test'
import { expect, test } from '@playwright/test'
import type { SupabaseClient } from '@supabase/supabase-js'

const table = process.env.LABELBASE_REPLICA_TABLE ?? ''
const anonKey = process.env.LABELBASE_ANON_KEY ?? ''
const otherOrigin = process.env.LABELBASE_OTHER_ORIGIN ?? ''
const bundle = createRequire(import.meta.url).resolve('@supabase/supabase-js/dist/umd/supabase.js')

if (!table || !anonKey || !otherOrigin) {
  throw new Error('run by pkg/app TestReadYourWritesInTheBrowser, which sets LABELBASE_REPLICA_TABLE, LABELBASE_ANON_KEY and LABELBASE_OTHER_ORIGIN')
}
// The bundle is injected inline; the gateway's pages allow no inline script.
test.use({ bypassCSP: true })

/** Inserts body into the table with supabase-js in the page, then counts the rows with it. */
async function writeThenRead(page: Page, gateway: string, body: string): Promise<number> {
  await page.addScriptTag({ path: bundle })
  return page.evaluate(
    async ({ gateway, key, table, body }) => {
      const lib = (window as unknown as { supabase: { createClient: (url: string, key: string) => SupabaseClient } }).supabase
      const client = lib.createClient(gateway, key)
      const inserted = await client.from(table).insert({ body })
      if (inserted.error) throw new Error(`insert: ${inserted.error.message}`)
      const read = await client.from(table).select('body').eq('body', body)
      if (read.error) throw new Error(`select: ${read.error.message}`)
      return read.data.length
    },
    { gateway, key: anonKey, table, body },
  )
}

test('same origin: supabase-js reads its own write although no replica has replayed it', async ({ page, context, baseURL }) => {
  await page.goto('/')
  expect(await writeThenRead(page, baseURL ?? '', `same-origin-${Date.now()}`)).toBe(1)
  const cookie = (await context.cookies()).find((c) => c.name === 'labelbase-read-after')
  expect(cookie, 'the write set the read-your-writes cookie').toMatchObject({ path: '/rest/v1', httpOnly: true, sameSite: 'Lax' })
})

test('cross origin: no cookie, so the read goes to a replica that has not replayed the write', async ({ page, context, baseURL }) => {
  await page.goto(otherOrigin)
  expect(await writeThenRead(page, baseURL ?? '', `cross-origin-${Date.now()}`)).toBe(0)
  expect((await context.cookies()).some((c) => c.name === 'labelbase-read-after')).toBe(false)
})
