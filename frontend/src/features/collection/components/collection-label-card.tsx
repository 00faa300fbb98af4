import type { ReactNode } from 'react'
import { focusRing } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { SKELETON_COUNT } from '@/config/constants'
import { messages } from '@/config/messages'
import { cn } from '@/lib/cn'
import type { CollectionLabel, Release } from '@/types/api'
import { CheckIcon } from '@/components/ui/check-icon'

interface CollectionLabelCardProps {
  label: CollectionLabel
  releases: Release[] | undefined
  renderRelease: (release: Release) => ReactNode
}

/** A followed label with a horizontal strip of its latest releases. */
export function CollectionLabelCard({ label, releases, renderRelease }: CollectionLabelCardProps) {
  const done = label.is_fully_checked
  return (
    <article
      aria-label={label.label_name}
      data-label-id={label.id}
      data-fully-listened={done || undefined}
      className={cn('min-w-0 rounded-2xl border bg-white p-4 shadow-sm transition-opacity sm:p-5', done ? 'border-emerald-200 opacity-60' : 'border-zinc-200')}
    >
      <header className="mb-4 flex min-w-0 items-center gap-2">
        {done && (
          <span className="inline-flex size-6 shrink-0 items-center justify-center rounded-full bg-emerald-600 text-white" title="All releases listened">
            <CheckIcon />
            <span className="sr-only">All releases listened</span>
          </span>
        )}
        <h2 className="min-w-0 text-lg font-semibold text-zinc-900">
          <a href={label.label_url} target="_blank" rel="noopener noreferrer" className={cn('block truncate rounded-sm hover:underline', focusRing)}>
            {label.label_name}
          </a>
        </h2>
        {label.tags.length > 0 && <p className="hidden min-w-0 truncate text-sm text-zinc-500 md:block">{label.tags.slice(0, 4).join(' · ')}</p>}
      </header>
      {releases === undefined ? (
        <div className="flex gap-4 overflow-hidden" aria-busy="true" aria-label="Loading releases">
          {Array.from({ length: SKELETON_COUNT }, (_, i) => (
            <div key={i} className="w-36 shrink-0 space-y-2 sm:w-40">
              <Skeleton className="aspect-square w-full" />
              <Skeleton className="h-3 w-3/4" />
              <Skeleton className="h-3 w-1/2" />
            </div>
          ))}
        </div>
      ) : releases.length === 0 ? (
        <p className="text-sm text-zinc-500">{messages.empty.collectionNoReleases}</p>
      ) : (
        <ul aria-label={`Latest releases from ${label.label_name}`} className="-mx-1 flex gap-4 overflow-x-auto px-1 pb-2">
          {releases.map((release) => (
            <li key={release.id} className="shrink-0">
              {renderRelease(release)}
            </li>
          ))}
        </ul>
      )}
    </article>
  )
}
