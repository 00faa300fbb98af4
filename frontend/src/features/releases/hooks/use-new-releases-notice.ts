import { useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useState } from 'react'
import { LIVE_TOPICS } from '@/config/constants'
import { queryKeys } from '@/lib/query-keys'
import { subscribeBroadcast } from '@/lib/supabase'

/**
 * Counts the releases the crawler adds to followed labels while the feed is open. The database
 * sends one message per inserting statement on the private topic `releases`, as
 * `{labels: {"<label id>": <count>}}`; only followed labels count. `show` reloads the feed from
 * its first page and clears the count: the feed itself never moves under the reader.
 */
export function useNewReleasesNotice(userId: string) {
  const queryClient = useQueryClient()
  const [count, setCount] = useState(0)

  useEffect(
    () =>
      subscribeBroadcast(LIVE_TOPICS.releases, 'added', (payload) => {
        const labels = payload.labels
        if (!labels || typeof labels !== 'object') return
        // The follows as the feed last read them (the feed loads them); none known, none counted.
        const followed = new Set(queryClient.getQueryData<number[]>(queryKeys.followedLabelIds(userId)) ?? [])
        let added = 0
        for (const [labelId, n] of Object.entries(labels as Record<string, unknown>)) {
          if (followed.has(Number(labelId)) && typeof n === 'number' && Number.isSafeInteger(n) && n > 0) added += n
        }
        if (added > 0) setCount((c) => c + added)
      }),
    [queryClient, userId],
  )

  const show = useCallback(() => {
    setCount(0)
    void queryClient.resetQueries({ queryKey: queryKeys.feed(userId) })
    window.scrollTo?.({ top: 0, behavior: 'smooth' })
  }, [queryClient, userId])

  return { count, show }
}
