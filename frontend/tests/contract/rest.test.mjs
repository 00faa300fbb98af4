// Contract suite for /rest/v1: the unmodified @supabase/supabase-js (the
// version pinned in package.json) against a live gateway named by the
// environment (see support.mjs). It makes every table and RPC call of
// SPEC §7 exactly as the app makes them, then the grammar variants
// supabase-js can emit, and checks row-level security through the API.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'

import { env, newClient, rawFetch, signUpNewUser } from './support.mjs'

let A // { client, user } signed in
let B
let service // service_role client
let anon // no session: Bearer ANON
let label // a label created for this run, with awkward name and tags
let label2
let releaseIds // releases of the demo catalogue

const run = randomUUID().slice(0, 8)
const tag = `contract-${run}`

before(async () => {
  const { serviceRoleKey } = env()
  A = await signUpNewUser()
  B = await signUpNewUser()
  service = newClient({ key: serviceRoleKey })
  anon = newClient()
  const name = `Comma, (Paren) "Q" ${run}`
  const ins = await service
    .from('labels')
    .insert([
      { label_name: name, label_url: `https://comma-${run}.bandcamp.com`, tags: [tag, 'free jazz'] },
      { label_name: `Plain ${run}`, label_url: `https://plain-${run}.bandcamp.com`, tags: [tag] },
    ])
    .select('id,label_name,label_url,tags')
  assert.equal(ins.error, null, JSON.stringify(ins.error))
  ;[label, label2] = ins.data
  const rel = await A.client.from('releases').select('id').order('id').limit(5)
  assert.equal(rel.error, null)
  releaseIds = rel.data.map((r) => r.id)
  assert.equal(releaseIds.length, 5, 'the demo catalogue has releases')
})

// --- SPEC §7 table calls, as the app makes them ---------------------------

test('listens: select, upsert on conflict (twice), delete', async () => {
  const { client, user } = A
  const U = user.id
  const R = releaseIds[0]
  let res = await client.from('user_listened_releases').select('release_id').eq('user_id', U)
  assert.equal(res.error, null)
  assert.deepEqual(res.data, [])

  res = await client.from('user_listened_releases').upsert({ user_id: U, release_id: R }, { onConflict: 'user_id,release_id' })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.equal(res.status, 201)
  assert.equal(res.data, null)
  // Same row again: merge-duplicates makes it a no-op, not a 409.
  res = await client.from('user_listened_releases').upsert({ user_id: U, release_id: R }, { onConflict: 'user_id,release_id' })
  assert.equal(res.error, null, JSON.stringify(res.error))

  res = await client.from('user_listened_releases').select('release_id').eq('user_id', U)
  assert.deepEqual(res.data, [{ release_id: R }])

  res = await client.from('user_listened_releases').delete().eq('user_id', U).eq('release_id', R)
  assert.equal(res.error, null)
  assert.equal(res.status, 204)
  res = await client.from('user_listened_releases').select('release_id').eq('user_id', U)
  assert.deepEqual(res.data, [])
})

test('follows: insert, duplicate is 409, select, delete', async () => {
  const { client, user } = A
  const U = user.id
  let res = await client.from('user_follow_labels').insert({ user_id: U, label_id: label.id })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.equal(res.status, 201)
  assert.equal(res.data, null)

  res = await client.from('user_follow_labels').insert({ user_id: U, label_id: label.id })
  assert.equal(res.status, 409)
  assert.equal(res.error.code, '23505')

  res = await client.from('user_follow_labels').select('label_id').eq('user_id', U)
  assert.deepEqual(res.data, [{ label_id: label.id }])

  res = await client.from('user_follow_labels').delete().eq('user_id', U).eq('label_id', label.id)
  assert.equal(res.error, null)
  res = await client.from('user_follow_labels').select('label_id').eq('user_id', U)
  assert.deepEqual(res.data, [])
})

test('submissions: lookup by url with limit 1, insert returning id, single()', async () => {
  const { client, user } = A
  const url = `https://queued-${run}.bandcamp.com`
  let res = await client.from('labels_to_add').select('id').eq('label_url', url).limit(1)
  assert.equal(res.error, null)
  assert.deepEqual(res.data, [])

  res = await client
    .from('labels_to_add')
    .insert([{ label_url: url, is_processed: false, is_valid: false, user_id: user.id }])
    .select('id')
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.equal(res.status, 201)
  assert.ok(Array.isArray(res.data) && res.data.length === 1 && typeof res.data[0].id === 'number')

  res = await client.from('labels_to_add').select('id').eq('label_url', url).limit(1)
  assert.equal(res.data.length, 1)

  const one = await client
    .from('labels_to_add')
    .insert({ label_url: url + '/x', is_processed: false, is_valid: false, user_id: user.id })
    .select('id')
    .single()
  assert.equal(one.error, null, JSON.stringify(one.error))
  assert.equal(typeof one.data.id, 'number')

  // Who submitted is not readable by members (column grants).
  res = await client.from('labels_to_add').select('user_id').limit(1)
  assert.equal(res.status, 403)
  assert.equal(res.error.code, '42501')
})

