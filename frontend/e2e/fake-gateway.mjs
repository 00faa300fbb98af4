// A stand-in for the Go gateway, for running the browser journeys before (or without) the real
// backend: it serves dist/ with the runtime config injected, plus the /auth/v1 and /rest/v1
// calls the app makes, over in-memory demo data. It follows the contract in the issue, not
// PostgREST or GoTrue in general; the journeys must also pass against the real gateway.
//
//   node e2e/fake-gateway.mjs [--port 41234]
//   -> prints LABELBASE_URL, LABELBASE_ANON_KEY, LABELBASE_SERVICE_ROLE_KEY, LABELBASE_INVITE_CODE
import { randomBytes, randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { extname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'

const DIST = fileURLToPath(new URL('../dist/', import.meta.url))
const ANON_KEY = 'fake-anon-key'
const SERVICE_ROLE_KEY = 'fake-service-role-key'
const INVITE_CODE = 'FAKE-INVITE'
const DAY = 86_400_000

// ---- Demo data (deterministic) --------------------------------------------------------------

function prng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export function demoData() {
  const rand = prng(20260101)
  const pick = (list) => list[Math.floor(rand() * list.length)]
  const words = ['Night', 'Ghost', 'Echo', 'Velvet', 'Paper', 'Signal', 'Harbor', 'Static', 'Lunar', 'Copper', 'Moss', 'Prism', 'Drift', 'Ember', 'Tidal', 'Quiet', 'Orbit', 'Hollow', 'Neon', 'Fable']
  const kinds = ['Records', 'Sounds', 'Tapes', 'Audio', 'Recordings', 'Music']
  const tags = ['electronic', 'ambient', 'techno', 'house', 'jazz', 'experimental', 'indie', 'folk', 'hip-hop', 'dub', 'noise', 'leftfield']
  const genres = ['ambient', 'techno', 'house', 'electro', 'jazz', 'downtempo', 'drone', 'idm', 'breakbeat', 'dub techno', 'folk', 'soul']
  const labels = []
  for (let i = 1; i <= 40; i++) {
    const name = `${words[(i * 7) % words.length]} ${words[(i * 3 + 5) % words.length]} ${kinds[i % kinds.length]}`
    const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '')
    const labelTags = [...new Set([pick(tags), pick(tags), pick(tags)])]
    labels.push({ id: i, label_name: name, label_url: `https://${slug}${i}.bandcamp.com`, tags: labelTags })
  }
  const releases = []
  const now = Date.now()
  for (let i = 1; i <= 600; i++) {
    const label = labels[(i - 1) % labels.length]
    const age = Math.floor(rand() * 730)
    const g = rand() < 0.05 ? [] : [...new Set([pick(genres), pick(genres)])]
    releases.push({
      id: 1000 + i,
      label_id: label.id,
      title: `${pick(words)} ${pick(words)}${rand() < 0.3 ? ' EP' : ''}`,
      artist: `${pick(words)} ${pick(['Collective', 'Trio', 'Unit', 'Ensemble', 'Project', ''])}`.trim(),
      release_url: `${label.label_url}/album/release-${i}`,
      release_date: new Date(now - age * DAY).toISOString().slice(0, 10),
      image_url: rand() < 0.1 ? null : `/fake-covers/${1000 + i}.svg`,
      genres: g,
      rich: rand() < 0.5,
    })
  }
  return { labels, releases }
}

// ---- State ----------------------------------------------------------------------------------

const { labels, releases } = demoData()
const users = new Map() // email -> {id, email, password, metadata}
const sessions = new Map() // access token -> user id
const refreshTokens = new Map() // refresh token -> user id
const follows = [] // {id, user_id, label_id, created_at}
const listens = [] // {id, user_id, release_id, created_at}
const queue = [] // {id, label_url, is_processed, is_valid, user_id, created_at}
let serial = 1

const userById = (id) => [...users.values()].find((u) => u.id === id)

function userJson(u) {
  const at = new Date().toISOString()
  return { id: u.id, aud: 'authenticated', role: 'authenticated', email: u.email, app_metadata: { provider: 'email' }, user_metadata: u.metadata, created_at: at, updated_at: at, email_confirmed_at: at, identities: [] }
}

function newSession(u) {
  const access = randomBytes(16).toString('hex')
  const refresh = randomBytes(16).toString('hex')
  sessions.set(access, u.id)
  refreshTokens.set(refresh, u.id)
  return { access_token: access, token_type: 'bearer', expires_in: 3600, expires_at: Math.floor(Date.now() / 1000) + 3600, refresh_token: refresh, user: userJson(u) }
}

// ---- HTTP helpers ---------------------------------------------------------------------------

function send(res, status, body, headers = {}) {
  const text = body === undefined ? '' : JSON.stringify(body)
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers })
  res.end(text)
}
const authError = (res, status, code, message) => send(res, status, { code, message }, { 'X-Supabase-Api-Version': '2024-01-01' })
const restError = (res, status, code, message) => send(res, status, { code, message, details: null, hint: null })

