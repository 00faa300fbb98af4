// Parity: aggregate functions in select (DB_AGGREGATES_ENABLED=true here),
// as PostgREST's db-aggregates-enabled: count(), col.sum()/avg/min/max,
// aliases, casts, implicit GROUP BY, and aggregates inside embeds.
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { client } from './support.mjs'

const db = client()

test('count() over all rows', async () => {
  const res = await db.from('messages').select('count()')
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, [{ count: 4 }])
})

test('grouped by the other selected columns, with an alias', async () => {
  const res = await db.from('messages').select('channel_id, n:count()').order('channel_id')
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, [
    { channel_id: 1, n: 3 },
    { channel_id: 2, n: 1 },
  ])
})

test('sum, avg, min and max of a column, with a cast of the result', async () => {
  const res = await db.from('messages').select('id.sum(), id.min(), id.max(), avg:id.avg()::int').eq('channel_id', 1)
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, [{ sum: 8, min: 1, max: 4, avg: 3 }])
})

test('aggregates inside an embedded resource, per parent (one row even for none, as SQL)', async () => {
  const res = await db.from('channels').select('slug, messages(count())').order('id')
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, [
    { slug: 'public', messages: [{ count: 3 }] },
    { slug: 'random', messages: [{ count: 1 }] },
    { slug: 'empty', messages: [{ count: 0 }] },
  ])
})

test('aggregates next to a to-one embed group by it', async () => {
  const res = await db.from('messages').select('count(), users(username)').order('username')
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(
    res.data.sort((a, b) => a.users.username.localeCompare(b.users.username)),
    [
      { count: 1, users: { username: 'awailas' } },
      { count: 1, users: { username: 'kiwicopple' } },
      { count: 2, users: { username: 'supabot' } },
    ],
  )
})

test('a bad aggregate is a parse error', async () => {
  const res = await db.from('messages').select('id.median()')
  assert.equal(res.status, 400)
  assert.equal(res.error.code, 'PGRST100')
})
