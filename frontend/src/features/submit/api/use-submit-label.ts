/**
 * The submit dialog's two mutations. They sit beside the calls (submit-label.ts) rather than in
 * the same file so that the dialog's tests can replace the calls and keep the hooks.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { MutationConfig } from '@/lib/query-client'
import { followDependentRoots, hasRoot } from '@/lib/query-keys'
import { followListedLabel, submitLabel, type SubmitOutcome } from './submit-label'

export interface SubmitInput {
  userId: string
  labelUrl: string
}

export function useSubmitLabel(config: MutationConfig<SubmitInput, SubmitOutcome> = {}) {
  return useMutation({ ...config, mutationFn: ({ userId, labelUrl }: SubmitInput) => submitLabel(userId, labelUrl) })
}

export interface FollowInput {
  userId: string
  labelId: number
}

/** Follows the label the dialog found; every list that depends on the follows reloads. */
export function useFollowListedLabel(config: MutationConfig<FollowInput> = {}) {
  const queryClient = useQueryClient()
  return useMutation({
    ...config,
    mutationFn: ({ userId, labelId }: FollowInput) => followListedLabel(userId, labelId),
    onSuccess: async (...args) => {
      void queryClient.invalidateQueries({ predicate: hasRoot(followDependentRoots) })
      await config.onSuccess?.(...args)
    },
  })
}
