import { useQueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'
import { LIVE_TOPICS } from '@/config/constants'
import { queryKeys } from '@/lib/query-keys'
import { subscribeBroadcast } from '@/lib/supabase'

/** Which console lists a change of each view makes stale. */
const VIEW_KEYS: Record<string, readonly unknown[]> = {
  queue: ['admin', 'submissions'],
  crawls: queryKeys.adminCrawls,
}

/**
 * Reloads the queue and crawl views when the database says they changed: triggers on the
 * submission queue and the crawl runs send `{view}` on the private topic `admin`, which only
 * admins may receive (realtime.messages policy: public.is_admin()). The message carries no
 * rows; the console reads them through its admin procedures as before.
 */
export function useLiveAdmin(enabled: boolean) {
  const queryClient = useQueryClient()
  useEffect(() => {
    if (!enabled) return
    return subscribeBroadcast(LIVE_TOPICS.admin, 'changed', (payload) => {
      const key = typeof payload.view === 'string' ? VIEW_KEYS[payload.view] : undefined
      if (key) void queryClient.invalidateQueries({ queryKey: key })
    })
  }, [enabled, queryClient])
}
