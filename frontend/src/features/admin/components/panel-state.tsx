import type { ReactNode } from 'react'
import { EmptyState } from '@/components/ui/empty-state'
import { Skeleton } from '@/components/ui/skeleton'
import { errorMessage } from '@/lib/errors'
import { cn } from '@/lib/cn'
import { isForbidden } from '../api/admin'
import { adminMessages } from '../messages'

/**
 * A panel's loading and failure states, spread into the shared QueryState (the member pages'
 * one), so the console loads, fails and retries the way the member screens do. A member who
 * opens the console gets the procedures' refusal, which is an answer, not a failure: it is
 * said as "for admins" in place of the panel.
 */
export function panelLoad(what: string) {
  return {
    loading: (
      <div className="space-y-3" aria-busy="true" aria-label={`Loading ${what}`}>
        {Array.from({ length: 3 }, (_, i) => (
          <Skeleton key={i} className="h-20 rounded-2xl" />
        ))}
      </div>
    ),
    errorMessage: (error: Error) => `${adminMessages.loadFailed(what)} ${errorMessage(error)}`,
    explain: (error: Error) => (isForbidden(error) ? <EmptyState message={adminMessages.forbidden} /> : null),
  }
}

const badgeTones = {
  neutral: 'bg-zinc-100 text-zinc-700',
  good: 'bg-emerald-100 text-emerald-800',
  warn: 'bg-amber-100 text-amber-800',
  bad: 'bg-red-100 text-red-800',
  info: 'bg-violet-100 text-violet-800',
} as const

export function Badge({ tone = 'neutral', children }: { tone?: keyof typeof badgeTones; children: ReactNode }) {
  return <span className={cn('inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium', badgeTones[tone])}>{children}</span>
}

/** A list of cards: one column, so it reads the same on a 360 px phone and a desktop. */
export function CardList({ label, children }: { label: string; children: ReactNode }) {
  return (
    <ul aria-label={label} className="space-y-3">
      {children}
    </ul>
  )
}

/** Under a list the server cut at the console's limit: how to reach the rest. */
export function LimitNote({ text }: { text: string }) {
  return <p className="mt-3 text-sm text-zinc-600">{text}</p>
}

export function Card({ children, className }: { children: ReactNode; className?: string }) {
  return <li className={cn('rounded-2xl border border-zinc-200 bg-white p-4 shadow-sm', className)}>{children}</li>
}

/** Label/value pairs under a card's title. */
export function Facts({ items }: { items: ReadonlyArray<[string, ReactNode]> }) {
  return (
    <dl className="mt-2 grid grid-cols-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-2">
      {items.map(([term, value]) => (
        <div key={term} className="flex min-w-0 gap-2">
          <dt className="shrink-0 text-zinc-500">{term}</dt>
          <dd className="min-w-0 break-words text-zinc-800">{value}</dd>
        </div>
      ))}
    </dl>
  )
}

/** "26 Nov 2026, 07:30 UTC"; a dash for no time. */
export function formatTime(value: string | null | undefined): string {
  if (!value) return '—'
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) return value
  return `${date.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })} UTC`
}
