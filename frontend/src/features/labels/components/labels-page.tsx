import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react'
import { focusRing } from '@/components/ui/button'
import { Chip, FilterChip } from '@/components/ui/chip'
import { EmptyState } from '@/components/ui/empty-state'
import { PageHeader } from '@/components/ui/page-header'
import { Skeleton } from '@/components/ui/skeleton'
import { Spinner } from '@/components/ui/spinner'
import { panelId, tabId, Tabs } from '@/components/ui/tabs'
import { inputClasses } from '@/components/ui/text-field'
import { useToast } from '@/components/ui/toast'
import { LABELS_PAGE_SIZE, LABELS_SEARCH_DEBOUNCE_MS, TOAST_ERROR_MS } from '@/config/constants'
import { messages } from '@/config/messages'
import { useDebouncedCallback } from '@/hooks/use-debounced-callback'
import { useInfiniteScroll } from '@/hooks/use-infinite-scroll'
import { useUser } from '@/lib/auth'
import { cn } from '@/lib/cn'
import { appendUnique, nextPageFor } from '@/lib/pagination'
import type { Label } from '@/types/api'
import { countLabels, getLabelsPage, type LabelFilters, type LabelsTab } from '../api/get-labels'
import { useFollowToggle } from '../hooks/use-follow-toggle'
import { popularTags } from '../utils/popular-tags'
import { LabelCard } from './label-card'

const TABS = [
  { value: 'discover', label: 'Discover' },
  { value: 'following', label: 'Following' },
] as const

interface ListState {
  items: Label[]
  count: number | null
  loading: boolean
  hasMore: boolean
}

const EMPTY_LIST: ListState = { items: [], count: null, loading: true, hasMore: false }

