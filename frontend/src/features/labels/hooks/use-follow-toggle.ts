import { useQueryClient } from '@tanstack/react-query'
import { useOptimisticToggle, type OptimisticToggle } from '@/hooks/use-optimistic-toggle'
import { messages } from '@/config/messages'
import { useUser } from '@/lib/auth'
import { followDependentRoots, hasRoot, mutationKeys, queryKeys } from '@/lib/query-keys'
import { removeLabelFromTab, type LabelsTab } from '../api/get-labels'
import { setFollow } from '../api/set-follow'

/**
 * Optimistic follow/unfollow from a tab's list. A saved toggle drops the label from the tab
 * (SPEC §4) and marks everything that depends on the follows (the other tab, the feed, the
 * collection) stale, so it reloads when next shown. An unfollow's toast offers Undo.
 */
export function useFollowToggle(tab: LabelsTab): OptimisticToggle {
  const user = useUser()
  const queryClient = useQueryClient()
  return useOptimisticToggle({
    mutationKey: mutationKeys.follow(user.id),
    persist: (labelId, next) => setFollow(user.id, labelId, next),
    successMessage: (next) => (next ? messages.follow.followed : messages.follow.unfollowed),
    errorToast: () => messages.follow.failed,
    inlineError: messages.follow.inlineFailed,
    undoable: (next) => !next,
    onSaved: async (labelId, next) => {
      // Undo of an unfollow in Following brings the label back: that tab reloads now.
      const back = next === (tab === 'following')
      if (!back) removeLabelFromTab(queryClient, user.id, tab, labelId)
      await queryClient.invalidateQueries({ predicate: hasRoot(followDependentRoots), refetchType: 'none' })
      if (back) await queryClient.refetchQueries({ queryKey: queryKeys.labelsTab(user.id, tab), type: 'active' })
    },
  })
}
