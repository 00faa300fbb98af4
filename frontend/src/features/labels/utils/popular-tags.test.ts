import { describe, expect, it } from 'vitest'
import { popularTags } from './popular-tags'

describe('popularTags', () => {
  it('orders by frequency, then name, and counts a tag once per label', () => {
    const labels = [{ tags: ['techno', 'ambient', 'techno'] }, { tags: ['ambient', 'dub'] }, { tags: ['ambient', 'techno'] }]
    expect(popularTags(labels, 10)).toEqual(['ambient', 'techno', 'dub'])
    expect(popularTags(labels, 1)).toEqual(['ambient'])
  })
})
