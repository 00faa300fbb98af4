import { useOptimisticToggle, type OptimisticToggle } from '@/hooks/use-optimistic-toggle'
import { messages } from '@/config/messages'
import { useUser } from '@/lib/auth'
import { setFollow } from '../api/set-follow'

/** Optimistic follow/unfollow; `onSuccess` lets the page drop the label from the current tab. */
export function useFollowToggle(onSuccess: (labelId: number, followed: boolean) => void): OptimisticToggle {
  const user = useUser()
  return useOptimisticToggle({
    persist: (labelId, next) => setFollow(user.id, labelId, next),
    successMessage: (next) => (next ? messages.follow.followed : messages.follow.unfollowed),
    errorToast: () => messages.follow.failed,
    inlineError: messages.follow.inlineFailed,
    onSuccess,
  })
}
