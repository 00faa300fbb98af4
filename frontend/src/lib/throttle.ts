import { TOGGLE_THROTTLE_MS } from '@/config/constants'

export interface Throttle {
  /** True when the action may run now; it then starts a new quiet window. */
  tryAcquire(): boolean
  reset(): void
}

/**
 * Refuses an action started within `intervalMs` of the previous accepted one. Refused
 * attempts do not extend the window, so a user who keeps clicking is not locked out.
 */
export function createThrottle(intervalMs: number, now: () => number = () => Date.now()): Throttle {
  let last = Number.NEGATIVE_INFINITY
  return {
    tryAcquire() {
      const t = now()
      if (t - last < intervalMs) return false
      last = t
      return true
    },
    reset() {
      last = Number.NEGATIVE_INFINITY
    },
  }
}

/** One window shared by every follow and listen toggle in the app (SPEC §5). */
export const toggleThrottle = createThrottle(TOGGLE_THROTTLE_MS)
