import { useEffect, useLayoutEffect, useMemo, useRef } from 'react'
import { debounce, type Debounced } from '@/lib/debounce'

/** A stable debounced wrapper around the latest `fn`; pending calls are dropped on unmount. */
export function useDebouncedCallback<A extends unknown[]>(fn: (...args: A) => void, waitMs: number): Debounced<A> {
  const fnRef = useRef(fn)
  useLayoutEffect(() => {
    fnRef.current = fn
  })
  // The ref is read when the debounced call fires (a timer after an event), never during
  // render; useEffectEvent cannot serve here because its functions may only run in effects.
  // eslint-disable-next-line react-hooks/refs
  const debounced = useMemo(() => debounce((...args: A) => fnRef.current(...args), waitMs), [waitMs])
  useEffect(() => () => debounced.cancel(), [debounced])
  return debounced
}
