import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

// The real subscribeBroadcast (setup-tests mocks it for page tests) over a fake supabase-js
// client that behaves as realtime-js does: channel(topic) hands back a channel it still holds.
const fake = vi.hoisted(() => {
  type Handler = (message: { event: string; payload?: Record<string, unknown> }) => void
  const channels: { topic: string; handler?: Handler; subscribed: number; removed: boolean; config: unknown; api: Record<string, unknown> }[] = []
  const realtime = { setAuth: async () => undefined }
  const client = {
    realtime,
    auth: { onAuthStateChange: () => ({ data: { subscription: { unsubscribe() {} } } }) },
    channel(topic: string, params: { config: unknown }) {
      const existing = channels.find((c) => c.topic === topic && !c.removed)
      if (existing) return existing.api
      const entry = {
        topic,
        subscribed: 0,
        removed: false,
        config: params.config,
        handler: undefined as Handler | undefined,
        api: {} as Record<string, unknown>,
      }
      entry.api = {
        on: (_type: string, _filter: unknown, handler: Handler) => {
          entry.handler = handler
          return entry.api
        },
        subscribe: () => {
          entry.subscribed++
          return entry.api
        },
      }
      channels.push(entry)
      return entry.api
    },
    async removeChannel(api: unknown) {
      const entry = channels.find((c) => c.api === api)
      if (entry) entry.removed = true
      return 'ok'
    },
  }
  const emit = (topic: string, event: string, payload: Record<string, unknown>) => {
    for (const c of channels) if (c.topic === topic && !c.removed) c.handler?.({ event, payload })
  }
  return { channels, client, emit }
})

vi.mock('@supabase/supabase-js', () => ({ createClient: () => fake.client }))
vi.mock('@/config/env', () => ({ getEnv: () => ({ supabaseUrl: 'http://localhost:3000', anonKey: 'test-anon-key' }) }))

const { subscribeBroadcast } = await vi.importActual<typeof import('./supabase')>('./supabase')
const flush = () => vi.advanceTimersByTimeAsync(0)

beforeEach(() => {
  vi.useFakeTimers()
  fake.channels.length = 0
})
afterEach(() => vi.useRealTimers())

describe('subscribeBroadcast', () => {
  it('joins one private channel per topic, shared by its listeners, each getting its own event', async () => {
    const a: unknown[] = []
    const b: unknown[] = []
    const stopA = subscribeBroadcast('t1', 'x', (p) => a.push(p))
    const stopB = subscribeBroadcast('t1', 'y', (p) => b.push(p))
    await flush()
    expect(fake.channels).toHaveLength(1)
    expect(fake.channels[0]).toMatchObject({ subscribed: 1, config: { private: true } })
    fake.emit('t1', 'x', { n: 1 })
    fake.emit('t1', 'y', { n: 2 })
    fake.emit('t1', 'z', { n: 3 })
    expect(a).toEqual([{ n: 1 }])
    expect(b).toEqual([{ n: 2 }])

    stopA()
    await vi.advanceTimersByTimeAsync(5000)
    expect(fake.channels[0].removed).toBe(false)
    stopB()
    await vi.advanceTimersByTimeAsync(5000)
    expect(fake.channels[0].removed).toBe(true)
  })

  it('keeps the channel through a quick remount, and opens a new one after it left', async () => {
    const got: unknown[] = []
    subscribeBroadcast('t2', 'x', () => undefined)()
    const stop = subscribeBroadcast('t2', 'x', (p) => got.push(p))
    await vi.advanceTimersByTimeAsync(5000)
    expect(fake.channels).toHaveLength(1)
    expect(fake.channels[0].removed).toBe(false)
    fake.emit('t2', 'x', { n: 1 })
    expect(got).toEqual([{ n: 1 }])

    stop()
    await vi.advanceTimersByTimeAsync(5000)
    const again: unknown[] = []
    subscribeBroadcast('t2', 'x', (p) => again.push(p))
    await flush()
    expect(fake.channels).toHaveLength(2)
    expect(fake.channels[1]).toMatchObject({ removed: false, subscribed: 1 })
    fake.emit('t2', 'x', { n: 2 })
    expect(again).toEqual([{ n: 2 }])
    expect(got).toEqual([{ n: 1 }])
  })

  it('never joins when the listener left before the channel was opened', async () => {
    subscribeBroadcast('t3', 'x', () => undefined)()
    await vi.advanceTimersByTimeAsync(5000)
    expect(fake.channels.filter((c) => c.topic === 't3' && !c.removed && c.subscribed > 0)).toHaveLength(0)
  })
})
