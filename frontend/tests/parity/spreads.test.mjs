// Parity: spread embeds (...rel(cols)) as PostgREST 13+ answers them
// (SpreadQueriesSpec, AggregateFunctionsSpec; postgrest-js's
// relationships-spread-operations suite): a to-many spread lifts arrays, a
// to-one spread's aggregates are grouped into the parent, a to-many
// spread's aggregates are one value per parent row, nested spreads too.
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { client } from './support.mjs'

const db = client()

test('a to-many spread lifts each column as an array', async () => {
  const res = await db.from('channels').select('id, ...messages(id, channel_id)').order('id')
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, [
    { id: [1, 3, 4], channel_id: [1, 1, 1] },
    { id: [2], channel_id: [2] },
    { id: [], channel_id: [] },
  ])
  const renamed = await db.from('channels').select('channel:id, ...messages(ids:id)').order('id').limit(1)
  assert.deepEqual(renamed.data, [{ channel: 1, ids: [1, 3, 4] }])
})

test('count inside a to-many spread is one count per parent row', async () => {
  for (const item of ['count', 'count()']) {
    const res = await db.from('channels').select(`slug, ...messages(${item})`).order('id')
    assert.equal(res.error, null, JSON.stringify(res.error))
    assert.deepEqual(res.data, [
      { slug: 'public', count: 3 },
      { slug: 'random', count: 1 },
      { slug: 'empty', count: 0 },
    ])
  }
})

test('sum inside a to-many spread, beside an array of its values', async () => {
  const res = await db.from('channels').select('slug, ...messages(id, total:id.sum())').order('id')
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, [
    { slug: 'public', id: [1, 3, 4], total: 8 },
    { slug: 'random', id: [2], total: 2 },
    { slug: 'empty', id: [], total: null },
  ])
})

test('a to-one spread nested in a to-many spread is joined into its rows', async () => {
  const res = await db.from('channels').select('slug, ...messages(id, ...users(status))').eq('id', 1).single()
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, { slug: 'public', id: [1, 3, 4], status: ['ONLINE', 'OFFLINE', 'ONLINE'] })
})

test('an aggregate in a to-one spread is grouped into the parent', async () => {
  const res = await db.from('messages').select('username, ...channels(id.sum())').order('username')
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, [
    { username: 'awailas', sum: 1 },
    { username: 'kiwicopple', sum: 1 },
    { username: 'supabot', sum: 3 },
  ])
  const byChannel = await db.from('messages').select('...channels(slug, n:count())').order('channels(slug)')
  assert.equal(byChannel.error, null, JSON.stringify(byChannel.error))
  assert.deepEqual(byChannel.data, [
    { slug: 'public', n: 3 },
    { slug: 'random', n: 1 },
  ])
})

test('nested to-one spreads: count() of the innermost, grouped by the top parent', async () => {
  const res = await db.from('messages').select('username, ...channels(...channel_details(count()))').order('username')
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, [
    { username: 'awailas', count: 1 },
    { username: 'kiwicopple', count: 1 },
    { username: 'supabot', count: 2 },
  ])
})

test('a to-one spread aggregate nested in a to-many spread counts per parent row', async () => {
  const res = await db.from('users').select('username, ...messages(...channels(id.sum()))').order('username')
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, [
    { username: 'awailas', sum: 1 },
    { username: 'dragarcia', sum: null },
    { username: 'kiwicopple', sum: 1 },
    { username: 'supabot', sum: 3 },
  ])
})

test('postgrest-js: an aggregate beside a spread inside an embed', async () => {
  const res = await db
    .from('users')
    .select('username, messages(channels(id.sum(), ...channel_details(details_sum:id.sum(), details)))')
    .eq('username', 'supabot')
    .single()
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, {
    username: 'supabot',
    messages: [
      { channels: { sum: 1, details_sum: 1, details: 'details for public' } },
      { channels: { sum: 2, details_sum: 2, details: 'details for random' } },
    ],
  })
})
