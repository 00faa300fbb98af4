// Functions as PostgREST 14 resolves them: single unnamed parameters,
// overloads by names and defaults, PGRST203's candidates, PGRST202's
// fuzzy hints, and computed fields on a function's rows.
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { client, raw } from './support.mjs'

const db = client()

test("rpc('f', {'': v}) binds a single unnamed json parameter (PostgREST passes the whole body)", async () => {
  const { data, error } = await db.rpc('echo_json', { '': { a: 1 } })
  assert.equal(error, null)
  assert.deepEqual(data, { '': { a: 1 } })
  const any = await db.rpc('echo_json', { A: 1, B: [2] })
  assert.deepEqual(any.data, { A: 1, B: [2] })
})

test('a single unnamed text parameter takes {"": v} as JSON and a text/plain body as is', async () => {
  const json = await db.rpc('echo_text', { '': 'hola' })
  assert.equal(json.error, null)
  assert.equal(json.data, 'got {"":"hola"}')
  const r = await raw('/rest/v1/rpc/echo_text', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'olá' })
  assert.equal(r.status, 200)
  assert.equal(await r.json(), 'got olá')
})

test('a single unnamed int parameter is never exposed: PGRST202, no look-alike hint', async () => {
  const { error, status } = await db.rpc('echo_int', { '': 3 })
  assert.equal(status, 404)
  assert.deepEqual(error, {
    code: 'PGRST202',
    details:
      'Searched for the function public.echo_int with parameter  or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
    // echo_text scores 0.67, under the 0.75 PostgREST asks of a function name.
    hint: null,
    message: 'Could not find the function public.echo_int() in the schema cache',
  })
})

test('a single unnamed boolean parameter is not callable by GET either', async () => {
  const { error, status } = await db.rpc('echo_bool', {}, { get: true })
  assert.equal(status, 404)
  assert.deepEqual(error, {
    code: 'PGRST202',
    details: 'Searched for the function public.echo_bool without parameters, but no matches were found in the schema cache.',
    hint: null,
    message: 'Could not find the function public.echo_bool without parameters in the schema cache',
  })
})

test('f() and f(text default) both fit no arguments: PGRST203 lists them, f(int default) is not a candidate', async () => {
  const { error, status } = await db.rpc('pick', {})
  assert.equal(status, 300)
  assert.deepEqual(error, {
    code: 'PGRST203',
    details: null,
    hint: 'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
    message: 'Could not choose the best candidate function between: public.pick(), public.pick( => text)',
  })
})

test('a text/plain body picks the overload with the unnamed text parameter', async () => {
  const r = await raw('/rest/v1/rpc/pick', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'caju' })
  assert.equal(r.status, 200)
  assert.equal(await r.json(), 'text caju')
})

test('overloads by argument names', async () => {
  assert.equal((await db.rpc('portions', { factor: 3 })).data, 6)
  assert.equal((await db.rpc('portions', { factor: 3, extra: 1 })).data, 7)
  assert.equal((await db.rpc('portions', { factor: 3, extra: 1 }, { get: true })).data, 7)
})

test('same names with other types: PGRST203 in PostgREST order', async () => {
  const { error, status } = await db.rpc('season_of', { m: 1 })
  assert.equal(status, 300)
  assert.equal(error.message, 'Could not choose the best candidate function between: public.season_of(m => integer), public.season_of(m => text)')
})

test('PGRST202 hints an overload only when the fuzzy match finds one', async () => {
  const close = await db.rpc('portions', { factr: 3 })
  assert.equal(close.status, 404)
  assert.equal(close.error.message, 'Could not find the function public.portions(factr) in the schema cache')
  assert.equal(close.error.hint, 'Perhaps you meant to call the function public.portions(factor)')
  const far = await db.rpc('portions', { zzz: 3 })
  assert.equal(far.status, 404)
  assert.equal(far.error.hint, null)
  const typo = await db.rpc('recipes_by_cooks', { cook_name: 'ana' })
  assert.equal(typo.error.hint, 'Perhaps you meant to call the function public.recipes_by_cook')
  const nothing = await db.rpc('zzz')
  assert.equal(nothing.error.hint, null)
})

test('unknown arguments on GET are not taken for filters', async () => {
  const { error, status } = await db.rpc('portions', { factor: 3, extra: 1, more: 2 }, { get: true })
  assert.equal(status, 404)
  assert.equal(error.message, 'Could not find the function public.portions(extra, factor, more) in the schema cache')
  assert.equal(error.hint, 'Perhaps you meant to call the function public.portions(extra, factor)')
})

test("computed fields work on a function's rows of a table type", async () => {
  const { data, error } = await db.rpc('recipes_by_cook', { cook_name: 'ana' }).select('title, shout_title').lte('id', 5)
  assert.equal(error, null)
  assert.deepEqual(data, [
    { title: 'Caldo verde', shout_title: 'CALDO VERDE' },
    { title: 'Pastel de nata', shout_title: 'PASTEL DE NATA' },
    { title: 'Caldo verde with chouriço', shout_title: 'CALDO VERDE WITH CHOURIÇO' },
  ])
  const filtered = await db.rpc('recipes_by_cook', { cook_name: 'ana' }).select('id').eq('shout_title', 'CALDO VERDE')
  assert.deepEqual(filtered.data, [{ id: 1 }])
})
