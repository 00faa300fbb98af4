import { cleanup, configure } from '@testing-library/react'
import { afterEach } from 'vitest'
import { toggleThrottle } from '@/lib/throttle'

// findBy*/waitFor give up after 1 s by default. A flow of several mocked round trips through
// supabase-js (password, then the MFA challenge and verify, then the session change) took about
// that long when the two cores were busy, and failed on a slow run without being wrong. Waits
// still end as soon as the screen is there; only a real failure takes the whole 5 s.
configure({ asyncUtilTimeout: 5000 })

afterEach(() => {
  cleanup()
  // The toggle throttle is app-wide state; one test's toggle must not refuse the next test's.
  toggleThrottle.reset()
})
