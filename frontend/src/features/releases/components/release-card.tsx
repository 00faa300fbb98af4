import { useState } from 'react'
import { Chip } from '@/components/ui/chip'
import { CoverImage } from '@/components/ui/cover-image'
import { focusRing } from '@/components/ui/button'
import { cn } from '@/lib/cn'
import { formatReleaseDate } from '@/lib/format'
import type { Release } from '@/types/api'
import { ListenButton } from './listen-button'

export interface ReleaseCardProps {
  release: Release
  listened: boolean
  saving: boolean
  error?: string
  onToggleListened: () => void
  /** When given, genres are buttons that call it (Explore). */
  onGenreClick?: (genre: string) => void
  activeGenres?: readonly string[]
  /** A strip item (Collection). */
  compact?: boolean
  /** Cover beside the details, for a dense grid (Explore's nine on one screen). */
  row?: boolean
}

const linkClasses = cn('rounded-sm hover:underline', focusRing)

export function ReleaseCard(props: ReleaseCardProps) {
  const { release, listened, saving, error, onToggleListened, onGenreClick, activeGenres, compact, row } = props
  const label = release.labels
  const date = formatReleaseDate(release.release_date)

  if (compact) {
    return (
      <article aria-label={`${release.title} by ${release.artist}`} data-release-id={release.id} className="flex w-full flex-col gap-2">
        <a
          href={release.release_url}
          target="_blank"
          rel="noopener noreferrer"
          className={cn('block overflow-hidden rounded-lg', focusRing)}
          tabIndex={-1}
          aria-hidden="true"
        >
          <CoverImage src={release.image_url} alt="" className={cn('transition-opacity', listened && 'opacity-60')} />
        </a>
        <div className="min-w-0 flex-1">
          <a
            href={release.release_url}
            target="_blank"
            rel="noopener noreferrer"
            className={cn('line-clamp-2 text-sm font-semibold text-zinc-900', linkClasses)}
          >
            {release.title}
          </a>
          <p className="truncate text-xs text-zinc-600" title={release.artist}>
            {release.artist}
          </p>
          {date && <p className="text-xs text-zinc-500">{date}</p>}
        </div>
        <ListenButton listened={listened} saving={saving} onToggle={onToggleListened} size="sm" />
        {error && (
          <p role="alert" className="text-xs text-red-600">
            {error}
          </p>
        )}
      </article>
    )
  }

  const genres = release.genres.length > 0 && (
    <ul aria-label="Genres" className="flex flex-wrap gap-1.5">
      {release.genres.map((genre) => (
        <li key={genre} className="max-w-full">
          {onGenreClick ? (
            <Chip active={activeGenres?.includes(genre)} onClick={() => onGenreClick(genre)} aria-label={`Filter by genre ${genre}`}>
              {genre}
            </Chip>
          ) : (
            <span className="inline-block max-w-full truncate rounded-full bg-zinc-100 px-2.5 py-0.5 text-xs font-medium text-zinc-600">{genre}</span>
          )}
        </li>
      ))}
    </ul>
  )
  // Date and label on lines of their own: in a narrow card a separator would dangle at a wrap.
  const meta = (
    <div className="flex min-w-0 flex-col gap-0.5 text-xs text-zinc-500">
      {date && <time dateTime={release.release_date ?? undefined}>{date}</time>}
      {label && (
        <a
          href={label.label_url}
          target="_blank"
          rel="noopener noreferrer"
          data-testid="label-link"
          title={label.label_name}
          className={cn('min-w-0 self-start font-medium break-words text-violet-700', linkClasses)}
        >
          {label.label_name}
        </a>
      )}
    </div>
  )

  if (row) return <RowReleaseCard {...props} />

  return (
    <article
      aria-label={`${release.title} by ${release.artist}`}
      data-release-id={release.id}
      className="group flex flex-col overflow-hidden rounded-2xl border border-zinc-200 bg-white shadow-sm transition-shadow hover:shadow-md"
    >
      <a href={release.release_url} target="_blank" rel="noopener noreferrer" tabIndex={-1} aria-hidden="true" className="block">
        <CoverImage src={release.image_url} alt="" className="transition-transform duration-300 group-hover:scale-[1.02]" />
      </a>
      <div className="flex flex-1 flex-col gap-2.5 p-3 sm:gap-3 sm:p-4">
        {meta}
        <div className="min-w-0">
          <h3 className="text-sm leading-snug font-semibold text-zinc-900 sm:text-base">
            <a href={release.release_url} target="_blank" rel="noopener noreferrer" className={cn('break-words', linkClasses)}>
              {release.title}
            </a>
          </h3>
          <p className="mt-0.5 line-clamp-2 text-sm break-words text-zinc-600" title={release.artist}>
            {release.artist}
          </p>
        </div>
        {genres}
        <div className="mt-auto">
          <ListenButton listened={listened} saving={saving} onToggle={onToggleListened} />
          {error && (
            <p role="alert" className="mt-2 text-sm text-red-600">
              {error}
            </p>
          )}
        </div>
      </div>
    </article>
  )
}

