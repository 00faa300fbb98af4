import { describe, expect, it, vi } from 'vitest'
import { classifyError, listOrEmpty, orFallback, RequestError } from './errors'

describe('classifyError', () => {
  it('recognises rate limiting by status or message', () => {
    expect(classifyError(new RequestError({ message: 'x', status: 429 }))).toBe('rate-limit')
    expect(classifyError(new RequestError({ message: 'Rate limit exceeded', status: 400 }))).toBe('rate-limit')
  })

  it('recognises requests that never reached the server', () => {
    expect(classifyError(new RequestError({ message: 'TypeError: Failed to fetch', status: 0 }))).toBe('network')
    expect(classifyError(new TypeError('Failed to fetch'))).toBe('network')
  })

  it('treats anything else as a plain failure', () => {
    expect(classifyError(new RequestError({ message: 'permission denied', status: 403 }))).toBe('other')
    expect(classifyError(new Error('boom'))).toBe('other')
  })
})

describe('list loads', () => {
  it('turn procedure failures into empty results', () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(listOrEmpty({ data: null, error: { message: 'function failed', status: 400 } }, 'rpc')).toEqual([])
    expect(orFallback({ data: null, error: { message: 'bad argument', status: 400 } }, 0, 'count')).toBe(0)
  })

  it('raise network failures so the page can report them', () => {
    expect(() => listOrEmpty({ data: null, error: { message: 'TypeError: Failed to fetch', status: 0 } }, 'rpc')).toThrow(RequestError)
    // A server failure says nothing about the list: it is an error, not "no rows".
    expect(() => listOrEmpty({ data: null, error: { message: 'boom', status: 500 } }, 'rpc')).toThrow(RequestError)
    expect(() => orFallback({ data: null, error: { message: 'unavailable', status: 503 } }, 0, 'count')).toThrow(RequestError)
  })

  it('pass rows through and map null to empty', () => {
    expect(listOrEmpty({ data: [1, 2], error: null }, 'rpc')).toEqual([1, 2])
    expect(listOrEmpty({ data: null, error: null }, 'rpc')).toEqual([])
  })
})
