import { describe, expect, it } from 'vitest'
import { createThrottle } from './throttle'

describe('createThrottle', () => {
  it('refuses a second action within the interval and accepts one after it', () => {
    let now = 1_000
    const throttle = createThrottle(300, () => now)
    expect(throttle.tryAcquire()).toBe(true)
    now += 299
    expect(throttle.tryAcquire()).toBe(false)
    now += 1
    expect(throttle.tryAcquire()).toBe(true)
  })

  it('measures from the last accepted action, so refused clicks do not extend the window', () => {
    let now = 0
    const throttle = createThrottle(300, () => now)
    expect(throttle.tryAcquire()).toBe(true)
    now = 200
    expect(throttle.tryAcquire()).toBe(false)
    now = 300
    expect(throttle.tryAcquire()).toBe(true)
  })

  it('reset allows the next action at once', () => {
    let now = 0
    const throttle = createThrottle(300, () => now)
    throttle.tryAcquire()
    now = 10
    throttle.reset()
    expect(throttle.tryAcquire()).toBe(true)
  })
})