/** Genres a row card shows before "+N" (the rest one click away), so each card keeps one line of chips. */
const ROW_GENRES = 2

/**
 * Explore's dense card: the cover beside title, artist, label and date, one line of genres and
 * the listen button, so nine fit a 1280×800 screen beside the filter panel. Long names are cut
 * to the card and shown whole on hover (title).
 */
function RowReleaseCard({ release, listened, saving, error, onToggleListened, onGenreClick, activeGenres }: ReleaseCardProps) {
  const [allGenres, setAllGenres] = useState(false)
  const label = release.labels
  const date = formatReleaseDate(release.release_date)
  // The genres being filtered on come first, so a card always shows why it matched.
  const ordered = [...release.genres].sort((a, b) => Number(activeGenres?.includes(b) ?? false) - Number(activeGenres?.includes(a) ?? false))
  const shown = allGenres ? ordered : ordered.slice(0, Math.max(ROW_GENRES, activeGenres?.length ?? 0))
  const hidden = release.genres.length - shown.length
  return (
    <article
      aria-label={`${release.title} by ${release.artist}`}
      data-release-id={release.id}
      className="flex h-full gap-3 rounded-2xl border border-zinc-200 bg-white p-2.5 shadow-sm transition-shadow hover:shadow-md"
    >
      <a
        href={release.release_url}
        target="_blank"
        rel="noopener noreferrer"
        tabIndex={-1}
        aria-hidden="true"
        className="block w-24 shrink-0 self-start overflow-hidden rounded-xl xl:w-28"
      >
        <CoverImage src={release.image_url} alt="" />
      </a>
      <div className="flex min-w-0 flex-1 flex-col gap-1">
        <h3 className="text-sm leading-snug font-semibold text-zinc-900">
          <a href={release.release_url} target="_blank" rel="noopener noreferrer" title={release.title} className={cn('line-clamp-1 break-all', linkClasses)}>
            {release.title}
          </a>
        </h3>
        <p className="truncate text-xs text-zinc-600" title={release.artist}>
          {release.artist}
        </p>
        {label && (
          <a
            href={label.label_url}
            target="_blank"
            rel="noopener noreferrer"
            data-testid="label-link"
            title={label.label_name}
            className={cn('min-w-0 truncate text-xs font-medium text-violet-700', linkClasses)}
          >
            {label.label_name}
          </a>
        )}
        {date && (
          <time className="text-xs text-zinc-500" dateTime={release.release_date ?? undefined}>
            {date}
          </time>
        )}
        {release.genres.length > 0 && (
          // Until "+N" is pressed, one line whatever the genres: chips shrink (with an
          // ellipsis and the full name on hover) rather than wrap, so the cards of a row keep
          // one height and nine fit a 1280×800 screen beside the filter panel.
          <ul aria-label="Genres" className={cn('flex gap-1', allGenres ? 'flex-wrap' : 'min-w-0 flex-nowrap')}>
            {shown.map((genre) => (
              <li key={genre} className={allGenres ? 'max-w-full' : 'min-w-0'} title={genre}>
                {onGenreClick ? (
                  <Chip active={activeGenres?.includes(genre)} onClick={() => onGenreClick(genre)} aria-label={`Filter by genre ${genre}`}>
                    {genre}
                  </Chip>
                ) : (
                  <span className="inline-block max-w-full truncate rounded-full bg-zinc-100 px-2.5 py-0.5 text-xs font-medium text-zinc-600">{genre}</span>
                )}
              </li>
            ))}
            {hidden > 0 && (
              <li className="shrink-0">
                <button
                  type="button"
                  onClick={() => setAllGenres(true)}
                  aria-label={`Show ${hidden} more genres`}
                  className={cn('rounded-full px-1.5 py-0.5 text-xs font-medium text-zinc-500 hover:text-violet-700', focusRing)}
                >
                  +{hidden}
                </button>
              </li>
            )}
          </ul>
        )}
        <div className="mt-auto pt-1">
          <ListenButton listened={listened} saving={saving} onToggle={onToggleListened} size="sm" />
          {error && (
            <p role="alert" className="mt-1 text-xs text-red-600">
              {error}
            </p>
          )}
        </div>
      </div>
    </article>
  )
}
