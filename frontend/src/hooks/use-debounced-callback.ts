import { useEffect, useMemo, useRef } from 'react'
import { debounce, type Debounced } from '@/lib/debounce'

/** A stable debounced wrapper around the latest `fn`; pending calls are dropped on unmount. */
export function useDebouncedCallback<A extends unknown[]>(fn: (...args: A) => void, waitMs: number): Debounced<A> {
  const fnRef = useRef(fn)
  fnRef.current = fn
  const debounced = useMemo(() => debounce((...args: A) => fnRef.current(...args), waitMs), [waitMs])
  useEffect(() => () => debounced.cancel(), [debounced])
  return debounced
}
