import { useQueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'
import { LIVE_TOPICS } from '@/config/constants'
import { subscribeBroadcast } from '@/lib/supabase'
import { writeListened } from '../api/set-listened'

/**
 * Keeps this tab's listened marks in step with the member's other tabs and devices: the
 * database broadcasts every mark and unmark on the member's private topic `listens:<uid>`, and
 * each one is written into the cached lists as a local toggle would be. The echo of this tab's
 * own toggle is harmless (the cache already holds that value).
 */
export function useLiveListens(userId: string | null) {
  const queryClient = useQueryClient()
  useEffect(() => {
    if (!userId) return
    return subscribeBroadcast(LIVE_TOPICS.listens(userId), 'listen', (payload) => {
      const releaseId = Number(payload.release_id)
      if (!Number.isSafeInteger(releaseId) || typeof payload.listened !== 'boolean') return
      // As a local toggle: the lists and the listened ids change in place; the collection's
      // label lists are only marked stale, so a label does not vanish from under the reader.
      void writeListened(queryClient, userId, releaseId, payload.listened)
    })
  }, [queryClient, userId])
}
