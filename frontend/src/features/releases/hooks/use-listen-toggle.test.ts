import { describe, expect, it } from 'vitest'
import { RequestError } from '@/lib/errors'
import { listenErrorMessage } from './use-listen-toggle'

describe('listenErrorMessage', () => {
  it('maps failures to the spec texts', () => {
    expect(listenErrorMessage(new RequestError('Too Many Requests', 429))).toBe("You're updating too quickly. Please wait a moment before trying again.")
    expect(listenErrorMessage(new RequestError('TypeError: Failed to fetch', 0))).toBe('Network error. Please check your connection and try again.')
    expect(listenErrorMessage(new RequestError('permission denied', 403))).toBe('Failed to update. Please try again.')
  })
})
