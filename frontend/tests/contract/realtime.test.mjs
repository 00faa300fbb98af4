// Contract suite for Realtime: the unmodified supabase-js (its realtime-js)
// against /realtime/v1 under both serializers. Node 20 has no global
// WebSocket, so the clients get the `ws` package as their transport, as
// realtime-js documents for Node.
//
// Private channels use the policies pkg/app's acceptance test creates on
// realtime.messages for this suite (realtime_fixture_test.go): an
// authenticated user may read and send on topics starting with
// "contract-private-"; anon may do neither.
import { test, describe, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import WebSocket from 'ws'

import { env, newClient, plainURL, signUpNewUser } from './support.mjs'

const clients = []

function rtClient(vsn, opts = {}) {
  const c = newClient({ ...opts, realtime: { transport: WebSocket, vsn, ...(opts.realtime ?? {}) } })
  clients.push(c)
  return c
}

after(async () => {
  for (const c of clients) await c.removeAllChannels()
})

// subscribe resolves with the final status of channel.subscribe.
function subscribe(channel) {
  return new Promise((resolve) => {
    channel.subscribe((status, err) => {
      if (status !== 'SUBSCRIBED' && status !== 'CHANNEL_ERROR' && status !== 'TIMED_OUT') return
      resolve({ status, err })
    })
  })
}

// waitFor resolves with the first value pushed to the returned sink for
// which pred holds, or rejects after ms.
function waiter(ms = 5000) {
  const seen = []
  let wake = () => {}
  return {
    push(v) {
      seen.push(v)
      wake()
    },
    async next(pred = () => true, what = 'event') {
      const deadline = Date.now() + ms
      for (;;) {
        const i = seen.findIndex(pred)
        if (i >= 0) return seen.splice(i, 1)[0]
        const left = deadline - Date.now()
        if (left <= 0) throw new Error(`no ${what} within ${ms} ms`)
        await new Promise((r) => {
          wake = r
          setTimeout(r, left)
        })
      }
    },
  }
}

for (const vsn of ['1.0.0', '2.0.0']) {
  describe(`Realtime with vsn ${vsn}`, () => {
    test('broadcast with self and ack reaches the sender and another client', async () => {
      const topic = `contract-${randomUUID()}`
      const a = rtClient(vsn)
      const b = rtClient(vsn)
      const gotA = waiter()
      const gotB = waiter()
      const chA = a.channel(topic, { config: { broadcast: { self: true, ack: true } } }).on('broadcast', { event: 'ping' }, (m) => gotA.push(m))
      const chB = b.channel(topic).on('broadcast', { event: 'ping' }, (m) => gotB.push(m))
      assert.equal((await subscribe(chA)).status, 'SUBSCRIBED')
      assert.equal((await subscribe(chB)).status, 'SUBSCRIBED')
      const res = await chA.send({ type: 'broadcast', event: 'ping', payload: { n: 1 } })
      assert.equal(res, 'ok')
      for (const g of [gotA, gotB]) {
        const m = await g.next(undefined, 'broadcast')
        assert.equal(m.event, 'ping')
        assert.deepEqual(m.payload, { n: 1 })
      }
    })

    test("presence: a tracked client appears in the other client's state and leaves on untrack", async () => {
      const topic = `contract-presence-${randomUUID()}`
      const a = rtClient(vsn)
      const b = rtClient(vsn)
      const chA = a.channel(topic, { config: { presence: { key: 'alice' } } })
      const joins = waiter()
      const leaves = waiter()
      const chB = b
        .channel(topic, { config: { presence: { key: 'bob' } } })
        .on('presence', { event: 'join' }, (p) => joins.push(p))
        .on('presence', { event: 'leave' }, (p) => leaves.push(p))
      chA.on('presence', { event: 'sync' }, () => {})
      assert.equal((await subscribe(chB)).status, 'SUBSCRIBED')
      assert.equal((await subscribe(chA)).status, 'SUBSCRIBED')
      assert.equal(await chA.track({ mood: 'fine' }), 'ok')
      const j = await joins.next((p) => p.key === 'alice', 'presence join')
      assert.equal(j.newPresences[0].mood, 'fine')
      assert.ok(j.newPresences[0].presence_ref)
      assert.deepEqual(Object.keys(chB.presenceState()), ['alice'])
      assert.equal(await chA.untrack(), 'ok')
      await leaves.next((p) => p.key === 'alice', 'presence leave')
    })

    test('two gateways on one database: a broadcast and a presence reach a client on the other gateway', async () => {
      const topic = `contract-gateways-${randomUUID()}`
      const a = rtClient(vsn)
      const b = rtClient(vsn, { url: plainURL() })
      const got = waiter()
      const joins = waiter()
      const chB = b
        .channel(topic)
        .on('broadcast', { event: 'ping' }, (m) => got.push(m))
        .on('presence', { event: 'join' }, (p) => joins.push(p))
      const chA = a.channel(topic, { config: { presence: { key: 'alice' } } })
      assert.equal((await subscribe(chB)).status, 'SUBSCRIBED')
      assert.equal((await subscribe(chA)).status, 'SUBSCRIBED')
      assert.equal(await chA.track({ from: 'gateway A' }), 'ok')
      const j = await joins.next((p) => p.key === 'alice', 'presence join on the other gateway')
      assert.equal(j.newPresences[0].from, 'gateway A')
      assert.equal(await chA.send({ type: 'broadcast', event: 'ping', payload: { n: 7 } }), 'ok')
      const m = await got.next(undefined, 'broadcast on the other gateway')
      assert.deepEqual(m.payload, { n: 7 })
    })

    test('a private channel admits a user the policies allow and refuses anon', async () => {
      const topic = `contract-private-${randomUUID()}`
      const { client: user } = await signUpNewUser({ client: rtClient(vsn) })
      const got = waiter()
      const ch = user
        .channel(topic, { config: { private: true, broadcast: { self: true, ack: true } } })
        .on('broadcast', { event: 'secret' }, (m) => got.push(m))
      assert.equal((await subscribe(ch)).status, 'SUBSCRIBED')
      assert.equal(await ch.send({ type: 'broadcast', event: 'secret', payload: { ok: true } }), 'ok')
      assert.deepEqual((await got.next(undefined, 'private broadcast')).payload, { ok: true })

      const anon = rtClient(vsn)
      const { status, err } = await subscribe(anon.channel(topic, { config: { private: true } }))
      assert.equal(status, 'CHANNEL_ERROR')
      assert.match(String(err?.message), /Unauthorized: You do not have permissions to read from this Channel topic/)
    })

    // The shape of supabase-js's own integration test ("Realtime with
    // vsn"): a signed-up user's private channel with self and no ack, a
    // wildcard listener, a 500 ms heartbeat.
    test("supabase-js's own private broadcast: self without ack, wildcard listener", async () => {
      const c = rtClient(vsn, { realtime: { heartbeatIntervalMs: 500 } })
      await signUpNewUser({ client: c })
      const got = waiter()
      const ch = c
        .channel(`contract-private-channel-${randomUUID()}`, { config: { broadcast: { self: true }, private: true } })
        .on('broadcast', { event: '*' }, (m) => got.push(m))
      assert.equal((await subscribe(ch)).status, 'SUBSCRIBED')
      await ch.send({ type: 'broadcast', event: 'test-event', payload: { message: 'test' } })
      const m = await got.next(undefined, 'own broadcast')
      assert.equal(m.event, 'test-event')
      assert.deepEqual(m.payload, { message: 'test' })
      assert.equal(c.realtime.getChannels().length, 1)
    })

    test('httpSend delivers to a public and a private channel', async () => {
      const topic = `contract-private-${randomUUID()}`
      const { client: user } = await signUpNewUser({ client: rtClient(vsn) })
      const pubGot = waiter()
      const privGot = waiter()
      const pub = user.channel(`contract-${randomUUID()}`).on('broadcast', { event: 'http' }, (m) => pubGot.push(m))
      const priv = user.channel(topic, { config: { private: true } }).on('broadcast', { event: 'http' }, (m) => privGot.push(m))
      assert.equal((await subscribe(pub)).status, 'SUBSCRIBED')
      assert.equal((await subscribe(priv)).status, 'SUBSCRIBED')
      assert.deepEqual(await pub.httpSend('http', { via: 'public' }), { success: true })
      assert.deepEqual(await priv.httpSend('http', { via: 'private' }), { success: true })
      assert.deepEqual((await pubGot.next(undefined, 'public httpSend')).payload, { via: 'public' })
      assert.deepEqual((await privGot.next(undefined, 'private httpSend')).payload, { via: 'private' })
      if (vsn === '2.0.0') {
        // Bytes travel as bytes: realtime-js hands an ArrayBuffer to the
        // callback of a binary broadcast.
        assert.deepEqual(await pub.httpSend('http', new Uint8Array([1, 2, 3]).buffer), { success: true })
        const m = await pubGot.next(undefined, 'binary httpSend')
        assert.deepEqual([...new Uint8Array(m.payload)], [1, 2, 3])
      }
      // anon may not send to the private topic.
      const anonPriv = rtClient(vsn).channel(topic, { config: { private: true } })
      await assert.rejects(anonPriv.httpSend('http', {}), /permissions to write/)
    })

    test('the socket stays up across channels and closes after removeAllChannels', async () => {
      const c = rtClient(vsn)
      const one = c.channel(`contract-${randomUUID()}`)
      assert.equal((await subscribe(one)).status, 'SUBSCRIBED')
      await c.removeChannel(one)
      const two = c.channel(`contract-${randomUUID()}`)
      assert.equal((await subscribe(two)).status, 'SUBSCRIBED')
      assert.equal(c.realtime.isConnected(), true)
      await c.removeAllChannels()
      const deadline = Date.now() + 5000
      while (c.realtime.isConnected() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      assert.equal(c.realtime.isConnected(), false)
    })
  })
}

test('a publishable key opens the socket too', async () => {
  const key = process.env.LABELBASE_PUBLISHABLE_KEY
  assert.ok(key, 'LABELBASE_PUBLISHABLE_KEY is set by the acceptance test')
  const c = rtClient('2.0.0', { key })
  const ch = c.channel(`contract-${randomUUID()}`)
  assert.equal((await subscribe(ch)).status, 'SUBSCRIBED')
})

test('a wrong apikey cannot open the socket', async () => {
  const res = await fetch(`${env().url}/realtime/v1/api/broadcast`, {
    method: 'POST',
    headers: { apikey: 'wrong', 'Content-Type': 'application/json' },
    body: JSON.stringify({ messages: [{ topic: 't', event: 'e', payload: {} }] }),
  })
  assert.equal(res.status, 401)
})

// postgres_changes: the acceptance fixture's contract_notes is in the
// supabase_realtime publication, and its RLS lets each member read only
// their own notes.
for (const vsn of ['1.0.0', '2.0.0']) {
  describe(`postgres_changes with vsn ${vsn}`, () => {
    async function member() {
      const { client, user } = await signUpNewUser({ client: rtClient(vsn) })
      // realtime-js takes the session's token for the socket.
      const { data } = await client.auth.getSession()
      client.realtime.setAuth(data.session.access_token)
      return { client, user }
    }

    test('an insert reaches its owner, never another member, and filters apply', async () => {
      const a = await member()
      const b = await member()
      const gotA = waiter()
      const gotAFiltered = waiter()
      const gotB = waiter()
      const chA = a.client
        .channel(`notes-a-${randomUUID()}`)
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'contract_notes' }, (p) => gotA.push(p))
        .on('postgres_changes', { event: '*', schema: 'public', table: 'contract_notes', filter: 'score=gte.5' }, (p) => gotAFiltered.push(p))
      const chB = b.client
        .channel(`notes-b-${randomUUID()}`)
        .on('postgres_changes', { event: '*', schema: 'public', table: 'contract_notes' }, (p) => gotB.push(p))
      assert.equal((await subscribe(chA)).status, 'SUBSCRIBED')
      assert.equal((await subscribe(chB)).status, 'SUBSCRIBED')

      const low = await a.client.from('contract_notes').insert({ body: 'low', score: 1 }).select().single()
      assert.equal(low.error, null)
      const high = await a.client.from('contract_notes').insert({ body: 'high', score: 9 }).select().single()
      assert.equal(high.error, null)

      const first = await gotA.next((p) => p.new?.body === 'low', 'own insert')
      assert.equal(first.eventType, 'INSERT')
      assert.equal(first.schema, 'public')
      assert.equal(first.table, 'contract_notes')
      assert.equal(first.new.owner, a.user.id)
      await gotA.next((p) => p.new?.body === 'high', 'second own insert')
      const filtered = await gotAFiltered.next(undefined, 'filtered change')
      assert.equal(filtered.new.body, 'high', 'score=gte.5 lets only the high note through')

      // B's own insert arrives to B: by then A's two (earlier, in commit
      // order) would have, had RLS let them through.
      assert.equal((await b.client.from('contract_notes').insert({ body: 'mine' })).error, null)
      const own = await gotB.next((p) => p.new?.body === 'mine', "B's own insert")
      assert.equal(own.new.owner, b.user.id)
      await assert.rejects(
        gotB.next((p) => p.new?.owner === a.user.id, "A's row at B"),
        /no A's row at B/,
      )
    })

    test('an update carries the new and (REPLICA IDENTITY FULL) the old row; a subscription that can never deliver says so', async () => {
      const a = await member()
      const got = waiter()
      const ch = a.client
        .channel(`notes-u-${randomUUID()}`)
        .on('postgres_changes', { event: 'UPDATE', schema: 'public', table: 'contract_notes' }, (p) => got.push(p))
      assert.equal((await subscribe(ch)).status, 'SUBSCRIBED')
      const ins = await a.client.from('contract_notes').insert({ body: 'draft' }).select().single()
      assert.equal(ins.error, null)
      assert.equal((await a.client.from('contract_notes').update({ body: 'final' }).eq('id', ins.data.id)).error, null)
      const u = await got.next(undefined, 'update')
      assert.equal(u.eventType, 'UPDATE')
      assert.equal(u.new.body, 'final')
      assert.equal(u.old.id, ins.data.id, 'the old row')
      assert.equal(u.old.body, 'draft', 'the old values, under REPLICA IDENTITY FULL')

      const system = waiter()
      const bad = a.client
        .channel(`notes-bad-${randomUUID()}`)
        .on('system', {}, (m) => system.push(m))
        .on('postgres_changes', { event: '*', schema: 'public', table: 'contract_unpublished' }, () => {})
      await subscribe(bad)
      const m = await system.next((x) => x.status === 'error', 'system error')
      assert.equal(m.extension, 'postgres_changes')
      assert.match(String(m.message), /contract_unpublished|publication/)
    })
  })
}
