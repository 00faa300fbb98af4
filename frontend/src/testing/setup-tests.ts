import { cleanup, configure } from '@testing-library/react'
import { afterEach, vi } from 'vitest'
import { toggleThrottle } from '@/lib/throttle'
import { fakeLive } from './live'

// Realtime is mocked at the lib/supabase.ts boundary for every page test: no test opens a
// socket, and a test delivers what the database would broadcast with fakeLive.emit.
vi.mock('@/lib/supabase', async (original) => ({
  ...(await original<typeof import('@/lib/supabase')>()),
  subscribeBroadcast: (await import('./live')).fakeLive.subscribe,
}))

// findBy*/waitFor give up after 1 s by default. A flow of several mocked round trips through
// supabase-js (password, then the MFA challenge and verify, then the session change) took about
// that long when the two cores were busy, and failed on a slow run without being wrong. Waits
// still end as soon as the screen is there; only a real failure takes the whole 5 s.
configure({ asyncUtilTimeout: 5000 })

afterEach(() => {
  cleanup()
  // The toggle throttle is app-wide state; one test's toggle must not refuse the next test's.
  toggleThrottle.reset()
  fakeLive.reset()
})
