import { useCallback, useEffect, useRef, useState } from 'react'
import { useToast } from '@/components/ui/toast'
import { TOAST_ERROR_MS } from '@/config/constants'
import { messages } from '@/config/messages'
import { useUser } from '@/lib/auth'
import { getListenedReleaseIds } from '../api/get-listened-release-ids'

/** The ids of the releases the user has listened to, empty until `reload` fetches them. */
export function useListenedReleaseIds(): { ids: ReadonlySet<number>; reload: () => void } {
  const user = useUser()
  const toast = useToast()
  const [ids, setIds] = useState<ReadonlySet<number>>(new Set())
  const latest = useRef(0)

  const reload = useCallback(() => {
    const call = ++latest.current
    getListenedReleaseIds(user.id)
      .then((set) => call === latest.current && setIds(set))
      .catch(() => call === latest.current && toast.error(messages.load.listenedReleases, TOAST_ERROR_MS))
  }, [user.id, toast])

  // A response arriving after unmount is dropped.
  useEffect(
    () => () => {
      latest.current += 1
    },
    [],
  )

  return { ids, reload }
}
