import { focusRing } from '@/components/ui/button'
import { cn } from '@/lib/cn'
import { CheckIcon } from '@/components/ui/check-icon'

interface ListenButtonProps {
  listened: boolean
  saving: boolean
  onToggle: () => void
  size?: 'sm' | 'md'
}

/**
 * "Mark as Listened" / "Listened" toggle; stays focusable while saving (repeat clicks are
 * ignored upstream). Its accessible name stays "Mark as Listened", which contains both visible
 * texts, and aria-pressed alone tells the state, so a screen reader is not told a new name and
 * a new state at once.
 */
export function ListenButton({ listened, saving, onToggle, size = 'md' }: ListenButtonProps) {
  return (
    <button
      type="button"
      aria-label="Mark as Listened"
      aria-pressed={listened}
      aria-busy={saving || undefined}
      data-saving={saving || undefined}
      onClick={onToggle}
      className={cn(
        'inline-flex w-full items-center justify-center gap-1.5 rounded-lg font-medium whitespace-nowrap transition-colors',
        size === 'sm' ? 'px-2 py-1 text-xs' : 'px-2 py-2 text-xs sm:px-3 sm:text-sm',
        listened ? 'bg-emerald-700 text-white hover:bg-emerald-800' : 'border border-zinc-300 bg-white text-zinc-800 hover:border-zinc-400 hover:bg-zinc-50',
        saving && 'cursor-progress opacity-70',
        focusRing,
      )}
    >
      {listened ? (
        <CheckIcon />
      ) : (
        // The empty circle is only a hint; on a phone's two-column grid the words need its room.
        <svg
          aria-hidden="true"
          viewBox="0 0 20 20"
          className="size-4 shrink-0 max-sm:hidden"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          strokeLinecap="round"
        >
          <circle cx="10" cy="10" r="6.5" />
        </svg>
      )}
      {listened ? 'Listened' : 'Mark as Listened'}
    </button>
  )
}
