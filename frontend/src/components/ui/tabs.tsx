import { useRef, type KeyboardEvent } from 'react'
import { focusRing } from './button'
import { cn } from '@/lib/cn'

export interface TabItem<T extends string> {
  value: T
  label: string
}

interface TabsProps<T extends string> {
  label: string
  items: readonly TabItem<T>[]
  value: T
  onChange: (value: T) => void
  idPrefix: string
}

export const tabId = (prefix: string, value: string) => `${prefix}-tab-${value}`
export const panelId = (prefix: string) => `${prefix}-panel`

/** A tab list with automatic activation and arrow-key movement (WAI-ARIA tabs pattern). */
export function Tabs<T extends string>({ label, items, value, onChange, idPrefix }: TabsProps<T>) {
  const refs = useRef<Array<HTMLButtonElement | null>>([])

  const onKeyDown = (event: KeyboardEvent, index: number) => {
    let next = -1
    if (event.key === 'ArrowRight') next = (index + 1) % items.length
    else if (event.key === 'ArrowLeft') next = (index - 1 + items.length) % items.length
    else if (event.key === 'Home') next = 0
    else if (event.key === 'End') next = items.length - 1
    if (next < 0) return
    event.preventDefault()
    refs.current[next]?.focus()
    onChange(items[next].value)
  }

  return (
    <div role="tablist" aria-label={label} className="inline-flex rounded-xl bg-zinc-200/70 p-1">
      {items.map((item, index) => {
        const selected = item.value === value
        return (
          <button
            key={item.value}
            ref={(el) => {
              refs.current[index] = el
            }}
            id={tabId(idPrefix, item.value)}
            type="button"
            role="tab"
            aria-selected={selected}
            aria-controls={panelId(idPrefix)}
            tabIndex={selected ? 0 : -1}
            onClick={() => !selected && onChange(item.value)}
            onKeyDown={(event) => onKeyDown(event, index)}
            className={cn(
              'rounded-lg px-4 py-1.5 text-sm font-medium transition-colors',
              selected ? 'bg-white text-zinc-900 shadow-sm' : 'text-zinc-600 hover:text-zinc-900',
              focusRing,
            )}
          >
            {item.label}
          </button>
        )
      })}
    </div>
  )
}