// --- SPEC §7 stored procedures ---------------------------------------------

test('validate_invite_code as anon returns the bare object', async () => {
  const { inviteCode } = env()
  let res = await anon.rpc('validate_invite_code', { code_param: inviteCode })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, { valid: true })
  res = await anon.rpc('validate_invite_code', { code_param: 'not-a-code' })
  assert.deepEqual(res.data, { valid: false })
})

test('collection procedures', async () => {
  const { client, user } = A
  const U = user.id
  await client.from('user_follow_labels').insert({ user_id: U, label_id: label.id })
  let res = await client.rpc('get_all_filtered_labels_by_listen_status', { user_id_param: U, filter_type: 'all' })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.equal(res.data.length, 1)
  assert.equal(res.data[0].id, label.id)
  assert.equal(typeof res.data[0].is_fully_checked, 'boolean')

  res = await client.rpc('count_filtered_labels_by_listen_status', { user_id_param: U, filter_type: 'unchecked', search_term: 'comma' })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.equal(typeof res.data, 'number')

  res = await client.rpc('get_filtered_labels_by_listen_status', {
    user_id_param: U,
    filter_type: 'all',
    page_number: 1,
    items_per_page: 500,
    search_term: '',
  })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.equal(res.data.length, 1)

  res = await client.rpc('get_latest_releases_per_label', { p_label_ids: releaseIds.length ? [label.id, 1, 2] : [], p_limit: 5 })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.ok(Array.isArray(res.data))
  for (const r of res.data) for (const k of ['label_id', 'title', 'artist', 'release_url', 'release_date', 'image_url', 'genres', 'rich']) assert.ok(k in r, k)

  // Bad input is the procedure's 22023, a 400.
  res = await client.rpc('get_filtered_labels_by_listen_status', { user_id_param: U, filter_type: 'bogus', page_number: 1, items_per_page: 5 })
  assert.equal(res.status, 400)
  assert.equal(res.error.code, '22023')
  await client.from('user_follow_labels').delete().eq('user_id', U).eq('label_id', label.id)
})

test('labels page procedures and counts', async () => {
  const { client, user } = A
  const args = { user_id_param: user.id, letter_filter: null, tag_filter: null, search_term: null }
  let res = await client.rpc('get_unfollowed_labels', { ...args, page_number: 1, items_per_page: 20 })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.equal(res.data.length, 20)
  res = await client.rpc('count_unfollowed_labels', args)
  assert.equal(res.error, null)
  assert.ok(res.data >= 40, `count ${res.data}`)
  res = await client.rpc('get_followed_labels', { ...args, page_number: 1, items_per_page: 20 })
  assert.deepEqual(res.data, [])
  res = await client.rpc('count_followed_labels', args)
  assert.equal(res.data, 0)
  res = await client.rpc('get_unfollowed_labels', { ...args, tag_filter: tag, search_term: 'comma', page_number: 1, items_per_page: 20 })
  assert.deepEqual(
    res.data.map((l) => l.id),
    [label.id],
  )
})

test('releases procedures: random and latest', async () => {
  const { client, user } = A
  let res = await client.rpc('get_random_releases', {
    user_id: user.id,
    label_ids: null,
    exclude_ids: [],
    num_releases: 9,
    genre_filters: null,
    time_range_days: 36500,
  })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.ok(res.data.length <= 9)
  for (const r of res.data) {
    assert.equal(typeof r.listened, 'boolean')
    assert.ok(r.labels && 'label_name' in r.labels)
  }
  res = await client.rpc('get_latest_releases', { user_id: user.id, label_ids: [1, 2, 3], page_size: 9, page: 1 })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.ok(res.data.length <= 9)
})

// --- grammar variants supabase-js emits --------------------------------------

