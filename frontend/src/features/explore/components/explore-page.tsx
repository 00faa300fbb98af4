import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react'
import { Button, focusRing } from '@/components/ui/button'
import { FilterChip } from '@/components/ui/chip'
import { EmptyState } from '@/components/ui/empty-state'
import { PageHeader } from '@/components/ui/page-header'
import { Skeleton } from '@/components/ui/skeleton'
import { useToast } from '@/components/ui/toast'
import { EXPLORE_COUNT, EXPLORE_DEFAULT_TIME_RANGE_DAYS, EXPLORE_TIME_RANGES, TOAST_ERROR_MS } from '@/config/constants'
import { messages } from '@/config/messages'
import { useUser } from '@/lib/auth'
import { cn } from '@/lib/cn'
import { errorMessage } from '@/lib/errors'
import type { Release } from '@/types/api'
import { getRandomReleases, type ExploreFilters } from '../api/get-random-releases'
import { FilterPanel, timeRangeIndex } from './filter-panel'

export interface ExploreCardOptions {
  onGenreClick: (genre: string) => void
  activeGenres: readonly string[]
}

interface ExplorePageProps {
  renderRelease: (release: Release, options: ExploreCardOptions) => ReactNode
}

const DEFAULT_FILTERS: ExploreFilters = { genres: [], timeRangeDays: EXPLORE_DEFAULT_TIME_RANGE_DAYS }
const PANEL_ID = 'explore-filter-panel'

/** Nine random releases with Shuffle, staged filters and genre chips. */
export function ExplorePage({ renderRelease }: ExplorePageProps) {
  const user = useUser()
  const toast = useToast()
  const [applied, setApplied] = useState<ExploreFilters>(DEFAULT_FILTERS)
  const [staged, setStaged] = useState<ExploreFilters>(DEFAULT_FILTERS)
  const [panelOpen, setPanelOpen] = useState(false)
  const [releases, setReleases] = useState<Release[]>([])
  const [loading, setLoading] = useState(true)
  const [seenGenres, setSeenGenres] = useState<string[]>([])
  // Ids shown since the filters last changed; Shuffle sends them so it avoids repeats.
  const excluded = useRef<number[]>([])
  const generation = useRef(0)

  const load = useCallback(
    async (filters: ExploreFilters, excludeIds: number[]) => {
      const gen = ++generation.current
      setLoading(true)
      try {
        const rows = await getRandomReleases(user.id, excludeIds, filters)
        if (gen !== generation.current) return
        setReleases(rows)
        setSeenGenres((known) => {
          const all = new Set(known)
          rows.forEach((row) => row.genres.forEach((genre) => all.add(genre)))
          return all.size === known.length ? known : [...all].sort((a, b) => a.localeCompare(b))
        })
      } catch (error) {
        if (gen !== generation.current) return
        setReleases([])
        toast.error(messages.load.releases(errorMessage(error)), TOAST_ERROR_MS)
      } finally {
        if (gen === generation.current) setLoading(false)
      }
    },
    [user.id, toast],
  )

  useEffect(() => {
    excluded.current = []
    void load(applied, [])
  }, [applied, load])

  const shuffle = () => {
    excluded.current = [...new Set([...excluded.current, ...releases.map((release) => release.id)])]
    void load(applied, excluded.current)
  }

  const openPanel = () => {
    setStaged(applied)
    setPanelOpen(true)
  }

  const onGenreClick = (genre: string) => {
    if (panelOpen) {
      setStaged((s) => (s.genres.includes(genre) ? s : { ...s, genres: [...s.genres, genre] }))
    } else if (!applied.genres.includes(genre)) {
      setApplied({ ...applied, genres: [...applied.genres, genre] })
    }
  }

  const removeGenre = (genre: string) => {
    setApplied({ ...applied, genres: applied.genres.filter((g) => g !== genre) })
    setStaged((s) => ({ ...s, genres: s.genres.filter((g) => g !== genre) }))
  }
  const clearGenres = () => {
    setApplied({ ...applied, genres: [] })
    setStaged((s) => ({ ...s, genres: [] }))
  }

  const panelGenres = useMemo(() => [...new Set([...staged.genres, ...applied.genres, ...seenGenres])].sort((a, b) => a.localeCompare(b)), [staged.genres, applied.genres, seenGenres])
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
              <svg aria-hidden="true" viewBox="0 0 20 20" className="size-4" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
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
            onApply={() => setApplied({ genres: [...staged.genres], timeRangeDays: staged.timeRangeDays })}
            onClose={() => setPanelOpen(false)}
          />
        )}
        <div aria-busy={loading} className="min-w-0">
          {loading && releases.length === 0 ? (
            <div className="grid grid-cols-1 gap-5 sm:grid-cols-2 lg:grid-cols-3">
              {Array.from({ length: EXPLORE_COUNT }, (_, i) => (
                <Skeleton key={i} className="aspect-[3/4] rounded-2xl" />
              ))}
            </div>
          ) : releases.length === 0 ? (
            <EmptyState message={messages.empty.explore} />
          ) : (
            <div className={cn('grid grid-cols-1 gap-5 sm:grid-cols-2 lg:grid-cols-3 transition-opacity', loading && 'opacity-60')}>
              {releases.map((release) => (
                <div key={release.id} className="contents">
                  {renderRelease(release, { onGenreClick, activeGenres: applied.genres })}
                </div>
              ))}
            </div>
          )}
        </div>
      </div>
    </section>
  )
}
