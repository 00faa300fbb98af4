/**
 * Optimistic boolean toggles for items in a list (listened, followed): the UI flips at once,
 * the item is marked as saving, and the flip is rolled back if saving fails. All toggles in
 * the app share one 300 ms throttle; a toggle on an item that is still saving is ignored.
 */
import { useCallback, useRef, useState } from 'react'
import { useToast } from '@/components/ui/toast'
import { TOAST_ERROR_MS, TOAST_SUCCESS_MS } from '@/config/constants'
import { messages } from '@/config/messages'
import { toggleThrottle, type Throttle } from '@/lib/throttle'

export interface OptimisticToggleOptions {
  persist: (id: number, next: boolean) => Promise<void>
  successMessage: (next: boolean) => string
  errorToast: (error: unknown) => string
  inlineError: string
  onSuccess?: (id: number, next: boolean) => void
  throttle?: Throttle
}

export interface OptimisticToggle {
  /** The value to show: the optimistic one while it differs from the server's `base`. */
  valueOf: (id: number, base: boolean) => boolean
  isSaving: (id: number) => boolean
  errorOf: (id: number) => string | undefined
  toggle: (id: number, current: boolean) => void
}

export function useOptimisticToggle(options: OptimisticToggleOptions): OptimisticToggle {
  const toast = useToast()
  const [overrides, setOverrides] = useState<Record<number, boolean>>({})
  const [saving, setSaving] = useState<Record<number, true>>({})
  const [errors, setErrors] = useState<Record<number, string>>({})
  const savingRef = useRef(new Set<number>())
  const optionsRef = useRef(options)
  optionsRef.current = options

  const toggle = useCallback(
    (id: number, current: boolean) => {
      const opts = optionsRef.current
      if (savingRef.current.has(id)) return
      if (!(opts.throttle ?? toggleThrottle).tryAcquire()) {
        toast.error(messages.toggle.tooFast, TOAST_ERROR_MS)
        return
      }
      const next = !current
      savingRef.current.add(id)
      setSaving((s) => ({ ...s, [id]: true }))
      setOverrides((o) => ({ ...o, [id]: next }))
      setErrors(({ [id]: _removed, ...rest }) => rest)

      opts
        .persist(id, next)
        .then(() => {
          toast.success(opts.successMessage(next), TOAST_SUCCESS_MS)
          opts.onSuccess?.(id, next)
        })
        .catch((error: unknown) => {
          setOverrides((o) => ({ ...o, [id]: current }))
          setErrors((e) => ({ ...e, [id]: opts.inlineError }))
          toast.error(opts.errorToast(error), TOAST_ERROR_MS)
        })
        .finally(() => {
          savingRef.current.delete(id)
          setSaving(({ [id]: _done, ...rest }) => rest)
        })
    },
    [toast],
  )

  return {
    valueOf: (id, base) => (id in overrides ? overrides[id] : base),
    isSaving: (id) => id in saving,
    errorOf: (id) => errors[id],
    toggle,
  }
}
