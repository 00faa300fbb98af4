// Contract suite for /storage/v1: supabase.storage from the unmodified
// @supabase/supabase-js against a live gateway (see support.mjs). The
// gateway under test (pkg/app/acceptance_test.go) has two buckets with
// policies a project would write: "contract-private", where each member
// owns the folder named after their user id, and "contract-public".
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { randomUUID } from 'node:crypto'

import { env, newClient, plainURL, signUpNewUser } from './support.mjs'

// A 64x48 JPEG, for the image transformations.
const JPEG = Buffer.from(
  '/9j/2wCEABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2MBERISGBUYLxoaL2NCOEJjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY//AABEIADAAQAMBIgACEQEDEQH/xAGiAAABBQEBAQEBAQAAAAAAAAAAAQIDBAUGBwgJCgsQAAIBAwMCBAMFBQQEAAABfQECAwAEEQUSITFBBhNRYQcicRQygZGhCCNCscEVUtHwJDNicoIJChYXGBkaJSYnKCkqNDU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6g4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2drh4uPk5ebn6Onq8fLz9PX29/j5+gEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoLEQACAQIEBAMEBwUEBAABAncAAQIDEQQFITEGEkFRB2FxEyIygQgUQpGhscEJIzNS8BVictEKFiQ04SXxFxgZGiYnKCkqNTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqCg4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2dri4+Tl5ufo6ery8/T19vf4+fr/2gAMAwEAAhEDEQA/AOOWOpFjqdY6lWOvWczKnUIFjqVY6nWOpVjrJzO+nUIFjqRY6nWOpVjrJzO+nUIFjqVY6nWOpVjrJzO+nUMlY6lWOp1jqVY6pzPgqdQgWOpFjqdY6lWOsnM76dQgWOpVjqdY6lWOsnM76dQgWOpVjqZY6lWOsnM76dQyVjqVY6nWOpVjq3M+Cp1CBY6lWOp1jqVY6yczvp1CBY6kWOp1jqVY6yczvp1CBY6lWOp1jqVY6yczvp1D/9k=',
  'base64',
)

let A // { client, user }
let B
let service
let anon
const run = randomUUID().slice(0, 8)

before(async () => {
  A = await signUpNewUser()
  B = await signUpNewUser()
  service = newClient({ key: env().serviceRoleKey })
  anon = newClient()
})

const mine = (who, name) => `${who.user.id}/${run}/${name}`

test('buckets: create with Supabase units, get, list, update, empty, delete', async () => {
  const s = service.storage
  const id = `contract-${run}`
  let res = await s.createBucket(id, { public: false, fileSizeLimit: '20mb', allowedMimeTypes: ['image/*'] })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data, { name: id })
  res = await s.getBucket(id)
  assert.equal(res.error, null)
  assert.equal(res.data.file_size_limit, 20000000)
  assert.deepEqual(res.data.allowed_mime_types, ['image/*'])
  assert.equal(res.data.public, false)
  assert.match(res.data.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  assert.deepEqual(Object.keys(res.data).sort(), ['allowed_mime_types', 'created_at', 'file_size_limit', 'id', 'name', 'owner', 'public', 'updated_at'])

  res = await s.createBucket(id)
  assert.equal(res.error.message, 'The resource already exists')
  assert.equal(res.error.statusCode, '409')

  res = await s.listBuckets()
  assert.equal(res.error, null)
  assert.ok(res.data.some((b) => b.id === id))

  res = await s.updateBucket(id, { public: true, fileSizeLimit: '1kb' })
  assert.equal(res.error, null)
  assert.equal(res.data.message, 'Successfully updated')
  res = await s.getBucket(id)
  assert.equal(res.data.public, true)
  assert.equal(res.data.file_size_limit, 1000)
  assert.deepEqual(res.data.allowed_mime_types, ['image/*'], 'an absent key is left unchanged')

  const up = await s.from(id).upload('a.png', new Blob(['x'], { type: 'image/png' }))
  assert.equal(up.error, null, JSON.stringify(up.error))
  res = await s.deleteBucket(id)
  assert.equal(res.error.message, 'The bucket you tried to delete is not empty')
  res = await s.emptyBucket(id)
  assert.equal(res.error, null)
  assert.equal(res.data.message, 'Empty bucket has been queued. Completion may take up to an hour.')
  res = await s.deleteBucket(id)
  assert.equal(res.error, null)
  assert.equal(res.data.message, 'Successfully deleted')
  res = await s.getBucket(id)
  assert.equal(res.error.message, 'Bucket not found')
  assert.equal(res.error.statusCode, '404')
})

