// Parity: Prefer: max-affected with handling=strict, tx=rollback (the
// gateway runs with DB_TX_END=commit-allow-override here), and counts on
// RPC, as PostgREST 14 answers them.
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { client, raw } from './support.mjs'

const db = client()

async function countMessages(channelId) {
  const res = await db.from('messages').select('id', { count: 'exact', head: true }).eq('channel_id', channelId)
  assert.equal(res.error, null, JSON.stringify(res.error))
  return res.count
}

test('max-affected refuses a DELETE that would touch more rows, and keeps them', async () => {
  const res = await db.from('messages').delete().eq('channel_id', 1).maxAffected(2)
  assert.equal(res.status, 400)
  assert.deepEqual(res.error, {
    code: 'PGRST124',
    details: 'The query affects 3 rows',
    hint: null,
    message: 'Query result exceeds max-affected preference constraint',
  })
  assert.equal(await countMessages(1), 3)
})

test('max-affected refuses a PATCH over the bound and lets one within it through', async () => {
  const over = await db
    .from('messages')
    .update({ data: { seen: true } })
    .eq('channel_id', 1)
    .maxAffected(0)
  assert.equal(over.status, 400)
  assert.equal(over.error.code, 'PGRST124')
  assert.equal(over.error.details, 'The query affects 3 rows')
  const seen = await db.from('messages').select('id').eq('data->>seen', 'true')
  assert.deepEqual(seen.data, [])

  const r = await raw('/rest/v1/messages?id=eq.2', {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/json', Prefer: 'handling=strict, max-affected=1' },
    body: JSON.stringify({ data: { seen: true } }),
  })
  assert.equal(r.status, 204)
  assert.equal(r.headers.get('preference-applied'), 'handling=strict, max-affected=1')
})

test('max-affected is ignored with handling=lenient', async () => {
  const r = await raw('/rest/v1/channels?id=eq.3', {
    method: 'DELETE',
    headers: { Prefer: 'handling=lenient, max-affected=0' },
  })
  assert.equal(r.status, 204)
  assert.equal(r.headers.get('preference-applied'), 'handling=lenient')
})

test('max-affected on RPC: a set-returning function over the bound rolls back; a scalar one is refused', async () => {
  const r = await raw('/rest/v1/rpc/delete_channel_messages', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Prefer: 'handling=strict, max-affected=1' },
    body: JSON.stringify({ channel: 1 }),
  })
  assert.equal(r.status, 400)
  assert.deepEqual(await r.json(), {
    code: 'PGRST124',
    details: 'The query affects 3 rows',
    hint: null,
    message: 'Query result exceeds max-affected preference constraint',
  })
  assert.equal(await countMessages(1), 3)

  const scalar = await raw('/rest/v1/rpc/get_status', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Prefer: 'handling=strict, max-affected=1' },
    body: JSON.stringify({ name_param: 'supabot' }),
  })
  assert.equal(scalar.status, 400)
  assert.deepEqual(await scalar.json(), {
    code: 'PGRST128',
    details: null,
    hint: null,
    message: 'Function must return SETOF or TABLE when max-affected preference is used with handling=strict',
  })
})

test('tx=rollback: the write answers as if committed, and nothing is kept', async () => {
  const ins = await db.from('channels').insert({ slug: 'ephemeral' }).select('slug').rollback()
  assert.equal(ins.error, null, JSON.stringify(ins.error))
  assert.equal(ins.status, 201)
  assert.deepEqual(ins.data, [{ slug: 'ephemeral' }])
  const after = await db.from('channels').select('id').eq('slug', 'ephemeral')
  assert.deepEqual(after.data, [])

  const del = await raw('/rest/v1/messages?id=eq.4', { method: 'DELETE', headers: { Prefer: 'tx=rollback, return=representation' } })
  assert.equal(del.status, 200)
  assert.equal(del.headers.get('preference-applied'), 'return=representation, tx=rollback')
  assert.equal((await del.json())[0].id, 4)
  assert.equal(await countMessages(1), 3)
})

test('tx=commit is reported and commits', async () => {
  const r = await raw('/rest/v1/tags', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Prefer: 'tx=commit' },
    body: JSON.stringify({ id: 9, name: 'kept' }),
  })
  assert.equal(r.status, 201)
  assert.equal(r.headers.get('preference-applied'), 'tx=commit')
  const kept = await db.from('tags').select('name').eq('id', 9)
  assert.deepEqual(kept.data, [{ name: 'kept' }])
})

test('counts on RPC: POST, GET, HEAD and a scalar', async () => {
  const post = await db.rpc('get_messages', { channel_id_param: 1 }, { count: 'exact' })
  assert.equal(post.error, null, JSON.stringify(post.error))
  assert.equal(post.count, 3)
  assert.equal(post.data.length, 3)

  const get = await db.rpc('get_messages', { channel_id_param: 1 }, { count: 'exact', get: true }).range(0, 0)
  assert.equal(get.count, 3)
  assert.equal(get.status, 206)
  assert.equal(get.data.length, 1)

  const head = await db.rpc('get_messages', { channel_id_param: 2 }, { count: 'exact', head: true })
  assert.equal(head.error, null, JSON.stringify(head.error))
  assert.equal(head.count, 1)
  assert.equal(head.data, null)

  const scalar = await db.rpc('get_status', { name_param: 'supabot' }, { count: 'exact' })
  assert.equal(scalar.data, 'ONLINE')
  assert.equal(scalar.count, 1)
})

test('count=planned is the planner estimate; with head and a page below it, 206', async () => {
  const res = await db.from('messages').select('id', { count: 'planned', head: true })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.ok(Number.isInteger(res.count) && res.count > 0, `planned count ${res.count}`)
  const r = await raw('/rest/v1/messages?select=id&limit=1', { headers: { Prefer: 'count=planned' } })
  assert.equal(r.status, 206)
  assert.match(r.headers.get('content-range'), /^0-0\/\d+$/)
  const est = await db.from('messages').select('id', { count: 'estimated' })
  assert.equal(est.count, 4)
})
