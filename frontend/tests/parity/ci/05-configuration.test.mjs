// Configuration done only the PostgREST way: pgrst.* settings on the
// authenticator role (schema.sql), and changes at run time with
// ALTER ROLE … SET plus NOTIFY pgrst, 'reload config' (through
// pgrst_setting, which only service_role may call), without a restart.
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { client, raw, sign, eventually } from './support.mjs'

const db = client()
const admin = client({ service: true })

async function setting(name, value) {
  const { error } = await admin.rpc('pgrst_setting', { name, value })
  assert.equal(error, null, JSON.stringify(error))
}

test('db_schemas exposes a second schema', async () => {
  const { data, error } = await client({ schema: 'kitchen' }).from('pantry').select('item').order('id')
  assert.equal(error, null)
  assert.deepEqual(data, [{ item: 'salt' }, { item: 'olive oil' }])
  const hidden = await client({ schema: 'helpers' }).from('anything').select()
  assert.equal(hidden.status, 406)
  assert.deepEqual(hidden.error, {
    code: 'PGRST106',
    details: null,
    hint: 'Only the following schemas are exposed: public, kitchen',
    message: 'Invalid schema: helpers',
  })
})

test('db_tx_end = commit-allow-override lets .rollback() dry-run a write', async () => {
  const { data, error, status } = await db.from('cooks').insert({ username: 'zeca', country: 'AO' }).select().rollback()
  assert.equal(error, null)
  assert.equal(status, 201)
  assert.deepEqual(data, [{ username: 'zeca', country: 'AO' }])
  const after = await db.from('cooks').select().eq('username', 'zeca')
  assert.deepEqual(after.data, [])
})

test('db_pre_request runs before every request and may refuse it', async () => {
  // (403: postgrest-js retries a 503 after its Retry-After.)
  const closed = await client({ headers: { 'X-Kitchen': 'closed' } })
    .from('cooks')
    .select()
  assert.equal(closed.status, 403)
  assert.deepEqual(closed.error, { code: 'KITCHEN', details: null, hint: null, message: 'The kitchen is closed' })
  const open = await client({ headers: { 'X-Kitchen': 'open' } })
    .from('cooks')
    .select('username')
    .eq('username', 'ana')
  assert.deepEqual(open.data, [{ username: 'ana' }])
})

test('db_extra_search_path puts helpers on the search path', async () => {
  const { data, error } = await db.rpc('greet')
  assert.equal(error, null)
  assert.equal(data, 'bon appétit')
})

test('openapi_mode = ignore-privileges lists tables the caller may not read', async () => {
  const r = await raw('/rest/v1/')
  assert.equal(r.status, 200)
  const spec = await r.json()
  assert.ok(spec.paths['/secret_sauce'], 'secret_sauce is listed')
  const read = await db.from('secret_sauce').select()
  assert.equal(read.status, 401)
})

test('db_max_rows set and reset at run time caps reads', async () => {
  await setting('db_max_rows', '2')
  await eventually(async () => (await db.from('recipes').select('id')).data?.length === 2, 'db_max_rows = 2')
  const { data } = await db.from('recipes').select('id, ratings(stars)').eq('id', 3)
  assert.deepEqual(data, [{ id: 3, ratings: [{ stars: 5 }, { stars: 4 }] }])
  // count=estimated: the planner's estimate above db_max_rows, exact within.
  const planned = await db.from('recipes').select('id', { count: 'planned' })
  const estimated = await db.from('recipes').select('id', { count: 'estimated' })
  assert.equal(estimated.count, planned.count)
  const within = await db.from('recipes').select('id', { count: 'estimated' }).in('id', [1, 2])
  assert.equal(within.count, 2)
  await setting('db_max_rows', null)
  await eventually(async () => (await db.from('recipes').select('id')).data?.length > 2, 'db_max_rows reset')
})

test('openapi_mode = disabled answers PGRST126, and back', async () => {
  await setting('openapi_mode', 'disabled')
  await eventually(async () => (await raw('/rest/v1/')).status === 404, 'openapi_mode = disabled')
  const r = await raw('/rest/v1/')
  assert.deepEqual(await r.json(), { code: 'PGRST126', details: null, hint: null, message: 'Root endpoint metadata is disabled' })
  await setting('openapi_mode', 'ignore-privileges')
  await eventually(async () => (await raw('/rest/v1/')).status === 200, 'openapi_mode restored')
})

test('db_schemas changed at run time reloads the schema cache too', async () => {
  await setting('db_schemas', 'public')
  await eventually(async () => (await client({ schema: 'kitchen' }).from('pantry').select()).status === 406, 'db_schemas = public')
  await setting('db_schemas', 'public, kitchen')
  await eventually(async () => (await client({ schema: 'kitchen' }).from('pantry').select()).status === 200, 'db_schemas restored')
})

test('jwt_aud refuses tokens for another audience', async () => {
  await setting('jwt_aud', 'https://kitchen.example')
  const other = client({ headers: { Authorization: `Bearer ${sign({ role: 'authenticated', aud: 'authenticated' })}` } })
  await eventually(async () => (await other.from('cooks').select()).status === 401, 'jwt_aud')
  const refused = await other.from('cooks').select()
  assert.deepEqual(refused.error, { code: 'PGRST303', details: null, hint: null, message: 'JWT not in audience' })
  const ours = client({ headers: { Authorization: `Bearer ${sign({ role: 'authenticated', aud: 'https://kitchen.example' })}` } })
  assert.equal((await ours.from('cooks').select('username').eq('username', 'ana')).status, 200)
  await setting('jwt_aud', null)
  await eventually(async () => (await other.from('cooks').select()).status === 200, 'jwt_aud reset')
})

test('jwt_role_claim_key reads the role from elsewhere in the claims', async () => {
  const tok = sign({ role: 'anon', app_metadata: { kitchen_role: 'service_role' } })
  const chef = client({ headers: { Authorization: `Bearer ${tok}` } })
  assert.equal((await chef.from('secret_sauce').select()).status, 401)
  await setting('jwt_role_claim_key', '.app_metadata.kitchen_role')
  await eventually(async () => (await chef.from('secret_sauce').select()).status === 200, 'jwt_role_claim_key')
  await setting('jwt_role_claim_key', null)
  await eventually(async () => (await chef.from('secret_sauce').select()).status === 401, 'jwt_role_claim_key reset')
})
