import { describe, expect, it } from 'vitest'
import { mulberry32, seededShuffle, sessionSeed } from './seeded-shuffle'

const items = Array.from({ length: 40 }, (_, i) => i)

describe('seededShuffle', () => {
  it('gives the same order for the same seed', () => {
    expect(seededShuffle(items, 12345)).toEqual(seededShuffle(items, 12345))
  })

  it('gives a different order for a different seed', () => {
    expect(seededShuffle(items, 12345)).not.toEqual(seededShuffle(items, 54321))
  })

  it('is a permutation and leaves the input untouched', () => {
    const input = [...items]
    const shuffled = seededShuffle(input, 7)
    expect(input).toEqual(items)
    expect([...shuffled].sort((a, b) => a - b)).toEqual(items)
    expect(shuffled).not.toEqual(items)
  })

  it('handles empty and single-item lists', () => {
    expect(seededShuffle([], 1)).toEqual([])
    expect(seededShuffle(['a'], 1)).toEqual(['a'])
  })

  it('draws numbers in [0, 1)', () => {
    const random = mulberry32(99)
    for (let i = 0; i < 1000; i++) {
      const x = random()
      expect(x).toBeGreaterThanOrEqual(0)
      expect(x).toBeLessThan(1)
    }
  })
})

describe('sessionSeed', () => {
  function memoryStorage(initial: Record<string, string> = {}) {
    const data = new Map(Object.entries(initial))
    return { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v), data }
  }

  it('creates a seed once and returns it on later calls', () => {
    const storage = memoryStorage()
    const first = sessionSeed(storage, 'seed')
    expect(storage.data.get('seed')).toBe(String(first))
    expect(sessionSeed(storage, 'seed')).toBe(first)
  })

  it('reuses a stored seed', () => {
    expect(sessionSeed(memoryStorage({ seed: '42' }), 'seed')).toBe(42)
  })

  it('replaces a corrupt value', () => {
    const storage = memoryStorage({ seed: 'nope' })
    const seed = sessionSeed(storage, 'seed')
    expect(Number.isInteger(seed)).toBe(true)
    expect(storage.data.get('seed')).toBe(String(seed))
  })
})
