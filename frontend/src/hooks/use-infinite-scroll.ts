import { useEffect, useEffectEvent, useRef } from 'react'

/**
 * Calls `onLoadMore` when the returned sentinel element comes near the viewport. The
 * observer is rebuilt whenever `version` changes (e.g. the item count), so a sentinel that
 * is still visible after a short page triggers the next load too.
 */
export function useInfiniteScroll(onLoadMore: () => void, enabled: boolean, version: unknown) {
  const sentinelRef = useRef<HTMLDivElement>(null)
  // The latest onLoadMore, without rebuilding the observer when it changes.
  const loadMore = useEffectEvent(onLoadMore)

  useEffect(() => {
    const node = sentinelRef.current
    if (!enabled || !node || typeof IntersectionObserver === 'undefined') return
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) loadMore()
      },
      { rootMargin: '400px 0px' },
    )
    observer.observe(node)
    return () => observer.disconnect()
  }, [enabled, version])

  return sentinelRef
}