test('in() with commas, parentheses and quotes; or(); not(); contains()', async () => {
  const c = A.client
  let res = await c.from('labels').select('id').in('label_name', ['nope', label.label_name, 'b,c', 'd(e)', 'x y'])
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, [{ id: label.id }])

  res = await c.from('labels').select('id').in('id', [label.id, label2.id]).order('id')
  assert.deepEqual(
    res.data.map((r) => r.id),
    [label.id, label2.id].sort((a, b) => a - b),
  )

  res = await c.from('labels').select('id').or(`label_name.ilike.%comma%${run}%,label_url.eq.${label2.label_url}`).order('id')
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data.map((r) => r.id).sort(), [label.id, label2.id].sort())

  res = await c.from('labels').select('id').contains('tags', [tag]).not('label_name', 'ilike', '%comma%')
  assert.deepEqual(res.data, [{ id: label2.id }])

  res = await c.from('labels').select('id').contains('tags', ['free jazz', tag])
  assert.deepEqual(res.data, [{ id: label.id }])

  res = await c.from('labels').select('id').ilike('label_name', `%${run}%`).not('label_url', 'is', null).order('id', { ascending: false })
  assert.deepEqual(
    res.data.map((r) => r.id),
    [label.id, label2.id].sort((a, b) => b - a),
  )

  res = await c.from('labels').select('id').or(`and(tags.cs.{${tag}},label_name.like.Plain*),id.eq.-1`)
  assert.deepEqual(res.data, [{ id: label2.id }])
})

test('order, range and exact count give 206 and the total', async () => {
  const res = await A.client.from('labels').select('id,label_name', { count: 'exact' }).order('created_at', { ascending: false }).order('id').range(10, 19)
  assert.equal(res.error, null)
  assert.equal(res.status, 206)
  assert.equal(res.data.length, 10)
  assert.ok(res.count >= 42, `count ${res.count}`)
})

test('head: true with count', async () => {
  const res = await A.client.from('labels').select('*', { count: 'exact', head: true }).contains('tags', [tag])
  assert.equal(res.error, null)
  assert.equal(res.data, null)
  assert.equal(res.count, 2)
})

test('single() and maybeSingle() with 0, 1 and 2 rows', async () => {
  const c = A.client
  let res = await c.from('labels').select('*').eq('id', label.id).single()
  assert.equal(res.error, null)
  assert.equal(res.data.id, label.id)
  res = await c.from('labels').select('*').eq('id', -1).single()
  assert.equal(res.status, 406)
  assert.equal(res.error.code, 'PGRST116')
  assert.match(res.error.details, /contains 0 rows/)
  res = await c.from('labels').select('id').contains('tags', [tag]).single()
  assert.equal(res.error.code, 'PGRST116')
  assert.match(res.error.details, /contains 2 rows/)

  res = await c.from('labels').select('*').eq('id', label.id).maybeSingle()
  assert.equal(res.error, null)
  assert.equal(res.data.id, label.id)
  res = await c.from('labels').select('*').eq('id', -1).maybeSingle()
  assert.equal(res.error, null)
  assert.equal(res.data, null)
  res = await c.from('labels').select('id').contains('tags', [tag]).maybeSingle()
  assert.equal(res.error.code, 'PGRST116')
})

test('embedded selects both ways, with embedded order and limit', async () => {
  const c = A.client
  let res = await c.from('releases').select('id, labels(label_name)').in('id', releaseIds).order('id')
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.equal(res.data.length, 5)
  for (const r of res.data) assert.equal(typeof r.labels.label_name, 'string')

  res = await c
    .from('labels')
    .select('label_name, releases(title)')
    .order('id')
    .limit(2)
    .order('title', { referencedTable: 'releases', ascending: false })
    .limit(1, { referencedTable: 'releases' })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.equal(res.data.length, 2)
  for (const l of res.data) {
    assert.ok(Array.isArray(l.releases))
    assert.ok(l.releases.length <= 1)
  }

  res = await c.from('labels').select('label_name, releases!inner(title)').eq('id', label.id)
  assert.deepEqual(res.data, [], 'the new label has no releases, so !inner drops it')

  res = await c.from('labels').select('*, releasez(title)').limit(1)
  assert.equal(res.status, 400)
  assert.equal(res.error.code, 'PGRST200')
})

