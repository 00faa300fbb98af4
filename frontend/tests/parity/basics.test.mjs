// Parity basics: features the gateway already had before the parity work,
// through postgrest-js on the generic fixture, with PostgREST's status,
// body and Content-Range. It also proves the harness: fresh data per file.
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { client, raw } from './support.mjs'

const db = client()

test('select with filters, order and an exact count', async () => {
  const res = await db.from('users').select('username,status', { count: 'exact' }).eq('status', 'ONLINE').order('username')
  assert.equal(res.error, null)
  assert.equal(res.status, 200)
  assert.equal(res.count, 3)
  assert.deepEqual(
    res.data.map((u) => u.username),
    ['awailas', 'dragarcia', 'supabot'],
  )
})

test('range operators, full-text search and jsonb paths', async () => {
  const overlap = await db.from('users').select('username').overlaps('age_range', '[30,40)').order('username')
  assert.deepEqual(overlap.data, [{ username: 'awailas' }, { username: 'kiwicopple' }])
  const fts = await db.from('users').select('username').textSearch('catchphrase', `'fat' & 'cat'`, { config: 'simple' })
  assert.deepEqual(fts.data, [{ username: 'supabot' }])
  const json = await db.from('users').select('username,role:data->>role').eq('data->>role', 'bot')
  assert.deepEqual(json.data, [{ username: 'supabot', role: 'bot' }])
})

test('embedding: to-one, to-many, one-to-one, many-to-many', async () => {
  const res = await db.from('messages').select('id,users(username),channels(slug,channel_details(details)),tags(name)').eq('id', 1).single()
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, {
    id: 1,
    users: { username: 'supabot' },
    channels: { slug: 'public', channel_details: { details: 'details for public' } },
    tags: [{ name: 'greeting' }],
  })
  const many = await db.from('channels').select('slug,messages(id)').eq('id', 1).order('id', { referencedTable: 'messages' })
  assert.deepEqual(many.data, [{ slug: 'public', messages: [{ id: 1 }, { id: 3 }, { id: 4 }] }])
})

test('embedding with a hint among several foreign keys to one table', async () => {
  const res = await db.from('best_friends').select('id,first:users!first_user(username),second:users!second_user(username)').order('id')
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data[0], { id: 1, first: { username: 'supabot' }, second: { username: 'kiwicopple' } })
  const ambiguous = await db.from('best_friends').select('users(username)')
  assert.equal(ambiguous.status, 300)
  assert.equal(ambiguous.error.code, 'PGRST201')
})

test('insert, upsert, update and delete with representations', async () => {
  const ins = await db.from('channels').insert({ slug: 'new' }).select('id,slug').single()
  assert.equal(ins.status, 201)
  assert.equal(ins.data.slug, 'new')
  const up = await db.from('channels').upsert({ id: ins.data.id, slug: 'renamed' }).select('slug')
  assert.equal(up.error, null)
  assert.deepEqual(up.data, [{ slug: 'renamed' }])
  const upd = await db
    .from('channels')
    .update({ data: { a: 1 } })
    .eq('id', ins.data.id)
    .select('data')
  assert.deepEqual(upd.data, [{ data: { a: 1 } }])
  const del = await db.from('channels').delete({ count: 'exact' }).eq('id', ins.data.id)
  assert.equal(del.status, 204)
  assert.equal(del.count, 1)
})

test('rpc: set-returning with filters, scalar, void, GET', async () => {
  const set = await db.rpc('get_messages', { channel_id_param: 1 }).select('id').gt('id', 1)
  assert.deepEqual(set.data, [{ id: 3 }, { id: 4 }])
  const scalar = await db.rpc('get_status', { name_param: 'kiwicopple' })
  assert.equal(scalar.data, 'OFFLINE')
  const voided = await db.rpc('void_func')
  assert.equal(voided.status, 204)
  const get = await db.rpc('get_status', { name_param: 'supabot' }, { get: true })
  assert.equal(get.data, 'ONLINE')
})

test('a second schema through db.schema', async () => {
  const res = await client({ schema: 'personal' }).from('users').select('username,status')
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, [{ username: 'supabot', status: 'OFFLINE' }])
})

test('Content-Range for a page with count=exact', async () => {
  const r = await raw('/rest/v1/messages?select=id&order=id&limit=2&offset=1', { headers: { Prefer: 'count=exact' } })
  assert.equal(r.status, 206)
  assert.equal(r.headers.get('content-range'), '1-2/4')
  assert.deepEqual(await r.json(), [{ id: 2 }, { id: 3 }])
})
