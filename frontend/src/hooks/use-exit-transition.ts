import { useEffect, useRef, useState } from 'react'

/** How long a card that left a list stays on screen while it fades out. */
export const EXIT_TRANSITION_MS = 220

/**
 * The items of a list plus, for a moment, the ones that just left it (flagged `leaving`, at
 * their old place), so a card that leaves (a label followed in Discover) can fade out instead
 * of vanishing and making the grid jump at once.
 */
export function useExitTransition<T extends { id: number }>(items: readonly T[]): Array<T & { leaving?: boolean }> {
  const previous = useRef<readonly T[]>(items)
  const [leaving, setLeaving] = useState<Array<{ item: T; index: number }>>([])
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>())

  useEffect(() => {
    const pending = timers.current
    return () => pending.forEach(clearTimeout)
  }, [])

  useEffect(() => {
    const ids = new Set(items.map((item) => item.id))
    const gone = previous.current.flatMap((item, index) => (ids.has(item.id) ? [] : [{ item, index }]))
    previous.current = items
    // Only a few at a time: a whole list replaced (a new filter) is not a leave.
    if (gone.length === 0 || gone.length > 3) return
    setLeaving((list) => [...list, ...gone])
    const timer = setTimeout(() => {
      timers.current.delete(timer)
      setLeaving((list) => list.filter((entry) => !gone.includes(entry)))
    }, EXIT_TRANSITION_MS)
    timers.current.add(timer)
  }, [items])

  if (leaving.length === 0) return [...items]
  const result: Array<T & { leaving?: boolean }> = [...items]
  for (const { item, index } of [...leaving].sort((a, b) => a.index - b.index)) {
    if (!result.some((r) => r.id === item.id)) result.splice(Math.min(index, result.length), 0, { ...item, leaving: true })
  }
  return result
}
