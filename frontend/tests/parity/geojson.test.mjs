// Parity: GeoJSON output (Accept: application/geo+json) for tables with a
// PostGIS geometry column, as PostgREST. Skipped, with the reason, where
// PostGIS could not be installed (LABELBASE_POSTGIS=0).
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { client, env, raw } from './support.mjs'

const skip = env().postgis ? false : 'PostGIS is not installed here (go tool task deps:postgis installs it)'
const db = client()

test('a table with a geometry column as a FeatureCollection', { skip }, async () => {
  const res = await db.from('shops').select('id,address,shop_geom').order('id').geojson()
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, {
    type: 'FeatureCollection',
    features: [
      { type: 'Feature', geometry: { type: 'Point', coordinates: [-71.10044, 42.373695] }, properties: { id: 1, address: '1369 Cambridge St' } },
      { type: 'Feature', geometry: { type: 'Point', coordinates: [-71.10543, 42.366432] }, properties: { id: 2, address: '757 Massachusetts Ave' } },
    ],
  })
})

test('no rows is an empty collection; the Content-Type is geo+json', { skip }, async () => {
  const r = await raw('/rest/v1/shops?id=gt.99', { headers: { Accept: 'application/geo+json' } })
  assert.equal(r.status, 200)
  assert.equal(r.headers.get('content-type'), 'application/geo+json; charset=utf-8')
  assert.deepEqual(await r.json(), { type: 'FeatureCollection', features: [] })
})

test('a table without a geometry column is a 400', { skip }, async () => {
  const r = await raw('/rest/v1/tags', { headers: { Accept: 'application/geo+json' } })
  assert.equal(r.status, 400)
  assert.deepEqual(await r.json(), { code: '22023', details: null, hint: null, message: 'geometry column is missing' })
})

test('a write returns its representation as GeoJSON', { skip }, async () => {
  const r = await raw('/rest/v1/shops', {
    method: 'POST',
    headers: { Accept: 'application/geo+json', Prefer: 'return=representation', 'Content-Type': 'application/json' },
    body: JSON.stringify({ id: 4, address: '1354 Massachusetts Ave', shop_geom: 'SRID=4326;POINT(-71.11834 42.373238)' }),
  })
  assert.equal(r.status, 201)
  assert.deepEqual(await r.json(), {
    type: 'FeatureCollection',
    features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [-71.11834, 42.373238] }, properties: { id: 4, address: '1354 Massachusetts Ave' } }],
  })
})
