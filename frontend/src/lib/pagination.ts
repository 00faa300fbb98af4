/** Number of pages for `count` items, never less than 1 so the pager reads "Page 1 of 1". */
export function totalPages(count: number, pageSize: number): number {
  return Math.max(1, Math.ceil(Math.max(0, count) / pageSize))
}

/** Keeps a 1-based page inside [1, total]. */
export function clampPage(page: number, total: number): number {
  return Math.min(Math.max(1, Math.floor(page)), Math.max(1, total))
}

/** The items of a 1-based page. */
export function pageSlice<T>(items: readonly T[], page: number, pageSize: number): T[] {
  const start = (page - 1) * pageSize
  return items.slice(start, start + pageSize)
}

/** Infinite scroll without a total: a full page means there may be more. */
export function hasMoreAfterPage(receivedCount: number, pageSize: number): boolean {
  return receivedCount >= pageSize
}

/**
 * The next 1-based page to fetch when `loaded` items are shown. Items removed from the list
 * (unfollowed in Following, followed in Discover) also left the server's list, so the next
 * item sits at offset `loaded`; fetching the page that contains it and dropping the ids
 * already shown leaves no gap.
 */
export function nextPageFor(loaded: number, pageSize: number): number {
  return Math.floor(loaded / pageSize) + 1
}

/** Appends the items whose ids are not already in the list. */
export function appendUnique<T extends { id: number }>(current: readonly T[], incoming: readonly T[]): T[] {
  const seen = new Set(current.map((item) => item.id))
  const merged = [...current]
  for (const item of incoming) {
    if (!seen.has(item.id)) {
      seen.add(item.id)
      merged.push(item)
    }
  }
  return merged
}