test('a member may not create buckets; the size limit and mime types refuse uploads', async () => {
  const res = await A.client.storage.createBucket(`member-${run}`)
  assert.match(res.error.message, /row-level security/)
  assert.equal(res.error.statusCode, '403')

  const id = `limited-${run}`
  await service.storage.createBucket(id, { public: true, fileSizeLimit: '1kb', allowedMimeTypes: ['image/png'] })
  let up = await service.storage.from(id).upload('big.png', Buffer.alloc(2000), { contentType: 'image/png' })
  assert.equal(up.error.message, 'The object exceeded the maximum allowed size')
  assert.equal(up.error.statusCode, '413')
  up = await service.storage.from(id).upload('a.jpg', Buffer.alloc(10), { contentType: 'image/jpeg' })
  assert.equal(up.error.message, 'mime type image/jpeg is not supported')
  assert.equal(up.error.statusCode, '415')
  up = await service.storage.from('no-such-bucket').upload('x.txt', 'x')
  assert.equal(up.error.message, 'Bucket not found')
})

test('objects: upload as Blob, Buffer and stream; download, info, exists; upsert and update', async () => {
  const f = A.client.storage.from('contract-private')
  const path = mine(A, 'hello.txt')
  let res = await f.upload(path, new Blob(['hello from a blob'], { type: 'text/plain' }), { metadata: { n: 1 } })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.equal(res.data.path, path)
  assert.equal(res.data.fullPath, `contract-private/${path}`)
  assert.ok(res.data.id)

  res = await f.upload(path, Buffer.from('again'))
  assert.equal(res.error.message, 'The resource already exists')
  assert.equal(res.error.statusCode, '409')
  res = await f.upload(path, Buffer.from('replaced by upsert'), { upsert: true })
  assert.equal(res.error, null, JSON.stringify(res.error))

  const dl = await f.download(path)
  assert.equal(dl.error, null)
  assert.equal(await dl.data.text(), 'replaced by upsert')
  assert.equal(dl.data.type, 'text/plain;charset=utf-8')

  res = await f.update(path, Readable.from([Buffer.from('streamed '), Buffer.from('update')]), { duplex: 'half' })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.equal(await (await f.download(path)).data.text(), 'streamed update')

  const info = await f.info(path)
  assert.equal(info.error, null)
  assert.equal(info.data.size, 15)
  assert.ok(info.data.etag)
  assert.equal(info.data.bucketId, 'contract-private')
  assert.ok(!('updatedAt' in info.data))

  assert.equal((await f.exists(path)).data, true)
  assert.equal((await f.exists(mine(A, 'nope.txt'))).data, false)
})

test('two gateways on one database: what one stores, the other serves under the same policies', async () => {
  const path = mine(A, 'both-gateways.txt')
  assert.equal((await A.client.storage.from('contract-private').upload(path, 'stored through gateway A')).error, null)
  // A's own session, presented to the other gateway.
  const asA = newClient({ url: plainURL(), global: { headers: { Authorization: `Bearer ${A.session.access_token}` } } })
  const dl = await asA.storage.from('contract-private').download(path)
  assert.equal(dl.error, null)
  assert.equal(await dl.data.text(), 'stored through gateway A')
  // B may not read it there either.
  const asB = newClient({ url: plainURL(), global: { headers: { Authorization: `Bearer ${B.session.access_token}` } } })
  assert.notEqual((await asB.storage.from('contract-private').download(path)).error, null)
  // A replacement through the other gateway is what the first serves.
  assert.equal((await asA.storage.from('contract-private').update(path, 'replaced through gateway B')).error, null)
  assert.equal(await (await A.client.storage.from('contract-private').download(path)).data.text(), 'replaced through gateway B')
})

