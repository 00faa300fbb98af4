import { useMemo, useState, type ReactNode } from 'react'
import { Button, focusRing } from '@/components/ui/button'
import { FilterChip } from '@/components/ui/chip'
import { EmptyState } from '@/components/ui/empty-state'
import { PageHeader } from '@/components/ui/page-header'
import { QueryState } from '@/components/ui/query-state'
import { Skeleton } from '@/components/ui/skeleton'
import { EXPLORE_COUNT, EXPLORE_DEFAULT_TIME_RANGE_DAYS, EXPLORE_TIME_RANGES } from '@/config/constants'
import { extraMessages, messages } from '@/config/messages'
import { useSearchParamState, type SearchParamChanges } from '@/hooks/use-search-param-state'
import { useUser } from '@/lib/auth'
import { cn } from '@/lib/cn'
import type { Release } from '@/types/api'
import { useExploreGenres } from '../api/get-explore-genres'
import { useRandomReleases, type ExploreFilters } from '../api/get-random-releases'
import { errorMessage } from '@/lib/errors'
import { FilterPanel, timeRangeIndex } from './filter-panel'

export interface ExploreCardOptions {
  onGenreClick: (genre: string) => void
  activeGenres: readonly string[]
}

interface ExplorePageProps {
  renderRelease: (release: Release, options: ExploreCardOptions) => ReactNode
}

const PANEL_ID = 'explore-filter-panel'
/** Nine compact cards, three by three from tablets up, so all nine fit a 1280×800 screen beside the panel. */
const gridClasses = 'grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3'
const NO_RELEASES: Release[] = []

/** The applied filters from the URL: ?range=<days> (one of the options) and ?genre= repeated. */
function readFilters(params: URLSearchParams): ExploreFilters {
  const days = Number(params.get('range') ?? EXPLORE_DEFAULT_TIME_RANGE_DAYS)
  const known = EXPLORE_TIME_RANGES.some((range) => range.days === days)
  return { genres: [...new Set(params.getAll('genre'))], timeRangeDays: known ? days : EXPLORE_DEFAULT_TIME_RANGE_DAYS }
}

function filterParams(filters: ExploreFilters): SearchParamChanges {
  return {
    range: filters.timeRangeDays === EXPLORE_DEFAULT_TIME_RANGE_DAYS ? null : String(filters.timeRangeDays),
    genre: filters.genres,
  }
}

