import type { ReactNode } from 'react'
import { focusRing } from '@/components/ui/button'
import { CheckIcon } from '@/components/ui/check-icon'
import { Skeleton } from '@/components/ui/skeleton'
import { SKELETON_COUNT } from '@/config/constants'
import { messages } from '@/config/messages'
import { cn } from '@/lib/cn'
import type { CollectionLabel, Release } from '@/types/api'

interface CollectionLabelCardProps {
  label: CollectionLabel
  releases: Release[] | undefined
  /** All releases listened (dim, check): the server's answer, kept live by the page. */
  done: boolean
  /** The releases could not be loaded (the page says so, with Try Again): no strip, no empty claim. */
  failed?: boolean
  renderRelease: (release: Release) => ReactNode
}

/** The card's frame: the label's details beside (on wide screens) or above its strip. */
const cardClasses = 'min-w-0 rounded-2xl border bg-white p-4 shadow-sm sm:p-5 lg:grid lg:grid-cols-[13rem_minmax(0,1fr)] lg:gap-6'
/**
 * The strip: five covers share the width on wide screens; on narrower ones it scrolls, and
 * the next cover peeks in at the edge (with a fade) so it is plain that it does.
 */
const stripClasses =
  '-mx-1 flex snap-x gap-3 overflow-x-auto px-1 pb-2 [mask-image:linear-gradient(to_right,black_85%,transparent)] sm:gap-4 lg:grid lg:grid-cols-5 lg:overflow-visible lg:[mask-image:none]'
const stripItemClasses = 'w-[42%] shrink-0 snap-start sm:w-44 lg:w-auto'

/** A followed label with a strip of its latest releases. */
export function CollectionLabelCard({ label, releases, done, failed, renderRelease }: CollectionLabelCardProps) {
  return (
    <article
      aria-label={label.label_name}
      data-label-id={label.id}
      data-fully-listened={done || undefined}
      className={cn(cardClasses, 'transition-[opacity,border-color] duration-300', done ? 'border-emerald-200 opacity-60' : 'border-zinc-200')}
    >
      <header className="mb-4 min-w-0 lg:mb-0">
        <div className="flex min-w-0 items-start gap-2">
          {done && (
            <span
              className="mt-0.5 inline-flex size-6 shrink-0 items-center justify-center rounded-full bg-emerald-600 text-white"
              title="All releases listened"
            >
              <CheckIcon />
              <span className="sr-only">All releases listened</span>
            </span>
          )}
          <h2 className="min-w-0 text-lg leading-snug font-semibold text-zinc-900">
            <a
              href={label.label_url}
              target="_blank"
              rel="noopener noreferrer"
              title={label.label_name}
              className={cn('rounded-sm break-words hover:underline', focusRing)}
            >
              {label.label_name}
            </a>
          </h2>
        </div>
        {label.tags.length > 0 && <p className="mt-1 text-sm text-zinc-500">{label.tags.slice(0, 4).join(' · ')}</p>}
      </header>
      {failed && releases === undefined ? (
        <div data-testid="strip-failed" className="min-h-24 rounded-xl border border-dashed border-zinc-200" />
      ) : releases === undefined ? (
        <StripSkeleton />
      ) : releases.length === 0 ? (
        <p className="text-sm text-zinc-500">{messages.empty.collectionNoReleases}</p>
      ) : (
        <ul aria-label={`Latest releases from ${label.label_name}`} className={stripClasses}>
          {releases.map((release) => (
            <li key={release.id} className={stripItemClasses}>
              {renderRelease(release)}
            </li>
          ))}
        </ul>
      )}
    </article>
  )
}

/** Placeholders shaped like the strip's releases: cover, title, artist, date, button. */
function StripSkeleton() {
  return (
    <div className={cn(stripClasses, 'overflow-hidden')} aria-busy="true" aria-label="Loading releases">
      {Array.from({ length: SKELETON_COUNT }, (_, i) => (
        <div key={i} data-testid="release-skeleton" className={cn(stripItemClasses, 'space-y-2')}>
          <Skeleton className="aspect-square w-full" />
          <Skeleton className="h-3.5 w-3/4" />
          <Skeleton className="h-3 w-1/2" />
          <Skeleton className="h-3 w-1/3" />
          <Skeleton className="h-7 w-full" />
        </div>
      ))}
    </div>
  )
}

/** A whole card while the labels load: the same frame, details and strip as a loaded card. */
export function CollectionLabelCardSkeleton() {
  return (
    <div data-testid="collection-card-skeleton" className={cn(cardClasses, 'border-zinc-200')}>
      <div className="mb-4 space-y-2 lg:mb-0">
        <Skeleton className="h-5 w-2/3" />
        <Skeleton className="h-3.5 w-1/2" />
      </div>
      <StripSkeleton />
    </div>
  )
}
