import { useState } from 'react'

/**
 * The text of a search box whose applied value lives elsewhere (the URL): typing changes the
 * text at once, and when the applied value changes from outside (Back, a link, a reset) the
 * text follows it.
 */
export function useSyncedInput(applied: string): [string, (value: string) => void] {
  const [text, setText] = useState(applied)
  const [seen, setSeen] = useState(applied)
  if (applied !== seen) {
    setSeen(applied)
    setText(applied)
  }
  return [text, setText]
}
