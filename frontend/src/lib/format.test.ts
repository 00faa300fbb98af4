import { describe, expect, it } from 'vitest'
import { formatReleaseDate } from './format'

describe('formatReleaseDate', () => {
  it('formats ISO dates without a time-zone shift', () => {
    expect(formatReleaseDate('2025-03-05')).toBe('Mar 5, 2025')
    expect(formatReleaseDate('2024-12-31')).toBe('Dec 31, 2024')
  })

  it('passes other values through and blanks missing ones', () => {
    expect(formatReleaseDate('sometime')).toBe('sometime')
    expect(formatReleaseDate(null)).toBe('')
  })
})