test('rpc by GET and by HEAD', async () => {
  const c = A.client
  let res = await c.rpc('get_latest_releases_per_label', { p_label_ids: [1, 2], p_limit: 2 }, { get: true })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.ok(res.data.length <= 4)
  res = await c.rpc('get_latest_releases_per_label', { p_label_ids: [1, 2], p_limit: 2 }, { head: true, count: 'exact' })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.equal(res.data, null)
  assert.equal(typeof res.count, 'number')
  res = await anon.rpc('validate_invite_code', { code_param: 'zzz' }, { get: true })
  assert.deepEqual(res.data, { valid: false })
  // Filters and limit apply to a set-returning result.
  res = await c
    .rpc('get_latest_releases_per_label', { p_label_ids: [1, 2], p_limit: 3 })
    .eq('label_id', 2)
    .limit(1)
  assert.equal(res.data.length, 1)
  assert.equal(res.data[0].label_id, 2)
})

test('csv()', async () => {
  const res = await A.client.from('labels').select('id,label_name').eq('id', label.id).csv()
  assert.equal(res.error, null)
  assert.equal(res.data.split('\n')[0], 'id,label_name')
  assert.ok(res.data.includes('"Comma, (Paren) ""Q""'))
})

// --- row-level security through the API --------------------------------------

test('user B can neither read nor change A\u2019s follows, listens or submissions', async () => {
  const a = A.user.id
  const b = B.client
  await A.client.from('user_follow_labels').insert({ user_id: a, label_id: label2.id })
  await A.client.from('user_listened_releases').upsert({ user_id: a, release_id: releaseIds[1] }, { onConflict: 'user_id,release_id' })

  let res = await b.from('user_follow_labels').select('label_id').eq('user_id', a)
  assert.deepEqual(res.data, [])
  res = await b.from('user_listened_releases').select('release_id').eq('user_id', a)
  assert.deepEqual(res.data, [])

  res = await b.from('user_follow_labels').delete({ count: 'exact' }).eq('user_id', a)
  assert.equal(res.error, null)
  assert.equal(res.count, 0)
  res = await b.from('user_listened_releases').update({ release_id: releaseIds[2] }).eq('user_id', a).select()
  assert.deepEqual(res.data, [])

  res = await b.from('user_follow_labels').insert({ user_id: a, label_id: label.id })
  assert.equal(res.status, 403)
  assert.equal(res.error.code, '42501')
  res = await b.from('user_listened_releases').upsert({ user_id: a, release_id: releaseIds[1] }, { onConflict: 'user_id,release_id' })
  assert.equal(res.error?.code, '42501')
  res = await b
    .from('labels_to_add')
    .insert([{ label_url: `https://spoof-${run}.bandcamp.com`, is_processed: false, is_valid: false, user_id: a }])
    .select('id')
  assert.equal(res.error?.code, '42501')
  res = await b.rpc('get_followed_labels', { user_id_param: a, page_number: 1, items_per_page: 20 })
  assert.equal(res.status, 403)
  assert.equal(res.error.code, '42501')

  // A still has everything.
  res = await A.client.from('user_follow_labels').select('label_id').eq('user_id', a)
  assert.deepEqual(res.data, [{ label_id: label2.id }])
  res = await A.client.from('user_listened_releases').select('release_id').eq('user_id', a)
  assert.deepEqual(res.data, [{ release_id: releaseIds[1] }])
})

test('anon reads nothing private and gets 401', async () => {
  for (const table of ['user_follow_labels', 'user_listened_releases', 'labels_to_add', 'labels', 'invite_codes']) {
    const res = await anon.from(table).select('*').limit(1)
    assert.equal(res.status, 401, table)
    assert.equal(res.error.code, '42501', table)
  }
  const res = await anon.rpc('count_followed_labels', { user_id_param: A.user.id })
  assert.equal(res.status, 401)
})

test('service_role bypasses RLS', async () => {
  const res = await service.from('user_follow_labels').select('label_id').eq('user_id', A.user.id)
  assert.deepEqual(res.data, [{ label_id: label2.id }])
})

// --- errors in PostgREST's shape ---------------------------------------------

test('errors keep PostgREST codes and hints', async () => {
  let res = await A.client.from('label').select('*')
  assert.equal(res.status, 404)
  assert.equal(res.error.code, 'PGRST205')
  assert.match(res.error.hint, /public\.labels/)
  res = await A.client.from('labels').select('nope')
  assert.equal(res.status, 400)
  assert.equal(res.error.code, '42703')
  res = await A.client.rpc('get_followed_label', {})
  assert.equal(res.status, 404)
  assert.equal(res.error.code, 'PGRST202')
  const raw = await rawFetch('/rest/v1/labels', { headers: { Authorization: 'Bearer not.a.jwt' } })
  assert.equal(raw.status, 401)
  assert.equal((await raw.json()).code, 'PGRST301')
  assert.match(raw.headers.get('www-authenticate'), /invalid_token/)
})
