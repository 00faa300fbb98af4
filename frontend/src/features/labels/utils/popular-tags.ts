/** The most frequent tags among `labels`, most frequent first, ties alphabetical. */
export function popularTags(labels: ReadonlyArray<{ tags: readonly string[] }>, limit: number): string[] {
  const counts = new Map<string, number>()
  for (const label of labels) {
    for (const tag of new Set(label.tags)) counts.set(tag, (counts.get(tag) ?? 0) + 1)
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, limit)
    .map(([tag]) => tag)
}
