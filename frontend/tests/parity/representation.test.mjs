// Parity: representation details as PostgREST 14 sends them — PGRST116's
// wording, CSV built from PostgreSQL's record text, Preference-Applied order.
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { client, raw } from './support.mjs'

const db = client()

test('single() on zero or many rows is PGRST116 with the current wording', async () => {
  const none = await db.from('users').select('username').eq('username', 'nobody').single()
  assert.equal(none.status, 406)
  assert.deepEqual(none.error, {
    code: 'PGRST116',
    details: 'The result contains 0 rows',
    hint: null,
    message: 'Cannot coerce the result to a single JSON object',
  })
  const many = await db.from('users').select('username').single()
  assert.equal(many.error.details, 'The result contains 4 rows')
})

test('CSV: header row, PostgreSQL quoting, NULL as an empty field, no trailing newline', async () => {
  const res = await db.from('messages').select('id,message,reply_to').in('id', [1, 3]).order('id').csv()
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.equal(res.data, 'id,message,reply_to\n1,"Hello World 👋",\n3,"Reply to hello",1')

  const r = await raw('/rest/v1/users?select=username,data,is_bot:status&username=eq.supabot', { headers: { Accept: 'text/csv' } })
  assert.equal(r.headers.get('content-type'), 'text/csv; charset=utf-8')
  assert.equal(await r.text(), 'username,data,is_bot\nsupabot,"{""role"": ""bot""}",ONLINE')
})

test('Preference-Applied lists resolution and missing before return', async () => {
  const r = await raw('/rest/v1/tags?columns=id,name', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Prefer: 'return=representation, resolution=merge-duplicates, missing=default' },
    body: JSON.stringify([{ id: 1, name: 'hello' }]),
  })
  assert.equal(r.headers.get('preference-applied'), 'resolution=merge-duplicates, missing=default, return=representation')
  assert.deepEqual(await r.json(), [{ id: 1, name: 'hello' }])
})

test('upsert status: 201 when a row was inserted, 200 when all were updated or none came', async () => {
  const inserted = await db
    .from('tags')
    .upsert([
      { id: 1, name: 'greeting' },
      { id: 20, name: 'new' },
    ])
    .select('id')
  assert.equal(inserted.error, null, JSON.stringify(inserted.error))
  assert.equal(inserted.status, 201)
  const updated = await db
    .from('tags')
    .upsert([
      { id: 1, name: 'hello' },
      { id: 20, name: 'newer' },
    ])
    .select('id,name')
    .order('id')
  assert.equal(updated.status, 200)
  assert.deepEqual(updated.data, [
    { id: 1, name: 'hello' },
    { id: 20, name: 'newer' },
  ])
  const empty = await db.from('tags').upsert([]).select('id')
  assert.equal(empty.status, 200)
  assert.deepEqual(empty.data, [])
})

test('PUT: 201 when it creates the row, 200 with a representation or 204 without when it updates it', async () => {
  const put = (body, prefer) =>
    raw('/rest/v1/tags?id=eq.30', {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', ...(prefer ? { Prefer: prefer } : {}) },
      body: JSON.stringify(body),
    })
  const created = await put({ id: 30, name: 'thirty' }, 'return=representation')
  assert.equal(created.status, 201)
  assert.deepEqual(await created.json(), [{ id: 30, name: 'thirty' }])
  const updated = await put({ id: 30, name: 'THIRTY' }, 'return=representation')
  assert.equal(updated.status, 200)
  assert.deepEqual(await updated.json(), [{ id: 30, name: 'THIRTY' }])
  const minimal = await put({ id: 30, name: 'again' })
  assert.equal(minimal.status, 204)
})
