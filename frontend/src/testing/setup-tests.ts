import { cleanup } from '@testing-library/react'
import { afterEach } from 'vitest'
import { toggleThrottle } from '@/lib/throttle'

afterEach(() => {
  cleanup()
  // The toggle throttle is app-wide state; one test's toggle must not refuse the next test's.
  toggleThrottle.reset()
})