test("RLS: another member and anon can neither read nor write a member's folder", async () => {
  const path = mine(A, 'private.txt')
  assert.equal((await A.client.storage.from('contract-private').upload(path, 'mine')).error, null)

  const b = B.client.storage.from('contract-private')
  let res = await b.download(path)
  assert.equal(res.error.message, 'Object not found')
  res = await b.upload(mine(A, 'planted.txt'), 'x')
  assert.match(res.error.message, /row-level security/)
  assert.equal(res.error.statusCode, '403')
  res = await b.createSignedUrl(path, 60)
  assert.equal(res.error.message, 'Object not found')
  res = await b.remove([path])
  assert.deepEqual(res.data, [])
  res = await b.list(`${A.user.id}/${run}`)
  assert.deepEqual(res.data, [])

  res = await anon.storage.from('contract-private').download(path)
  assert.equal(res.error.message, 'Object not found')
  res = await anon.storage.from('contract-private').upload(`anon-${run}.txt`, 'x')
  assert.equal(res.error.statusCode, '403')

  // Without Authorization storage answers with its own error, apikey or not.
  const r = await fetch(`${env().url}/storage/v1/bucket`, { headers: { apikey: env().anonKey } })
  assert.equal(r.status, 400)
  const body = await r.json()
  assert.equal(body.message, 'Invalid Compact JWS')
  assert.equal(body.statusCode, '403')
})

test('list v1 and v2: folders, prefixes, search, sort and cursor pages', async () => {
  const f = A.client.storage.from('contract-private')
  const base = `${A.user.id}/list-${run}`
  for (const n of ['b.txt', 'a.txt', 'c.txt', 'sub/d.txt']) {
    assert.equal((await f.upload(`${base}/${n}`, n)).error, null)
  }
  let res = await f.list(base)
  assert.equal(res.error, null)
  assert.deepEqual(
    res.data.map((e) => e.name),
    ['a.txt', 'b.txt', 'c.txt', 'sub'],
  )
  const folder = res.data.find((e) => e.name === 'sub')
  assert.equal(folder.id, null)
  assert.equal(folder.metadata, null)
  res = await f.list(base, { limit: 2, offset: 1, sortBy: { column: 'name', order: 'desc' } })
  assert.deepEqual(
    res.data.map((e) => e.name),
    ['c.txt', 'b.txt'],
  )
  res = await f.list(base, { search: 'b' })
  assert.deepEqual(
    res.data.map((e) => e.name),
    ['b.txt'],
  )

  res = await f.listV2({ prefix: `${base}/`, with_delimiter: true })
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.deepEqual(res.data.folders, [{ key: `${base}/sub`, name: `${base}/sub/` }])
  assert.deepEqual(
    res.data.objects.map((o) => o.name),
    ['a', 'b', 'c'].map((x) => `${base}/${x}.txt`),
  )

  const seen = []
  let cursor
  let pages = 0
  do {
    res = await f.listV2({ prefix: `${base}/`, limit: 2, cursor, sortBy: { column: 'created_at', order: 'desc' } })
    assert.equal(res.error, null)
    seen.push(...res.data.objects.map((o) => o.name.slice(base.length + 1)))
    cursor = res.data.nextCursor
    pages++
  } while (res.data.hasNext)
  assert.equal(pages, 2)
  assert.deepEqual(seen, ['sub/d.txt', 'c.txt', 'a.txt', 'b.txt'])
})

test('move and copy, also across buckets; remove many', async () => {
  const f = A.client.storage.from('contract-private')
  const src = mine(A, 'move-me.txt')
  assert.equal((await f.upload(src, 'moving')).error, null)
  let res = await f.move(src, mine(A, 'moved.txt'))
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.equal(res.data.message, 'Successfully moved')
  assert.equal(await (await f.download(mine(A, 'moved.txt'))).data.text(), 'moving')
  res = await f.move(mine(A, 'moved.txt'), mine(B, 'stolen.txt'))
  assert.equal(res.error.statusCode, '403', "the UPDATE policy refuses a move into another member's folder")

  res = await f.copy(mine(A, 'moved.txt'), mine(A, 'copy.txt'))
  assert.equal(res.error, null, JSON.stringify(res.error))
  assert.equal(res.data.path, `contract-private/${mine(A, 'copy.txt')}`)

  const s = service.storage.from('contract-private')
  res = await s.copy(mine(A, 'copy.txt'), `copied-${run}.txt`, { destinationBucket: 'contract-public' })
  assert.equal(res.error, null, JSON.stringify(res.error))
  res = await s.move(mine(A, 'copy.txt'), `moved-${run}.txt`, { destinationBucket: 'contract-public' })
  assert.equal(res.error, null, JSON.stringify(res.error))
  const pub = await fetch(service.storage.from('contract-public').getPublicUrl(`moved-${run}.txt`).data.publicUrl)
  assert.equal(await pub.text(), 'moving')

  res = await f.remove([mine(A, 'moved.txt'), mine(A, 'never-existed.txt')])
  assert.equal(res.error, null)
  assert.deepEqual(
    res.data.map((r) => r.name),
    [mine(A, 'moved.txt')],
  )
  assert.ok(res.data[0].id)
})