async function readJson(req) {
  const chunks = []
  for await (const chunk of req) chunks.push(chunk)
  const text = Buffer.concat(chunks).toString('utf8')
  return text ? JSON.parse(text) : undefined
}

function caller(req) {
  const token = (req.headers.authorization ?? '').replace(/^Bearer /, '')
  if (token === SERVICE_ROLE_KEY) return { role: 'service_role' }
  const uid = sessions.get(token)
  return uid ? { role: 'authenticated', uid } : { role: 'anon' }
}

// ---- /auth/v1 -------------------------------------------------------------------------------

async function auth(req, res, url) {
  const path = url.pathname.slice('/auth/v1'.length)
  if (req.headers.apikey !== ANON_KEY && req.headers.apikey !== SERVICE_ROLE_KEY) return authError(res, 401, 'no_api_key', 'Invalid API key')
  if (req.method === 'POST' && path === '/signup') {
    const body = await readJson(req)
    if (!body?.email || !body?.password) return authError(res, 400, 'validation_failed', 'Email and password are required')
    if (users.has(body.email.toLowerCase())) return authError(res, 422, 'user_already_exists', 'User already registered')
    if (body.password.length < 6) return send(res, 422, { code: 'weak_password', message: 'Password should be at least 6 characters.', weak_password: { reasons: ['length'] } }, { 'X-Supabase-Api-Version': '2024-01-01' })
    if (body.data?.invite_code !== INVITE_CODE) return authError(res, 403, 'invalid_invite', 'Invalid invite code')
    const u = { id: randomUUID(), email: body.email.toLowerCase(), password: body.password, metadata: body.data ?? {} }
    users.set(u.email, u)
    return send(res, 200, newSession(u))
  }
  if (req.method === 'POST' && path === '/token') {
    const body = await readJson(req)
    if (url.searchParams.get('grant_type') === 'password') {
      const u = users.get(String(body?.email ?? '').toLowerCase())
      if (!u || u.password !== body.password) return authError(res, 400, 'invalid_credentials', 'Invalid login credentials')
      return send(res, 200, newSession(u))
    }
    if (url.searchParams.get('grant_type') === 'refresh_token') {
      const uid = refreshTokens.get(body?.refresh_token)
      if (!uid) return authError(res, 400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found')
      refreshTokens.delete(body.refresh_token)
      return send(res, 200, newSession(userById(uid)))
    }
    return authError(res, 400, 'unsupported_grant_type', 'unsupported grant type')
  }
  const who = caller(req)
  if (path === '/user' && who.uid) {
    const u = userById(who.uid)
    if (req.method === 'GET') return send(res, 200, userJson(u))
    if (req.method === 'PUT') {
      const body = await readJson(req)
      if (typeof body?.password === 'string') {
        if (body.password.length < 6) return send(res, 422, { code: 'weak_password', message: 'Password should be at least 6 characters.', weak_password: { reasons: ['length'] } }, { 'X-Supabase-Api-Version': '2024-01-01' })
        if (body.password === u.password) return authError(res, 422, 'same_password', 'New password should be different from the old password.')
        u.password = body.password
      }
      return send(res, 200, userJson(u))
    }
  }
  if (req.method === 'POST' && path === '/logout') {
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '')
    sessions.delete(token)
    res.writeHead(204)
    return res.end()
  }
  return authError(res, 404, 'not_found', 'Not found')
}

