import { useQueryClient } from '@tanstack/react-query'
import { useOptimisticToggle, type OptimisticToggle } from '@/hooks/use-optimistic-toggle'
import { messages } from '@/config/messages'
import { useUser } from '@/lib/auth'
import { classifyError } from '@/lib/errors'
import { mutationKeys } from '@/lib/query-keys'
import { setListened, writeListened } from '../api/set-listened'

/** The error toast for a failed listen toggle (SPEC §8). */
export function listenErrorMessage(error: unknown): string {
  switch (classifyError(error)) {
    case 'rate-limit':
      return messages.listen.rateLimited
    case 'network':
      return messages.listen.network
    default:
      return messages.listen.failed
  }
}

/** Optimistic listened/unlistened toggles for the signed-in user; a saved toggle updates every cached list. */
export function useListenToggle(): OptimisticToggle {
  const user = useUser()
  const queryClient = useQueryClient()
  return useOptimisticToggle({
    mutationKey: mutationKeys.listen(user.id),
    persist: (releaseId, next) => setListened(user.id, releaseId, next),
    successMessage: (next) => (next ? messages.listen.marked : messages.listen.unmarked),
    errorToast: listenErrorMessage,
    inlineError: messages.listen.inlineFailed,
    undoable: (next) => !next,
    onSaved: (releaseId, next) => writeListened(queryClient, user.id, releaseId, next),
  })
}
