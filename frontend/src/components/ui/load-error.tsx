import { Button } from './button'

/**
 * A load that failed, in place of the list it would have shown, with a retry. It replaces the
 * toast for that load, so the message is said once, where the content was expected; counts
 * and empty states are not shown beside it, since nothing is known about the list.
 */
export function LoadError({ message, onRetry, retrying, compact }: { message: string; onRetry: () => void; retrying?: boolean; compact?: boolean }) {
  return (
    <div
      role="alert"
      className={
        compact
          ? 'flex flex-wrap items-center justify-center gap-3 py-6 text-sm text-zinc-700'
          : 'flex flex-col items-center justify-center gap-4 rounded-2xl border border-red-200 bg-red-50/50 px-6 py-12 text-center'
      }
    >
      <p className={compact ? '' : 'max-w-md text-zinc-700'}>{message}</p>
      <Button variant="secondary" onClick={onRetry} disabled={retrying}>
        {retrying ? 'Retrying…' : 'Try Again'}
      </Button>
    </div>
  )
}