// ---- /rest/v1 -------------------------------------------------------------------------------

const tables = { user_follow_labels: follows, user_listened_releases: listens, labels_to_add: queue }
const readable = { labels_to_add: ['id', 'label_url', 'is_processed', 'is_valid', 'created_at'] }

function eqFilters(url) {
  const filters = []
  for (const [key, value] of url.searchParams) {
    if (['select', 'limit', 'offset', 'order', 'on_conflict', 'columns'].includes(key)) continue
    if (!value.startsWith('eq.')) throw new Error(`unsupported filter ${key}=${value}`)
    filters.push([key, value.slice(3)])
  }
  return filters
}

const matches = (row, filters) => filters.every(([k, v]) => String(row[k]) === v)

function visible(table, row, who) {
  if (who.role === 'service_role') return true
  if (table === 'labels_to_add') return who.role === 'authenticated'
  return row.user_id === who.uid
}

function project(row, select) {
  if (!select || select === '*') return { ...row }
  return Object.fromEntries(select.split(',').map((c) => [c, row[c]]))
}

const labelOf = (id) => labels.find((l) => l.id === id)
const followedIds = (uid) => new Set(follows.filter((f) => f.user_id === uid).map((f) => f.label_id))
const listenedIds = (uid) => new Set(listens.filter((l) => l.user_id === uid).map((l) => l.release_id))
const byNewest = (a, b) => (b.release_date ?? '').localeCompare(a.release_date ?? '') || b.id - a.id

function withListen(uid, r) {
  const l = labelOf(r.label_id)
  return { ...r, listened: listenedIds(uid).has(r.id), labels: { label_name: l.label_name, label_url: l.label_url } }
}

function labelFilter(args) {
  const search = (args.search_term ?? '').toLowerCase()
  return (l) => (!args.tag_filter || l.tags.includes(args.tag_filter)) && (!search || l.label_name.toLowerCase().includes(search)) && (!args.letter_filter || l.label_name.toUpperCase().startsWith(args.letter_filter))
}

function fullyChecked(uid, labelId) {
  const own = releases.filter((r) => r.label_id === labelId)
  const heard = listenedIds(uid)
  return own.length > 0 && own.every((r) => heard.has(r.id))
}

function collection(uid, filterType, search = '') {
  const followed = followedIds(uid)
  return labels
    .filter((l) => followed.has(l.id))
    .map((l) => ({ ...l, is_fully_checked: fullyChecked(uid, l.id) }))
    .filter((l) => filterType === 'all' || (filterType === 'checked') === l.is_fully_checked)
    .filter((l) => !search || l.label_name.toLowerCase().includes(search.toLowerCase()) || l.label_url.includes(search.toLowerCase()))
}

const page = (list, n, size) => list.slice((n - 1) * size, n * size)

