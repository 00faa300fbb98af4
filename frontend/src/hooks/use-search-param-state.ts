import { useCallback } from 'react'
import { useSearchParams } from 'react-router'

/** New values for query-string parameters: null or '' (or []) removes one, a list repeats it. */
export type SearchParamChanges = Record<string, string | readonly string[] | null>

/**
 * The page's filters, tabs and page numbers live in the query string, so a reload, Back and
 * Forward keep them and a link shares them. `update` pushes a history entry; pass
 * `{ replace: true }` for changes that should not each get one (typing in a search box).
 */
export function useSearchParamState() {
  const [params, setParams] = useSearchParams()
  const update = useCallback(
    (changes: SearchParamChanges, options: { replace?: boolean } = {}) => {
      setParams(
        (current) => {
          const next = new URLSearchParams(current)
          for (const [name, value] of Object.entries(changes)) {
            next.delete(name)
            const values = typeof value === 'string' ? [value] : (value ?? [])
            for (const v of values) if (v !== '') next.append(name, v)
          }
          return next
        },
        { replace: options.replace, preventScrollReset: true },
      )
    },
    [setParams],
  )
  return [params, update] as const
}

/** A 1-based page number from the query string; 1 when missing or not a positive integer. */
export function pageParam(value: string | null): number {
  const page = Number(value)
  return Number.isInteger(page) && page >= 1 ? page : 1
}

/** `value` when it is one of `allowed`, else `fallback`. */
export function oneOf<T extends string>(value: string | null, allowed: readonly T[], fallback: T): T {
  return allowed.includes(value as T) ? (value as T) : fallback
}
