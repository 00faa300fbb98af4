import type { ButtonHTMLAttributes, ReactNode } from 'react'
import { focusRing } from './button'
import { cn } from '@/lib/cn'

interface ChipProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  active?: boolean
}

/** A small clickable tag or genre. */
export function Chip({ active, className, children, type = 'button', ...rest }: ChipProps) {
  return (
    <button
      type={type}
      aria-pressed={active}
      className={cn(
        'inline-flex max-w-full items-center truncate rounded-full border px-2.5 py-0.5 text-xs font-medium transition-colors',
        active
          ? 'border-violet-600 bg-violet-600 text-white hover:bg-violet-700'
          : 'border-zinc-200 bg-zinc-100 text-zinc-700 hover:border-violet-300 hover:bg-violet-50 hover:text-violet-800',
        focusRing,
        className,
      )}
      {...rest}
    >
      {/* Text in a flex box gets no ellipsis of its own: a narrow chip shows "experime…". */}
      <span className="min-w-0 truncate">{children}</span>
    </button>
  )
}

/** An applied filter with a remove button. */
export function FilterChip({ children, onRemove, removeLabel }: { children: ReactNode; onRemove: () => void; removeLabel: string }) {
  return (
    <span className="inline-flex max-w-full items-center gap-1 rounded-full bg-violet-100 py-0.5 pr-1 pl-2.5 text-xs font-medium text-violet-900">
      <span className="truncate">{children}</span>
      <button type="button" onClick={onRemove} aria-label={removeLabel} className={cn('rounded-full p-0.5 text-violet-700 hover:bg-violet-200', focusRing)}>
        <svg aria-hidden="true" viewBox="0 0 20 20" className="size-3.5" fill="none" stroke="currentColor" strokeWidth="2.5" strokeLinecap="round">
          <path d="M6 6l8 8M14 6l-8 8" />
        </svg>
      </button>
    </span>
  )
}