const rpcs = {
  validate_invite_code: (a) => ({ valid: a.code_param === INVITE_CODE }),
  get_followed_labels: (a, uid) => page(labels.filter((l) => followedIds(uid).has(l.id)).filter(labelFilter(a)).sort((x, y) => x.label_name.localeCompare(y.label_name)), a.page_number, a.items_per_page),
  get_unfollowed_labels: (a, uid) => page(labels.filter((l) => !followedIds(uid).has(l.id)).filter(labelFilter(a)).sort((x, y) => x.label_name.localeCompare(y.label_name)), a.page_number, a.items_per_page),
  count_followed_labels: (a, uid) => labels.filter((l) => followedIds(uid).has(l.id)).filter(labelFilter(a)).length,
  count_unfollowed_labels: (a, uid) => labels.filter((l) => !followedIds(uid).has(l.id)).filter(labelFilter(a)).length,
  get_latest_releases: (a, uid) => {
    const ids = a.label_ids ? new Set(a.label_ids) : followedIds(uid)
    return page(releases.filter((r) => ids.has(r.label_id)).sort(byNewest), a.page, a.page_size).map((r) => withListen(uid, r))
  },
  get_random_releases: (a, uid) => {
    const since = new Date(Date.now() - a.time_range_days * DAY).toISOString().slice(0, 10)
    const exclude = new Set(a.exclude_ids ?? [])
    const pool = releases.filter((r) => (r.release_date ?? '') >= since && !exclude.has(r.id) && (!a.label_ids || a.label_ids.includes(r.label_id)) && (!a.genre_filters || r.genres.some((g) => a.genre_filters.includes(g))))
    for (let i = pool.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1))
      ;[pool[i], pool[j]] = [pool[j], pool[i]]
    }
    return pool.slice(0, a.num_releases).map((r) => withListen(uid, r))
  },
  get_latest_releases_per_label: (a) => a.p_label_ids.flatMap((id) => releases.filter((r) => r.label_id === id).sort(byNewest).slice(0, a.p_limit)),
  get_all_filtered_labels_by_listen_status: (a, uid) => collection(uid, a.filter_type),
  count_filtered_labels_by_listen_status: (a, uid) => collection(uid, a.filter_type, a.search_term).length,
  get_filtered_labels_by_listen_status: (a, uid) => page(collection(uid, a.filter_type, a.search_term), a.page_number, a.items_per_page),
}
const userParam = { user_id_param: true, user_id: true }

async function rest(req, res, url) {
  if (req.headers.apikey !== ANON_KEY && req.headers.apikey !== SERVICE_ROLE_KEY) return restError(res, 401, 'PGRST301', 'No API key found in request')
  const who = caller(req)
  const path = url.pathname.slice('/rest/v1/'.length)
  if (path.startsWith('rpc/')) {
    const fn = rpcs[path.slice(4)]
    if (!fn) return restError(res, 404, 'PGRST202', `Could not find the function ${path.slice(4)}`)
    const args = (await readJson(req)) ?? {}
    if (path !== 'rpc/validate_invite_code' && who.role === 'anon') return restError(res, 401, '42501', 'permission denied')
    for (const key of Object.keys(args)) {
      if (userParam[key] && who.role === 'authenticated' && args[key] !== who.uid) return restError(res, 403, '42501', 'user id does not match the caller')
    }
    return send(res, 200, fn(args, who.uid))
  }
  const rows = tables[path]
  if (!rows) return restError(res, 404, '42P01', `relation "public.${path}" does not exist`)
  if (who.role === 'anon') return restError(res, 401, '42501', `permission denied for table ${path}`)
  const filters = eqFilters(url)
  const select = url.searchParams.get('select')
  if (req.method === 'GET' || req.method === 'HEAD') {
    if (select && readable[path] && select.split(',').some((c) => !readable[path].includes(c))) return restError(res, 401, '42501', `permission denied for table ${path}`)
    let out = rows.filter((r) => visible(path, r, who) && matches(r, filters)).map((r) => project(r, select))
    if (url.searchParams.has('limit')) out = out.slice(0, Number(url.searchParams.get('limit')))
    return send(res, 200, out)
  }
  if (req.method === 'POST') {
    const body = await readJson(req)
    const list = Array.isArray(body) ? body : [body]
    const conflict = url.searchParams.get('on_conflict')
    const created = []
    for (const item of list) {
      if (who.role === 'authenticated' && item.user_id !== who.uid) return restError(res, 403, '42501', 'new row violates row-level security policy')
      const key = path === 'user_follow_labels' ? ['user_id', 'label_id'] : path === 'user_listened_releases' ? ['user_id', 'release_id'] : null
      const existing = key && rows.find((r) => key.every((k) => String(r[k]) === String(item[k])))
      if (existing) {
        if (conflict) continue
        return restError(res, 409, '23505', `duplicate key value violates unique constraint "${path}_unique"`)
      }
      const row = { id: serial++, ...item, created_at: new Date().toISOString() }
      rows.push(row)
      created.push(row)
    }
    if ((req.headers.prefer ?? '').includes('return=representation')) return send(res, 201, created.map((r) => project(r, select)))
    res.writeHead(201)
    return res.end()
  }
  if (req.method === 'DELETE') {
    for (let i = rows.length - 1; i >= 0; i--) if (visible(path, rows[i], who) && matches(rows[i], filters)) rows.splice(i, 1)
    res.writeHead(204)
    return res.end()
  }
  return restError(res, 405, 'PGRST105', 'method not allowed')
}

