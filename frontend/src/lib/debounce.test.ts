import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { debounce } from './debounce'

describe('debounce', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('calls once, with the last arguments, after the quiet period', () => {
    const fn = vi.fn()
    const debounced = debounce(fn, 600)
    debounced('a')
    vi.advanceTimersByTime(500)
    debounced('ab')
    vi.advanceTimersByTime(599)
    expect(fn).not.toHaveBeenCalled()
    vi.advanceTimersByTime(1)
    expect(fn).toHaveBeenCalledTimes(1)
    expect(fn).toHaveBeenCalledWith('ab')
  })

  it('cancel drops the pending call', () => {
    const fn = vi.fn()
    const debounced = debounce(fn, 300)
    debounced(1)
    debounced.cancel()
    vi.advanceTimersByTime(1_000)
    expect(fn).not.toHaveBeenCalled()
  })

  it('fires again for calls after a completed period', () => {
    const fn = vi.fn()
    const debounced = debounce(fn, 300)
    debounced(1)
    vi.advanceTimersByTime(300)
    debounced(2)
    vi.advanceTimersByTime(300)
    expect(fn.mock.calls).toEqual([[1], [2]])
  })
})