/** Discover / Following label lists with search, tag filter and infinite scroll (20 per page). */
export function LabelsPage({ headerActions }: { headerActions?: ReactNode }) {
  const user = useUser()
  const toast = useToast()
  const [tab, setTab] = useState<LabelsTab>('discover')
  const [searchInput, setSearchInput] = useState('')
  const [filters, setFilters] = useState<LabelFilters>({ tag: null, search: '' })
  const [list, setList] = useState<ListState>(EMPTY_LIST)
  const generation = useRef(0)
  const busy = useRef(false)

  const applySearch = useDebouncedCallback((search: string) => setFilters((f) => ({ ...f, search })), LABELS_SEARCH_DEBOUNCE_MS)

  const load = useCallback(
    async (page: number) => {
      const gen = generation.current
      busy.current = true
      setList((s) => ({ ...s, loading: true }))
      try {
        const [rows, count] = await Promise.all([
          getLabelsPage(tab, user.id, page, filters),
          page === 1 ? countLabels(tab, user.id, filters) : Promise.resolve<number | null>(null),
        ])
        if (gen !== generation.current) return
        setList((s) => {
          const base = page === 1 ? [] : s.items
          const items = appendUnique(base, rows)
          const total = count ?? s.count ?? items.length
          const added = items.length - base.length
          return { items, count: total, loading: false, hasMore: added > 0 && rows.length > 0 && items.length < total }
        })
      } catch {
        if (gen !== generation.current) return
        setList((s) => ({ ...s, loading: false, hasMore: false }))
        toast.error(messages.load.labels(tab), TOAST_ERROR_MS)
      } finally {
        if (gen === generation.current) busy.current = false
      }
    },
    [tab, filters, user.id, toast],
  )

  useEffect(() => {
    generation.current += 1
    setList(EMPTY_LIST)
    void load(1)
  }, [load])

  const follow = useFollowToggle(
    useCallback((labelId: number) => {
      setList((s) => {
        if (!s.items.some((label) => label.id === labelId)) return s
        const items = s.items.filter((label) => label.id !== labelId)
        const count = Math.max(0, (s.count ?? items.length + 1) - 1)
        return { ...s, items, count, hasMore: items.length < count }
      })
    }, []),
  )

  const loadMore = () => {
    if (!busy.current && list.hasMore) void load(nextPageFor(list.items.length, LABELS_PAGE_SIZE))
  }
  const sentinelRef = useInfiniteScroll(loadMore, list.hasMore && !list.loading, list.items.length)

  const changeTab = (next: LabelsTab) => {
    applySearch.cancel()
    setSearchInput('')
    setTab(next)
    setFilters((f) => ({ ...f, search: '' }))
  }
  const changeTag = (tag: string | null) => {
    applySearch.cancel()
    setSearchInput('')
    setFilters({ tag, search: '' })
  }
  const clearSearch = () => {
    applySearch.cancel()
    setSearchInput('')
    setFilters((f) => ({ ...f, search: '' }))
  }

  const tags = useMemo(() => {
    const top = popularTags(list.items, 14)
    return filters.tag && !top.includes(filters.tag) ? [filters.tag, ...top] : top
  }, [list.items, filters.tag])

  const hasFilters = filters.tag !== null || filters.search !== ''
  const followedBase = tab === 'following'
  const initialLoading = list.loading && list.items.length === 0

  return (
    <section>
      <PageHeader title="Labels" subtitle="Discover independent labels and follow the ones you love" actions={headerActions} />
      <div className="mb-5 flex flex-wrap items-center justify-between gap-3">
        <Tabs label="Label lists" idPrefix="labels" items={TABS} value={tab} onChange={changeTab} />
        <div className="w-full sm:w-72">
          <label htmlFor="label-search" className="sr-only">
            Search labels by name
          </label>
          <div className="relative">
            <svg aria-hidden="true" viewBox="0 0 20 20" className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-zinc-400" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
              <circle cx="9" cy="9" r="5.5" />
              <path d="M13.5 13.5L17 17" />
            </svg>
            <input
              id="label-search"
              type="search"
              value={searchInput}
              placeholder="Search labels by name"
              onChange={(event) => {
                setSearchInput(event.target.value)
                applySearch(event.target.value)
              }}
              className={cn(inputClasses, 'pl-9')}
            />
          </div>
        </div>
      </div>

      {tags.length > 0 && (
        <div className="mb-4">
          <h2 className="mb-2 text-xs font-semibold tracking-wide text-zinc-500 uppercase">Tags</h2>
          <ul aria-label="Filter by tag" className="flex flex-wrap gap-1.5">
            {tags.map((tag) => (
              <li key={tag}>
                <Chip active={filters.tag === tag} onClick={() => changeTag(filters.tag === tag ? null : tag)}>
                  {tag}
                </Chip>
              </li>
            ))}
          </ul>
        </div>
      )}

      {hasFilters && (
        <div className="mb-4 flex flex-wrap items-center gap-2" aria-label="Active filters" role="group">
          <span className="text-sm text-zinc-600">Active filters:</span>
          {filters.tag && (
            <FilterChip onRemove={() => changeTag(null)} removeLabel={`Remove tag filter ${filters.tag}`}>
              Tag: {filters.tag}
            </FilterChip>
          )}
          {filters.search && (
            <FilterChip onRemove={clearSearch} removeLabel="Remove search filter">
              Search: “{filters.search}”
            </FilterChip>
          )}
          <button type="button" onClick={() => changeTag(null)} className={cn('rounded-sm text-sm font-medium text-violet-700 hover:underline', focusRing)}>
            Clear all
          </button>
        </div>
      )}

      <div id={panelId('labels')} role="tabpanel" aria-labelledby={tabId('labels', tab)}>
        <p className="mb-4 text-sm text-zinc-600" aria-live="polite" data-testid="labels-count">
          {list.count !== null ? messages.labels.count(list.count, tab) : '\u00a0'}
        </p>
        {initialLoading ? (
          <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4">
            {Array.from({ length: 8 }, (_, i) => (
              <Skeleton key={i} className="h-36 rounded-2xl" />
            ))}
          </div>
        ) : list.items.length === 0 ? (
          <EmptyState message={tab === 'following' ? messages.empty.labelsFollowing : messages.empty.labelsDiscover} />
        ) : (
          <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4">
            {list.items.map((label) => (
              <LabelCard
                key={label.id}
                label={label}
                followed={follow.valueOf(label.id, followedBase)}
                saving={follow.isSaving(label.id)}
                error={follow.errorOf(label.id)}
                activeTag={filters.tag}
                onToggleFollow={() => follow.toggle(label.id, follow.valueOf(label.id, followedBase))}
                onTagClick={(tag) => changeTag(tag)}
              />
            ))}
          </div>
        )}
        <div ref={sentinelRef} aria-hidden="true" className="h-4" />
        {list.loading && list.items.length > 0 && (
          <div className="flex justify-center py-6">
            <Spinner label="Loading more labels" />
          </div>
        )}
      </div>
    </section>
  )
}