// ---- Static app -----------------------------------------------------------------------------

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon' }

function cover(id) {
  const hue = (id * 47) % 360
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue},70%,55%)"/><stop offset="1" stop-color="hsl(${(hue + 60) % 360},70%,35%)"/></linearGradient></defs><rect width="100" height="100" fill="url(#g)"/><circle cx="50" cy="50" r="${18 + (id % 20)}" fill="none" stroke="#fff" stroke-opacity=".5" stroke-width="3"/></svg>`
}

async function serveStatic(res, url) {
  const cov = /^\/fake-covers\/(\d+)\.svg$/.exec(url.pathname)
  if (cov) {
    res.writeHead(200, { 'Content-Type': 'image/svg+xml' })
    return res.end(cover(Number(cov[1])))
  }
  const rel = normalize(url.pathname).replace(/^(\.\.[/\\])+/, '')
  if (rel !== '/' && rel !== '/index.html') {
    try {
      const body = await readFile(join(DIST, rel))
      res.writeHead(200, { 'Content-Type': types[extname(rel)] ?? 'application/octet-stream' })
      return res.end(body)
    } catch {
      if (rel.startsWith('/assets/')) {
        res.writeHead(404)
        return res.end()
      }
    }
  }
  const index = await readFile(join(DIST, 'index.html'), 'utf8')
  const config = `<script>window.__LABELBASE__=${JSON.stringify({ anonKey: ANON_KEY, analyticsScript: '' })}</script>`
  res.writeHead(200, { 'Content-Type': 'text/html', 'Cache-Control': 'no-store' })
  res.end(index.replace('<!--labelbase:runtime-config-->', config))
}

// Cover URLs in rows are absolute so they look like the real thing.
for (const r of releases) if (r.image_url) r.image_url = `__ORIGIN__${r.image_url}`

export function startFakeGateway(port = 0) {
  const server = createServer(async (req, res) => {
    const origin = `http://${req.headers.host}`
    const url = new URL(req.url, origin)
    try {
      if (url.pathname.startsWith('/auth/v1/')) return await auth(req, res, url)
      if (url.pathname.startsWith('/rest/v1/')) {
        const originalEnd = res.end.bind(res)
        res.end = (chunk) => originalEnd(typeof chunk === 'string' ? chunk.replaceAll('__ORIGIN__', origin) : chunk)
        return await rest(req, res, url)
      }
      return await serveStatic(res, url)
    } catch (error) {
      restError(res, 500, 'XX000', String(error?.message ?? error))
    }
  })
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      const { port: actual } = server.address()
      resolve({ server, url: `http://127.0.0.1:${actual}`, anonKey: ANON_KEY, serviceRoleKey: SERVICE_ROLE_KEY, inviteCode: INVITE_CODE })
    })
  })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--port')
  const gw = await startFakeGateway(i > 0 ? Number(process.argv[i + 1]) : 41234)
  console.log(`LABELBASE_URL=${gw.url}\nLABELBASE_ANON_KEY=${gw.anonKey}\nLABELBASE_SERVICE_ROLE_KEY=${gw.serviceRoleKey}\nLABELBASE_INVITE_CODE=${gw.inviteCode}`)
}