/** Nine random releases with Shuffle, staged filters and genre chips; applied filters live in the URL. */
export function ExplorePage({ renderRelease }: ExplorePageProps) {
  const user = useUser()
  const [params, setParams] = useSearchParamState()
  const applied = useMemo(() => readFilters(params), [params])
  const appliedKey = params.toString()
  const [staged, setStaged] = useState<ExploreFilters>(applied)
  const [panelOpen, setPanelOpen] = useState(false)
  // Ids shown since the filters last changed; Shuffle sends them so it avoids repeats.
  const [shown, setShown] = useState<{ filters: string; ids: number[] }>({ filters: appliedKey, ids: [] })
  const excluded = shown.filters === appliedKey ? shown.ids : NO_IDS

  const query = useRandomReleases(user.id, applied, excluded)
  const releases = query.data ?? NO_RELEASES
  const loading = query.isFetching
  // Every genre of the range the panel is set to, from the first visit (not only those seen).
  const rangeGenres = useExploreGenres(panelOpen ? staged.timeRangeDays : applied.timeRangeDays, panelOpen)
  // Shuffle has shown every match when a pick that avoids them comes back empty.
  const allShown = !query.isPlaceholderData && query.isSuccess && releases.length === 0 && excluded.length > 0

  const apply = (filters: ExploreFilters) => setParams(filterParams(filters))

  const shuffle = () => {
    // Every match shown: start over with all of them.
    if (allShown) {
      setShown({ filters: appliedKey, ids: [] })
      return
    }
    const ids = [...new Set([...excluded, ...releases.map((release) => release.id)])]
    if (ids.length === excluded.length) void query.refetch()
    else setShown({ filters: appliedKey, ids })
  }

  const openPanel = () => {
    setStaged(applied)
    setPanelOpen(true)
  }

  const onGenreClick = (genre: string) => {
    if (panelOpen) {
      setStaged((s) => (s.genres.includes(genre) ? s : { ...s, genres: [...s.genres, genre] }))
    } else if (!applied.genres.includes(genre)) {
      apply({ ...applied, genres: [...applied.genres, genre] })
    }
  }

  const removeGenre = (genre: string) => {
    apply({ ...applied, genres: applied.genres.filter((g) => g !== genre) })
    setStaged((s) => ({ ...s, genres: s.genres.filter((g) => g !== genre) }))
  }
  const clearGenres = () => {
    apply({ ...applied, genres: [] })
    setStaged((s) => ({ ...s, genres: [] }))
  }

  const panelGenres = useMemo(
    () => [...new Set([...staged.genres, ...applied.genres, ...(rangeGenres.data ?? [])])].sort((a, b) => a.localeCompare(b)),
    [staged.genres, applied.genres, rangeGenres.data],
  )
  const rangeLabel = EXPLORE_TIME_RANGES[timeRangeIndex(applied.timeRangeDays)].label

  return (
    <section>
      <PageHeader
        title="Explore Releases"
        subtitle={`Random releases from the last ${rangeLabel === 'Today' ? 'day' : rangeLabel.toLowerCase()}`}
        actions={
          <>
            <Button variant="secondary" aria-expanded={panelOpen} aria-controls={PANEL_ID} onClick={() => (panelOpen ? setPanelOpen(false) : openPanel())}>
              <svg aria-hidden="true" viewBox="0 0 20 20" className="size-4" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
                <path d="M3 5h14M6 10h8M8.5 15h3" />
              </svg>
              Filters
            </Button>
            <Button onClick={shuffle} disabled={loading}>
              <svg
                aria-hidden="true"
                viewBox="0 0 20 20"
                className="size-4"
                fill="none"
                stroke="currentColor"
                strokeWidth="2"
                strokeLinecap="round"
                strokeLinejoin="round"
              >
                <path d="M3 6h3.5c2 0 3 1 4 3l1 2c1 2 2 3 4 3H17M14.5 11.5L17 14l-2.5 2.5M3 14h3.5c1 0 1.8-.3 2.4-.9M11.1 6.9c.6-.6 1.4-.9 2.4-.9H17M14.5 3.5L17 6l-2.5 2.5" />
              </svg>
              Shuffle
            </Button>
          </>
        }
      />

      {applied.genres.length > 0 && (
        <div role="group" aria-label="Genre filters" className="mb-4 flex flex-wrap items-center gap-2">
          <span className="text-sm text-zinc-600">Genres:</span>
          {applied.genres.map((genre) => (
            <FilterChip key={genre} onRemove={() => removeGenre(genre)} removeLabel={`Remove genre filter ${genre}`}>
              {genre}
            </FilterChip>
          ))}
          <button type="button" onClick={clearGenres} className={cn('rounded-sm text-sm font-medium text-violet-700 hover:underline', focusRing)}>
            Clear all
          </button>
        </div>
      )}

      <div className={cn('grid gap-6', panelOpen && 'lg:grid-cols-[18rem_minmax(0,1fr)]')}>
        {panelOpen && (
          <FilterPanel
            id={PANEL_ID}
            staged={staged}
            genres={panelGenres}
            onChange={setStaged}
            onApply={() => apply(staged)}
            onClose={() => setPanelOpen(false)}
          />
        )}
        <div aria-busy={loading} className="min-w-0">
          <QueryState
            // A pick that failed while the previous one is still shown (placeholder) keeps it.
            query={{
              data: query.data,
              error: query.isPlaceholderData ? null : query.error,
              isPending: query.isPending,
              isFetching: loading,
              refetch: query.refetch,
            }}
            errorMessage={(error) => messages.load.releases(errorMessage(error))}
            loading={
              <div className={gridClasses}>
                {Array.from({ length: EXPLORE_COUNT }, (_, i) => (
                  <Skeleton key={i} className="h-32 rounded-2xl sm:h-36" />
                ))}
              </div>
            }
            empty={
              <EmptyState
                message={messages.empty.explore}
                action={allShown ? <p className="text-sm text-zinc-500">{extraMessages.exploreAllShown}</p> : undefined}
              />
            }
          >
            {(shown) => (
              // The cards on screen stay as they are while the next pick loads (Shuffle shows it
              // is busy); the new ones fade in one by one instead of the grid dimming as a whole.
              <div className={gridClasses}>
                {shown.map((release, index) => (
                  <div key={release.id} className="min-w-0 motion-safe:animate-card-in" style={{ animationDelay: `${index * 25}ms` }}>
                    {renderRelease(release, { onGenreClick, activeGenres: applied.genres })}
                  </div>
                ))}
              </div>
            )}
          </QueryState>
        </div>
      </div>
    </section>
  )
}

const NO_IDS: number[] = []
