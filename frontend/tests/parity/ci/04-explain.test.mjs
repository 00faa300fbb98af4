// EXPLAIN through the API, enabled by pgrst.db_plan_enabled only: with
// verbose, the plan carries what PostgreSQL adds for it, the Query
// Identifier included, as on hosted Supabase.
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { client } from './support.mjs'

const db = client()

test('explain({ verbose: true }) shows the output columns and the Query Identifier', async () => {
  const { data, error } = await db.from('recipes').select('id, title').explain({ verbose: true })
  assert.equal(error, null)
  assert.match(data, /Output: /)
  assert.match(data, /Query Identifier: -?\d+/)
})

test('the JSON plan has "Query Identifier" beside "Plan"', async () => {
  const { data, error } = await db.from('recipes').select('id').explain({ verbose: true, format: 'json' })
  assert.equal(error, null)
  assert.equal(typeof data[0]['Query Identifier'], 'number')
  assert.ok(data[0].Plan)
})

test('without verbose there is no Query Identifier', async () => {
  const { data, error } = await db.from('recipes').select('id').explain()
  assert.equal(error, null)
  assert.doesNotMatch(data, /Query Identifier/)
})
