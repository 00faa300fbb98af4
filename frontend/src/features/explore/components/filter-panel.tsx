import { useId } from 'react'
import { Button } from '@/components/ui/button'
import { Chip } from '@/components/ui/chip'
import { EXPLORE_TIME_RANGES } from '@/config/constants'
import type { ExploreFilters } from '../api/get-random-releases'

interface FilterPanelProps {
  id: string
  staged: ExploreFilters
  genres: readonly string[]
  onChange: (filters: ExploreFilters) => void
  onApply: () => void
  onClose: () => void
}

export function timeRangeIndex(days: number): number {
  const index = EXPLORE_TIME_RANGES.findIndex((range) => range.days === days)
  return index < 0 ? 0 : index
}

/** Staged Explore filters; nothing changes until Apply Filters. */
export function FilterPanel({ id, staged, genres, onChange, onApply, onClose }: FilterPanelProps) {
  const sliderId = useId()
  const index = timeRangeIndex(staged.timeRangeDays)
  const toggleGenre = (genre: string) =>
    onChange({
      ...staged,
      genres: staged.genres.includes(genre) ? staged.genres.filter((g) => g !== genre) : [...staged.genres, genre],
    })

  return (
    <aside id={id} aria-label="Explore filters" className="rounded-2xl border border-zinc-200 bg-white p-5 shadow-sm">
      <div className="mb-4 flex items-center justify-between">
        <h2 className="text-base font-semibold text-zinc-900">Filters</h2>
        <Button variant="ghost" size="sm" onClick={onClose}>
          Close
        </Button>
      </div>
      <div className="mb-6">
        <div className="mb-2 flex items-baseline justify-between gap-2">
          <label htmlFor={sliderId} className="text-sm font-medium text-zinc-700">
            Time range
          </label>
          <span className="text-sm font-semibold text-violet-700" data-testid="time-range-value">
            {EXPLORE_TIME_RANGES[index].label}
          </span>
        </div>
        <input
          id={sliderId}
          type="range"
          min={0}
          max={EXPLORE_TIME_RANGES.length - 1}
          step={1}
          value={index}
          aria-valuetext={EXPLORE_TIME_RANGES[index].label}
          onChange={(event) => onChange({ ...staged, timeRangeDays: EXPLORE_TIME_RANGES[Number(event.target.value)].days })}
          className="w-full accent-violet-600"
        />
        <div aria-hidden="true" className="mt-1 flex justify-between text-[11px] text-zinc-500">
          {EXPLORE_TIME_RANGES.map((range) => (
            <span key={range.days}>{range.label}</span>
          ))}
        </div>
      </div>
      <fieldset className="mb-6">
        <legend className="mb-2 text-sm font-medium text-zinc-700">Genres</legend>
        {genres.length === 0 ? (
          <p className="text-sm text-zinc-500">No releases in this time range have genres.</p>
        ) : (
          <div className="flex max-h-56 flex-wrap gap-1.5 overflow-y-auto">
            {genres.map((genre) => (
              <Chip key={genre} active={staged.genres.includes(genre)} onClick={() => toggleGenre(genre)}>
                {genre}
              </Chip>
            ))}
          </div>
        )}
      </fieldset>
      <Button className="w-full" onClick={onApply}>
        Apply Filters
      </Button>
    </aside>
  )
}
