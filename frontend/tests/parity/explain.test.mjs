// Parity: EXPLAIN through postgrest-js's explain() (DB_PLAN_ENABLED=true
// here), for reads, writes and calls, as PostgREST's db-plan-enabled.
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { client, raw } from './support.mjs'

const db = client()

test('explain() as text: the plan of the read, nothing else', async () => {
  const res = await db.from('messages').select('id').eq('channel_id', 1).explain()
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.equal(typeof res.data, 'string')
  assert.match(res.data, /^Aggregate/)
  assert.match(res.data, /messages/)
})

test('explain() as JSON with analyze and verbose', async () => {
  const res = await db.from('users').select('username').explain({ format: 'json', analyze: true, verbose: true })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.ok(Array.isArray(res.data), JSON.stringify(res.data))
  const plan = res.data[0]
  assert.equal(typeof plan.Plan['Total Cost'], 'number')
  assert.equal(typeof plan['Execution Time'], 'number')
  assert.ok(Array.isArray(plan.Plan.Output))
})

test('the Content-Type echoes for= and the options', async () => {
  const r = await raw('/rest/v1/users?select=username', {
    headers: { Accept: 'application/vnd.pgrst.plan+json; for="application/vnd.pgrst.object"; options=verbose|analyze' },
  })
  assert.equal(r.status, 200)
  assert.equal(
    r.headers.get('content-type'),
    'application/vnd.pgrst.plan+json; for="application/vnd.pgrst.object+json"; options=analyze|verbose; charset=utf-8',
  )
  const body = await r.json()
  assert.equal(typeof body[0].Plan['Actual Rows'], 'number')
})

test('a write is explained without being run', async () => {
  const res = await db.from('messages').delete().eq('id', 1).explain({ format: 'json' })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.equal(typeof res.data[0].Plan['Total Cost'], 'number')
  const still = await db.from('messages').select('id').eq('id', 1)
  assert.deepEqual(still.data, [{ id: 1 }])
})

test('a call is explained', async () => {
  const res = await db.rpc('get_messages', { channel_id_param: 1 }).explain({ format: 'json' })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.equal(typeof res.data[0].Plan['Total Cost'], 'number')
})

test('Settings shows the search_path PostgREST sets: the schema, then the extra search path, quoted', async () => {
  const plan = async (headers) => {
    const r = await raw('/rest/v1/users?select=username', {
      headers: { Accept: 'application/vnd.pgrst.plan+json; options=settings', ...headers },
    })
    assert.equal(r.status, 200)
    return (await r.json())[0].Settings
  }
  assert.deepEqual(await plan({}), { search_path: '"public", "public", "extensions"' })
  assert.deepEqual(await plan({ 'Accept-Profile': 'personal' }), { search_path: '"personal", "public", "extensions"' })
})

test('an unknown option is not acceptable', async () => {
  const r = await raw('/rest/v1/users', { headers: { Accept: 'application/vnd.pgrst.plan+json; options=nope' } })
  assert.equal(r.status, 406)
  assert.equal((await r.json()).code, 'PGRST107')
})
