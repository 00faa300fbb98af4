/**
 * Optimistic boolean toggles for items in a list (listened, followed), on TanStack Query
 * mutations. While an item's save is pending the UI shows the new value and the item counts
 * as saving; a failed save simply stops being pending, so the server value (the rollback)
 * shows again. A successful save first writes the new value into the server state (`onSaved`,
 * e.g. patching or invalidating the query cache) and only then stops being pending, so the
 * optimistic value gives way to fresh server state without a flash of the old one, and never
 * outlives it. All toggles share one 300 ms throttle; a toggle on an item still saving is
 * ignored (SPEC §5).
 */
import { useMutation, useMutationState, useQueryClient, type Mutation } from '@tanstack/react-query'
import { useState } from 'react'
import { useToast } from '@/components/ui/toast'
import { TOAST_ERROR_MS, TOAST_SUCCESS_MS } from '@/config/constants'
import { messages } from '@/config/messages'
import { toggleThrottle, type Throttle } from '@/lib/throttle'

export interface OptimisticToggleOptions {
  /** Names this kind of toggle in the mutation cache; its pending mutations are the items being saved. */
  mutationKey: readonly unknown[]
  persist: (id: number, next: boolean) => Promise<void>
  /** Brings the server state up to date after a save; the optimistic value shows until it settles. */
  onSaved?: (id: number, next: boolean) => unknown
  successMessage: (next: boolean) => string
  errorToast: (error: unknown) => string
  inlineError: string
  /** True when the success toast of a save to `next` offers Undo (unfollow, unmark). */
  undoable?: (next: boolean) => boolean
  throttle?: Throttle
}

export interface OptimisticToggle {
  /** The value to show: the one being saved while a save is pending, else the server's `base`. */
  valueOf: (id: number, base: boolean) => boolean
  isSaving: (id: number) => boolean
  errorOf: (id: number) => string | undefined
  toggle: (id: number, current: boolean) => void
}

interface ToggleVariables {
  id: number
  next: boolean
}

const variablesOf = (mutation: Mutation<unknown, Error, unknown>) => mutation.state.variables as ToggleVariables

export function useOptimisticToggle(options: OptimisticToggleOptions): OptimisticToggle {
  const { mutationKey } = options
  const toast = useToast()
  const queryClient = useQueryClient()
  const [errors, setErrors] = useState<Record<number, string>>({})
  const pending = useMutationState({ filters: { mutationKey, status: 'pending' }, select: variablesOf })

  const { mutate } = useMutation({
    mutationKey,
    mutationFn: ({ id, next }: ToggleVariables) => options.persist(id, next),
    onSuccess: async (_data, { id, next }) => {
      const undo = options.undoable?.(next) ? { label: 'Undo', onClick: () => toggle(id, next) } : undefined
      toast.success(options.successMessage(next), TOAST_SUCCESS_MS, undo)
      try {
        await options.onSaved?.(id, next)
      } catch (error) {
        // The save itself succeeded; a failed cache update must not report it as failed.
        console.warn('updating the cache after a toggle failed:', error)
      }
    },
    onError: (error, { id }) => {
      setErrors((e) => ({ ...e, [id]: options.inlineError }))
      toast.error(options.errorToast(error), TOAST_ERROR_MS)
    },
  })

  const toggle = (id: number, current: boolean) => {
    const saving = queryClient.isMutating({ mutationKey, predicate: (mutation) => variablesOf(mutation)?.id === id })
    if (saving > 0) return
    if (!(options.throttle ?? toggleThrottle).tryAcquire()) {
      toast.error(messages.toggle.tooFast, TOAST_ERROR_MS)
      return
    }
    setErrors(({ [id]: _cleared, ...rest }) => rest)
    mutate({ id, next: !current })
  }

  const pendingValue = (id: number) => pending.find((variables) => variables?.id === id)?.next
  return {
    valueOf: (id, base) => pendingValue(id) ?? base,
    isSaving: (id) => pendingValue(id) !== undefined,
    errorOf: (id) => errors[id],
    toggle,
  }
}
