import { useEffect, useState } from 'react'
import { useToast } from '@/components/ui/toast'
import { TOAST_ERROR_MS } from '@/config/constants'
import { messages } from '@/config/messages'
import { useUser } from '@/lib/auth'
import { getListenedReleaseIds } from '../api/get-listened-release-ids'

/** The ids of the releases the user has listened to, loaded once per page visit. */
export function useListenedReleaseIds(): ReadonlySet<number> {
  const user = useUser()
  const toast = useToast()
  const [ids, setIds] = useState<ReadonlySet<number>>(new Set())
  useEffect(() => {
    let active = true
    getListenedReleaseIds(user.id)
      .then((set) => active && setIds(set))
      .catch(() => active && toast.error(messages.load.listenedReleases, TOAST_ERROR_MS))
    return () => {
      active = false
    }
  }, [user.id, toast])
  return ids
}
