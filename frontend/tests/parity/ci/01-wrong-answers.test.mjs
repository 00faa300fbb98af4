// The answers that used to differ from PostgREST 14: the range operators
// nxl/nxr, Prefer: missing=default on bulk writes, and the order rows come
// back in without an order.
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { client } from './support.mjs'

const db = client()

test('rangeGte is nxl (&>): the range does not extend to the left of the value', async () => {
  const { data, error } = await db.from('recipes').select('id').rangeGte('season', '[5,30)').order('id')
  assert.equal(error, null)
  assert.deepEqual(data, [{ id: 2 }, { id: 3 }])
})

test('rangeLte is nxr (&<): the range does not extend to the right of the value', async () => {
  const { data, error } = await db.from('recipes').select('id').rangeLte('season', '[0,6)').order('id')
  assert.equal(error, null)
  assert.deepEqual(data, [{ id: 1 }, { id: 5 }])
})

test('bulk insert with defaultToNull: false: defaults for absent columns, one sequence value per row, body order', async () => {
  const { data, error, status } = await db
    .from('recipes')
    .insert(
      [
        { title: 'Bolo de fubá', cook: 'bruno' },
        { id: 100, title: 'Pão de queijo', cook: 'bruno' },
        { title: 'Bacalhau à Brás', cook: 'ana', servings: 6 },
      ],
      { defaultToNull: false },
    )
    .select('id, title, servings')
  assert.equal(error, null)
  assert.equal(status, 201)
  // The row naming id 100 still took a value from the sequence (7), as
  // PostgREST computes every listed column's default for every row.
  assert.deepEqual(data, [
    { id: 6, title: 'Bolo de fubá', servings: 2 },
    { id: 100, title: 'Pão de queijo', servings: 2 },
    { id: 8, title: 'Bacalhau à Brás', servings: 6 },
  ])
  const next = await db.from('recipes').insert({ title: 'Açorda', cook: 'ana' }).select('id')
  assert.deepEqual(next.data, [{ id: 9 }])
})

test('without missing=default an absent column is null', async () => {
  const { error, status } = await db.from('recipes').insert([
    { title: 'Moqueca', cook: 'bruno' },
    { title: 'Vatapá', cook: 'bruno', servings: 3 },
  ])
  assert.equal(status, 400)
  assert.equal(error.code, '23502')
})

test('bulk upsert with defaultToNull: false merges and inserts in body order', async () => {
  const { data, error, status } = await db
    .from('recipes')
    .upsert(
      [
        { id: 100, title: 'Pão de queijo mineiro', cook: 'bruno' },
        { title: 'Quindim', cook: 'bruno' },
      ],
      { defaultToNull: false },
    )
    .select('id, title, servings')
  assert.equal(error, null)
  assert.equal(status, 201)
  // The failed insert above took 10 before its NOT NULL check failed;
  // the merged row's default took 11.
  assert.deepEqual(data, [
    { id: 100, title: 'Pão de queijo mineiro', servings: 2 },
    { id: 12, title: 'Quindim', servings: 2 },
  ])
})

test('without an order, rows come in the scan order, each embed joined to its row', async () => {
  const { data, error } = await db.from('recipes').select('id, cook(country), ratings!inner(stars)').lte('id', 5)
  assert.equal(error, null)
  assert.deepEqual(data, [
    { id: 3, cook: { country: 'PT' }, ratings: [{ stars: 5 }, { stars: 4 }] },
    { id: 1, cook: { country: 'PT' }, ratings: [{ stars: 4 }] },
    { id: 2, cook: { country: 'BR' }, ratings: [{ stars: 5 }] },
    { id: 5, cook: { country: 'PT' }, ratings: [{ stars: 3 }] },
  ])
})
