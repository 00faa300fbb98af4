import { describe, expect, it } from 'vitest'
import type { CollectionLabel } from '@/types/api'
import { filterLabels } from './filter-labels'

const label = (id: number, label_name: string, label_url: string): CollectionLabel => ({ id, label_name, label_url, tags: [], is_fully_checked: false })
const labels = [label(1, 'Ghostly International', 'https://ghostly.bandcamp.com'), label(2, 'Warp', 'https://warprecords.bandcamp.com')]

describe('filterLabels', () => {
  it('matches the name or the URL, ignoring case', () => {
    expect(filterLabels(labels, 'GHOST').map((l) => l.id)).toEqual([1])
    expect(filterLabels(labels, 'warprecords').map((l) => l.id)).toEqual([2])
    expect(filterLabels(labels, 'bandcamp').map((l) => l.id)).toEqual([1, 2])
    expect(filterLabels(labels, 'nothing')).toEqual([])
  })

  it('keeps every label for a blank query', () => {
    expect(filterLabels(labels, '  ')).toHaveLength(2)
  })
})
