/**
 * A stand-in for lib/supabase.ts's subscribeBroadcast in page tests: the channel is mocked at
 * the module boundary, and a test emits what the database would broadcast.
 *
 *   vi.mock('@/lib/supabase', async (original) => ({
 *     ...(await original<typeof import('@/lib/supabase')>()),
 *     subscribeBroadcast: (await import('@/testing/live')).fakeLive.subscribe,
 *   }))
 */
import { act } from '@testing-library/react'

type Listener = (payload: Record<string, unknown>) => void

const listeners = new Map<string, Set<Listener>>()

export const fakeLive = {
  subscribe(topic: string, event: string, listener: Listener): () => void {
    const key = `${topic} ${event}`
    const set = listeners.get(key) ?? new Set<Listener>()
    set.add(listener)
    listeners.set(key, set)
    return () => set.delete(listener)
  },
  /** How many listeners a topic's event has now (0 once every component unsubscribed). */
  listening(topic: string, event: string): number {
    return listeners.get(`${topic} ${event}`)?.size ?? 0
  },
  /** Delivers a broadcast to the topic's listeners, as the socket would. */
  emit(topic: string, event: string, payload: Record<string, unknown>) {
    act(() => {
      for (const listener of listeners.get(`${topic} ${event}`) ?? []) listener(payload)
    })
  },
  reset() {
    listeners.clear()
  },
}
