import { describe, expect, it } from 'vitest'
import { messages } from '@/config/messages'
import { appendUnique, clampPage, hasMoreAfterPage, nextPageFor, pageSlice, totalPages } from './pagination'

describe('totalPages', () => {
  it.each([
    [0, 5, 1],
    [1, 5, 1],
    [5, 5, 1],
    [6, 5, 2],
    [23, 5, 5],
    [500, 5, 100],
  ])('%i items at %i per page make %i pages', (count, size, pages) => {
    expect(totalPages(count, size)).toBe(pages)
  })

  it('feeds the "Page X of Y" text', () => {
    expect(messages.collection.page(clampPage(9, totalPages(12, 5)), totalPages(12, 5))).toBe('Page 3 of 3')
  })
})

describe('clampPage', () => {
  it('keeps pages within 1..total', () => {
    expect(clampPage(0, 4)).toBe(1)
    expect(clampPage(5, 4)).toBe(4)
    expect(clampPage(2, 4)).toBe(2)
    expect(clampPage(3, 0)).toBe(1)
  })
})

describe('pageSlice', () => {
  const items = Array.from({ length: 12 }, (_, i) => i + 1)
  it('returns the items of a 1-based page', () => {
    expect(pageSlice(items, 1, 5)).toEqual([1, 2, 3, 4, 5])
    expect(pageSlice(items, 3, 5)).toEqual([11, 12])
    expect(pageSlice(items, 4, 5)).toEqual([])
  })
})

describe('infinite scroll arithmetic', () => {
  it('has more only after a full page', () => {
    expect(hasMoreAfterPage(9, 9)).toBe(true)
    expect(hasMoreAfterPage(8, 9)).toBe(false)
    expect(hasMoreAfterPage(0, 20)).toBe(false)
  })

  it('fetches the page holding the next unseen offset', () => {
    expect(nextPageFor(0, 20)).toBe(1)
    expect(nextPageFor(20, 20)).toBe(2)
    // Two labels were followed away from the first 20: the 19th item now lives on page 1.
    expect(nextPageFor(18, 20)).toBe(1)
    expect(nextPageFor(39, 20)).toBe(2)
  })

  it('appends only unseen ids, keeping order', () => {
    const merged = appendUnique([{ id: 1 }, { id: 2 }], [{ id: 2 }, { id: 3 }, { id: 3 }, { id: 4 }])
    expect(merged.map((item) => item.id)).toEqual([1, 2, 3, 4])
  })
})
