// Parity: calling functions as PostgREST 14 resolves them — overloads by
// argument names, defaults, single unnamed parameters by Content-Type, and
// PGRST202/PGRST203 with PostgREST's exact texts.
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { client, raw } from './support.mjs'

const db = client()

test('overloads are told apart by their argument names', async () => {
  const none = await db.rpc('overloaded')
  assert.equal(none.error, null, JSON.stringify(none.error))
  assert.deepEqual(none.data, [1, 2, 3])
  const two = await db.rpc('overloaded', { a: 1, b: 2 })
  assert.equal(two.data, 3)
  const three = await db.rpc('overloaded', { a: 'x', b: 'y', c: 'z' })
  assert.equal(three.data, 'xyz')
  const get = await db.rpc('overloaded', { a: 4, b: 5 }, { get: true })
  assert.equal(get.data, 9)
})

test('same names, different types: 300 PGRST203 with the candidates', async () => {
  const res = await db.rpc('polymorphic', { x: 1 })
  assert.equal(res.status, 300)
  assert.deepEqual(res.error, {
    code: 'PGRST203',
    details: null,
    hint: 'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
    message: 'Could not choose the best candidate function between: public.polymorphic(x => integer), public.polymorphic(x => text)',
  })
})

test('default parameters may be left out', async () => {
  const all = await db.rpc('offset_function')
  assert.equal(all.data.length, 4)
  const some = await db.rpc('offset_function', { offset_param: 3 })
  assert.deepEqual(
    some.data.map((u) => u.username),
    ['supabot'],
  )
})

test('a single unnamed json parameter takes the whole body', async () => {
  const res = await db.rpc('unnamed_json', { A: 1, B: [2] })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, { A: 1, B: [2] })
})

test('a single unnamed text parameter takes a text/plain body', async () => {
  const r = await raw('/rest/v1/rpc/unnamed_text', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'plain words' })
  assert.equal(r.status, 200)
  assert.equal(await r.json(), 'got plain words')
  const none = await raw('/rest/v1/rpc/get_status', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'x' })
  assert.equal(none.status, 404)
  assert.deepEqual(await none.json(), {
    code: 'PGRST202',
    details: 'Searched for the function public.get_status with a single unnamed text parameter, but no matches were found in the schema cache.',
    hint: null,
    message: 'Could not find the function public.get_status in the schema cache',
  })
})

test('unknown arguments: 404 PGRST202 with the closest signature', async () => {
  const res = await db.rpc('get_status', { name: 'supabot' })
  assert.equal(res.status, 404)
  assert.deepEqual(res.error, {
    code: 'PGRST202',
    details:
      'Searched for the function public.get_status with parameter name or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
    hint: 'Perhaps you meant to call the function public.get_status(name_param)',
    message: 'Could not find the function public.get_status(name) in the schema cache',
  })
})

test("a computed field's function is not callable and gets no look-alike hint", async () => {
  // PostgREST hints a function name only at a fuzzy score of 0.75 (its
  // getFuzzyHint); blurb_message(messages) and created_ago(users_audit)
  // take a row, so its schema cache holds neither, and no callable name
  // comes close enough.
  for (const [fn, args] of [
    ['blurb_message', undefined],
    ['blurb_message', { '': { id: 1, message: 'x' } }],
    ['created_ago', { id: 1 }],
  ]) {
    const res = await db.rpc(fn, args)
    assert.equal(res.status, 404, fn)
    assert.equal(res.error.code, 'PGRST202')
    assert.equal(res.error.hint, null, `${fn}: ${res.error.hint}`)
  }
  const none = await db.rpc('blurb_message')
  assert.deepEqual(none.error, {
    code: 'PGRST202',
    details:
      'Searched for the function public.blurb_message without parameters or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
    hint: null,
    message: 'Could not find the function public.blurb_message without parameters in the schema cache',
  })
  const typo = await db.rpc('get_statuss', { name_param: 'supabot' })
  assert.equal(typo.error.hint, 'Perhaps you meant to call the function public.get_status')
})

test('a function in the second schema', async () => {
  const res = await client({ schema: 'personal' }).rpc('get_status', { name_param: 'supabot' })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.equal(res.data, 'OFFLINE')
})
