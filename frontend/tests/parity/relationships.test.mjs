// Parity: relationship resolution and computed columns, as PostgREST 14.
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { client } from './support.mjs'

const db = client()

test('self-reference: the FK column embeds the parent, the table name (or table!column) the children', async () => {
  const res = await db
    .from('messages')
    .select('id, reply_to(id), replies:messages!reply_to(id), children:messages(id)')
    .in('id', [1, 3])
    .order('id')
    .order('id', { referencedTable: 'replies' })
    .order('id', { referencedTable: 'children' })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, [
    { id: 1, reply_to: null, replies: [{ id: 3 }, { id: 4 }], children: [{ id: 3 }, { id: 4 }] },
    { id: 3, reply_to: { id: 1 }, replies: [], children: [] },
  ])
})

test('embedding through a view keeps the table relationships', async () => {
  const res = await db.from('channel_messages').select('id, channels(slug)').eq('id', 2).single()
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, { id: 2, channels: { slug: 'random' } })
  const rev = await db.from('channels').select('slug, channel_messages(id)').eq('id', 2).single()
  assert.equal(rev.error, null, JSON.stringify(rev.error))
  assert.deepEqual(rev.data, { slug: 'random', channel_messages: [{ id: 2 }] })
  const user = await db.from('users').select('username, channel_messages(id)').eq('username', 'kiwicopple').single()
  assert.equal(user.error, null, JSON.stringify(user.error))
  assert.deepEqual(user.data, { username: 'kiwicopple', channel_messages: [{ id: 3 }] })
})

test('!inner on a many-to-many embed filters the parents', async () => {
  const res = await db.from('messages').select('id, tags!inner(name)').eq('tags.name', 'greeting').order('id')
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, [
    { id: 1, tags: [{ name: 'greeting' }] },
    { id: 3, tags: [{ name: 'greeting' }] },
  ])
})

test('computed fields: selectable and filterable', async () => {
  const res = await db.from('messages').select('id, blurb_message').eq('blurb_message', 'Rep').order('id')
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, [{ id: 3, blurb_message: 'Rep' }])
})

test('computed relationships: SETOF and ROWS 1 functions embed like relationships', async () => {
  const many = await db.from('channels').select('slug, all_channels_messages(id)').eq('id', 1).single()
  assert.equal(many.error, null, JSON.stringify(many.error))
  assert.deepEqual(many.data, { slug: 'public', all_channels_messages: [{ id: 1 }, { id: 3 }, { id: 4 }] })
  const one = await db.from('messages').select('id, message_author(username)').eq('id', 3).single()
  assert.equal(one.error, null, JSON.stringify(one.error))
  assert.deepEqual(one.data, { id: 3, message_author: { username: 'kiwicopple' } })
  const view = await db.from('channels').select('slug, channel_messages_view(id)').eq('id', 2).single()
  assert.equal(view.error, null, JSON.stringify(view.error))
  assert.deepEqual(view.data, { slug: 'random', channel_messages_view: [{ id: 2 }] })
})

test('spread of a to-many embed gives arrays of values', async () => {
  const res = await db.from('channels').select('slug, ...messages(id)').eq('id', 1).single()
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, { slug: 'public', id: [1, 3, 4] })
})

test('spread of a to-one embed', async () => {
  const res = await db.from('messages').select('id, ...users(username, status)').eq('id', 2).single()
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, { id: 2, username: 'supabot', status: 'ONLINE' })
})

test('PGRST201 lists the candidates in PostgREST\u2019s order and words', async () => {
  const res = await db.from('best_friends').select('users(username)')
  assert.equal(res.status, 300)
  assert.deepEqual(res.error, {
    code: 'PGRST201',
    details: ['first_user', 'second_user', 'third_wheel'].map((col) => ({
      cardinality: 'many-to-one',
      embedding: 'best_friends with users',
      relationship: `best_friends_${col}_fkey using best_friends(${col}) and users(username)`,
    })),
    hint: "Try changing 'users' to one of the following: 'users!best_friends_first_user_fkey', 'users!best_friends_second_user_fkey', 'users!best_friends_third_wheel_fkey'. Find the desired relationship in the 'details' key.",
    message: "Could not embed because more than one relationship was found for 'best_friends' and 'users'",
  })
  const back = await db.from('users').select('best_friends(id)')
  assert.equal(back.status, 300)
  assert.equal(back.error.details[0].cardinality, 'one-to-many')
  assert.equal(back.error.details[0].relationship, 'best_friends_first_user_fkey using users(username) and best_friends(first_user)')
})
