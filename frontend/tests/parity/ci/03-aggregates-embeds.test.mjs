// Aggregates and embeds: a bare count inside an embed, nested, the name
// PostgREST's errors give an embedded resource, empty embeds, and a
// self-reference hinted by its constraint name. Aggregates are on through
// pgrst.db_aggregates_enabled (schema.sql).
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { client } from './support.mjs'

const db = client()

test('a bare count inside an embed is the count aggregate', async () => {
  const { data, error } = await db.from('cooks').select('username, recipes(count)').lte('recipes.id', 5).order('username')
  assert.equal(error, null)
  assert.deepEqual(data, [
    { username: 'ana', recipes: [{ count: 3 }] },
    { username: 'bruno', recipes: [{ count: 1 }] },
    { username: 'chen', recipes: [{ count: 1 }] },
    { username: 'dora', recipes: [{ count: 0 }] },
  ])
})

test('a bare count nested two embeds deep', async () => {
  const { data, error } = await db
    .from('cooks')
    .select('username, recipes(ratings(count))')
    .lte('recipes.id', 5)
    .order('id', { referencedTable: 'recipes' })
    .order('username')
  assert.equal(error, null)
  assert.deepEqual(data, [
    { username: 'ana', recipes: [{ ratings: [{ count: 1 }] }, { ratings: [{ count: 2 }] }, { ratings: [{ count: 1 }] }] },
    { username: 'bruno', recipes: [{ ratings: [{ count: 1 }] }] },
    { username: 'chen', recipes: [{ ratings: [{ count: 0 }] }] },
    { username: 'dora', recipes: [] },
  ])
})

test('count() with other aggregates and a group key', async () => {
  const { data, error } = await db.from('ratings').select('recipe_id, count(), stars.max()').lte('recipe_id', 3).order('recipe_id')
  assert.equal(error, null)
  assert.deepEqual(data, [
    { recipe_id: 1, count: 1, max: 4 },
    { recipe_id: 2, count: 1, max: 5 },
    { recipe_id: 3, count: 2, max: 5 },
  ])
})

test('an error in an embed names it as PostgREST aliases it (recipes_1)', async () => {
  const { error, status } = await db.from('cooks').select('username, recipes(sum)')
  assert.equal(status, 400)
  assert.deepEqual(error, { code: '42703', details: null, hint: null, message: 'column recipes_1.sum does not exist' })
})

test('an empty embed filters with !inner but is not returned', async () => {
  const { data, error } = await db.from('cooks').select('username, recipes!inner()').eq('recipes.title', 'Feijoada')
  assert.equal(error, null)
  assert.deepEqual(data, [{ username: 'bruno' }])
})

test('an empty embed with an is-null filter keeps the parents without children', async () => {
  const { data, error } = await db.from('cooks').select('username, recipes()').is('recipes', null)
  assert.equal(error, null)
  assert.deepEqual(data, [{ username: 'dora' }])
})

test('a self-reference embeds the parent by its column and the children by table!column', async () => {
  const { data, error } = await db.from('recipes').select('id, parent_id(title), variations:recipes!parent_id(id)').in('id', [1, 5]).order('id')
  assert.equal(error, null)
  assert.deepEqual(data, [
    { id: 1, parent_id: null, variations: [{ id: 5 }] },
    { id: 5, parent_id: { title: 'Caldo verde' }, variations: [] },
  ])
})

test('a self-reference hinted by its constraint name is PGRST200, as in PostgREST', async () => {
  const { error, status } = await db.from('recipes').select('id, recipes!recipes_parent_id_fkey(id)')
  assert.equal(status, 400)
  assert.deepEqual(error, {
    code: 'PGRST200',
    details:
      "Searched for a foreign key relationship between 'recipes' and 'recipes' using the hint 'recipes_parent_id_fkey' in the schema 'public', but no matches were found.",
    hint: null,
    message: "Could not find a relationship between 'recipes' and 'recipes' in the schema cache",
  })
})

test("two unlabelled embeds of one table collide like the aliases of PostgREST's SQL (42712)", async () => {
  const { error, status } = await db.from('recipes').select('cooks!cook(username), ratings!recipe_id(stars), cooks!cook(country)')
  assert.equal(status, 400)
  assert.deepEqual(error, { code: '42712', details: null, hint: null, message: 'table name "recipes_cooks_1" specified more than once' })
  const labelled = await db.from('recipes').select('chef:cooks!cook(username), home:cooks!cook(country)').eq('id', 2)
  assert.equal(labelled.error, null)
  assert.deepEqual(labelled.data, [{ chef: { username: 'bruno' }, home: { country: 'BR' } }])
})

test("an unknown column gets PostgreSQL's hint only when one is close enough", async () => {
  const far = await db.from('recipes').select('servngs_total')
  assert.deepEqual(far.error, { code: '42703', details: null, hint: null, message: 'column recipes.servngs_total does not exist' })
  const near = await db.from('recipes').select('servngs')
  assert.deepEqual(near.error, {
    code: '42703',
    details: null,
    hint: 'Perhaps you meant to reference the column "recipes.servings".',
    message: 'column recipes.servngs does not exist',
  })
})
