/** mulberry32: a small, fast 32-bit PRNG; the same seed always yields the same sequence. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A Fisher-Yates shuffle driven by `seed`; returns a new array. */
export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  const random = mulberry32(seed)
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}

/** The seed stored in `storage` under `key`, created on first use so it lasts the session. */
export function sessionSeed(storage: Pick<Storage, 'getItem' | 'setItem'>, key: string): number {
  const stored = Number.parseInt(storage.getItem(key) ?? '', 10)
  if (Number.isInteger(stored) && stored >= 0) return stored
  const seed = Math.floor(Math.random() * 2 ** 32)
  try {
    storage.setItem(key, String(seed))
  } catch {
    // Storage can be full or disabled; the order then only lasts this page view.
  }
  return seed
}
