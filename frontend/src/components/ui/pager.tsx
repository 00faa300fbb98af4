import { focusRing } from './button'
import { cn } from '@/lib/cn'
import { messages } from '@/config/messages'

interface PagerProps {
  page: number
  total: number
  onChange: (page: number) => void
  label: string
}

function Arrow({ direction }: { direction: 'left' | 'right' }) {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 20 20"
      className="size-5"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d={direction === 'left' ? 'M12 5l-5 5 5 5' : 'M8 5l5 5-5 5'} />
    </svg>
  )
}

const arrowClasses = cn(
  'rounded-lg border border-zinc-300 bg-white p-1.5 text-zinc-700 hover:bg-zinc-100 disabled:cursor-not-allowed disabled:opacity-40',
  focusRing,
)

/** Previous/next arrows around "Page X of Y". */
export function Pager({ page, total, onChange, label }: PagerProps) {
  return (
    <nav aria-label={label} className="flex items-center justify-center gap-3">
      <button type="button" className={arrowClasses} onClick={() => onChange(page - 1)} disabled={page <= 1} aria-label="Previous page">
        <Arrow direction="left" />
      </button>
      <span className="min-w-24 text-center text-sm text-zinc-600" aria-live="polite">
        {messages.collection.page(page, total)}
      </span>
      <button type="button" className={arrowClasses} onClick={() => onChange(page + 1)} disabled={page >= total} aria-label="Next page">
        <Arrow direction="right" />
      </button>
    </nav>
  )
}
