/** Rows as the API returns them, numbered so each test can make as many as it needs. */

export function releaseRow(id: number, overrides: Record<string, unknown> = {}) {
  return {
    id,
    label_id: 100 + (id % 3),
    title: `Release ${id}`,
    artist: `Artist ${id}`,
    release_url: `https://label.bandcamp.com/album/release-${id}`,
    release_date: '2025-03-01',
    image_url: null,
    genres: ['ambient'],
    rich: false,
    listened: false,
    labels: { label_name: `Label ${100 + (id % 3)}`, label_url: `https://label${100 + (id % 3)}.bandcamp.com` },
    ...overrides,
  }
}

export function labelRow(id: number, overrides: Record<string, unknown> = {}) {
  return { id, label_name: `Label ${id}`, label_url: `https://label${id}.bandcamp.com`, tags: ['techno'], ...overrides }
}

export const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i)
