import { describe, expect, it, vi } from 'vitest'
import { classifyError, listOrEmpty, messageFor, orFallback, RequestError, UserError } from './errors'

describe('classifyError', () => {
  it('recognises rate limiting by status or message', () => {
    expect(classifyError(new RequestError('x', 429))).toBe('rate-limit')
    expect(classifyError(new RequestError('Rate limit exceeded', 400))).toBe('rate-limit')
  })

  it('recognises requests that never reached the server', () => {
    expect(classifyError(new RequestError('TypeError: Failed to fetch', 0))).toBe('network')
    expect(classifyError(new TypeError('Failed to fetch'))).toBe('network')
  })

  it('treats anything else as a plain failure', () => {
    expect(classifyError(new RequestError('permission denied', 403))).toBe('other')
    expect(classifyError(new Error('boom'))).toBe('other')
  })
})

describe('messageFor', () => {
  it("shows a UserError's words and the fallback for anything else", () => {
    expect(messageFor(new UserError('Passwords do not match'), 'Failed')).toBe('Passwords do not match')
    expect(messageFor(new RequestError('relation "x" does not exist', 400), 'Failed')).toBe('Failed')
    expect(messageFor(new Error('boom'), 'Failed')).toBe('Failed')
    expect(messageFor(new UserError(''), 'Failed')).toBe('Failed')
  })
})

describe('list loads', () => {
  it('turn procedure failures into empty results', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(await listOrEmpty(Promise.reject(new RequestError('function failed', 400)), 'rpc')).toEqual([])
    expect(await orFallback(Promise.reject(new RequestError('bad argument', 400)), 0, 'count')).toBe(0)
  })

  it('raise network failures, server failures and anything unexpected so the page can report them', async () => {
    await expect(listOrEmpty(Promise.reject(new RequestError('TypeError: Failed to fetch', 0)), 'rpc')).rejects.toThrow(RequestError)
    // A server failure says nothing about the list: it is an error, not "no rows".
    await expect(listOrEmpty(Promise.reject(new RequestError('boom', 500)), 'rpc')).rejects.toThrow(RequestError)
    await expect(orFallback(Promise.reject(new RequestError('unavailable', 503)), 0, 'count')).rejects.toThrow(RequestError)
    await expect(orFallback(Promise.reject(new TypeError('x is undefined')), 0, 'count')).rejects.toThrow(TypeError)
  })

  it('pass rows through and map null to empty', async () => {
    expect(await listOrEmpty(Promise.resolve([1, 2]), 'rpc')).toEqual([1, 2])
    expect(await listOrEmpty(Promise.resolve(null), 'rpc')).toEqual([])
  })
})