test('signed URLs: download without a session, many at once, upload once', async () => {
  const f = A.client.storage.from('contract-private')
  const path = mine(A, 'signed.txt')
  assert.equal((await f.upload(path, 'signed content')).error, null)
  let res = await f.createSignedUrl(path, 60, { download: 'named.txt' })
  assert.equal(res.error, null, JSON.stringify(res.error))
  let r = await fetch(res.data.signedUrl)
  assert.equal(r.status, 200)
  assert.equal(await r.text(), 'signed content')
  assert.match(r.headers.get('content-disposition'), /attachment; filename=named\.txt/)

  // A token for one object does not open another.
  const other = res.data.signedUrl.replace('signed.txt', 'other.txt')
  r = await fetch(other)
  assert.equal(r.status, 400)
  assert.equal((await r.json()).message, 'Invalid signature')

  res = await f.createSignedUrls([path, mine(A, 'missing.txt')], 60)
  assert.equal(res.error, null)
  assert.equal(res.data[0].error, null)
  assert.ok(res.data[0].signedUrl)
  assert.equal(res.data[1].error, 'Either the object does not exist or you do not have access to it')

  const up = await f.createSignedUploadUrl(mine(A, 'via-url.txt'))
  assert.equal(up.error, null, JSON.stringify(up.error))
  // Uploaded through a client without a session, as a browser would.
  res = await anon.storage.from('contract-private').uploadToSignedUrl(up.data.path, up.data.token, Buffer.from('through the url'))
  assert.equal(res.error, null, JSON.stringify(res.error))
  res = await anon.storage.from('contract-private').uploadToSignedUrl(up.data.path, up.data.token, Buffer.from('twice'))
  assert.equal(res.error.message, 'The resource already exists')
  assert.equal(res.error.statusCode, '409')
  assert.equal(await (await f.download(mine(A, 'via-url.txt'))).data.text(), 'through the url')

  res = await B.client.storage.from('contract-private').createSignedUploadUrl(mine(A, 'nope.txt'))
  assert.equal(res.error.statusCode, '403')
})

test('public bucket: a bare fetch reads it; range and ETag revalidation', async () => {
  const path = `pub-${run}.txt`
  assert.equal((await service.storage.from('contract-public').upload(path, '0123456789')).error, null)
  const url = service.storage.from('contract-public').getPublicUrl(path).data.publicUrl
  let r = await fetch(url)
  assert.equal(r.status, 200)
  const etag = r.headers.get('etag')
  assert.ok(etag)
  assert.equal(await r.text(), '0123456789')
  r = await fetch(url, { headers: { range: 'bytes=2-4' } })
  assert.equal(r.status, 206)
  assert.equal(r.headers.get('content-range'), 'bytes 2-4/10')
  assert.equal(await r.text(), '234')
  r = await fetch(url, { headers: { 'if-none-match': etag } })
  assert.equal(r.status, 304)
})

test('image transformations: authenticated, public and signed renders', async () => {
  const path = `img-${run}.jpg`
  assert.equal((await service.storage.from('contract-public').upload(path, JPEG, { contentType: 'image/jpeg' })).error, null)
  const dl = await service.storage.from('contract-public').download(path, { transform: { width: 32, height: 32 } })
  assert.equal(dl.error, null, JSON.stringify(dl.error))
  assert.equal(dl.data.type, 'image/jpeg')
  assert.ok(dl.data.size > 0)

  const url = service.storage.from('contract-public').getPublicUrl(path, { transform: { width: 16, resize: 'contain' } }).data.publicUrl
  let r = await fetch(url)
  assert.equal(r.status, 200)
  assert.equal(r.headers.get('x-transformations'), 'width:16,resizing_type:fit')

  const signed = await service.storage.from('contract-public').createSignedUrl(path, 60, { transform: { width: 20, height: 20, quality: 60 } })
  assert.equal(signed.error, null)
  assert.match(signed.data.signedUrl, /\/render\/image\/sign\//)
  r = await fetch(signed.data.signedUrl)
  assert.equal(r.status, 200)
  assert.equal(r.headers.get('x-transformations'), 'height:20,width:20,resizing_type:fill,quality:60')
  assert.ok(Number(r.headers.get('content-length')) > 0)
})
