import type { ReactNode } from 'react'

export function EmptyState({ message, action }: { message: string; action?: ReactNode }) {
  return (
    <div className="flex flex-col items-center justify-center gap-4 rounded-2xl border border-dashed border-zinc-300 bg-white px-6 py-14 text-center">
      <svg aria-hidden="true" viewBox="0 0 24 24" className="size-10 text-zinc-300" fill="none" stroke="currentColor" strokeWidth="1.5">
        <circle cx="12" cy="12" r="9" />
        <circle cx="12" cy="12" r="2.5" />
      </svg>
      <p className="max-w-md text-zinc-600">{message}</p>
      {action}
    </div>
  )
}
