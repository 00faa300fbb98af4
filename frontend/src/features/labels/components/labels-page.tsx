import { useMemo, type ReactNode } from 'react'
import { Button, focusRing } from '@/components/ui/button'
import { FilterChip } from '@/components/ui/chip'
import { EmptyState } from '@/components/ui/empty-state'
import { LoadError } from '@/components/ui/load-error'
import { PageHeader } from '@/components/ui/page-header'
import { QueryState } from '@/components/ui/query-state'
import { Skeleton } from '@/components/ui/skeleton'
import { Spinner } from '@/components/ui/spinner'
import { panelId, tabId, Tabs } from '@/components/ui/tabs'
import { inputClasses } from '@/components/ui/text-field'
import { LABELS_SEARCH_DEBOUNCE_MS } from '@/config/constants'
import { messages } from '@/config/messages'
import { useDebouncedCallback } from '@/hooks/use-debounced-callback'
import { useExitTransition } from '@/hooks/use-exit-transition'
import { useInfiniteScroll } from '@/hooks/use-infinite-scroll'
import { oneOf, useSearchParamState } from '@/hooks/use-search-param-state'
import { useSyncedInput } from '@/hooks/use-synced-input'
import { useUser } from '@/lib/auth'
import { cn } from '@/lib/cn'
import { appendUnique } from '@/lib/pagination'
import type { Label } from '@/types/api'
import { useLabelTags } from '../api/get-label-tags'
import { useLabels, type LabelsTab } from '../api/get-labels'
import { useFollowToggle } from '../hooks/use-follow-toggle'
import { LabelCard } from './label-card'
import { TagRow } from './tag-row'

const TABS = [
  { value: 'discover', label: 'Discover' },
  { value: 'following', label: 'Following' },
] as const
const TAB_VALUES = TABS.map((tab) => tab.value)

/**
 * Discover / Following label lists with search, tag filter and infinite scroll (20 per page).
 * The tab (?tab=following), the tag (?tag=) and the applied search (?q=) live in the URL.
 */
export function LabelsPage({ headerActions }: { headerActions?: ReactNode }) {
  const user = useUser()
  const [params, setParams] = useSearchParamState()
  const tab: LabelsTab = oneOf(params.get('tab'), TAB_VALUES, 'discover')
  const filters = { tag: params.get('tag') || null, search: params.get('q') ?? '' }
  const [searchInput, setSearchInput] = useSyncedInput(filters.search)

  const applySearch = useDebouncedCallback((search: string) => setParams({ q: search }, { replace: true }), LABELS_SEARCH_DEBOUNCE_MS)

  const list = useLabels(user.id, tab, filters)
  const loaded = useMemo(() => (list.data?.pages ?? []).reduce<Label[]>((all, page) => appendUnique(all, page.rows), []), [list.data])
  const items = useExitTransition(loaded)
  const failed = list.isError && !list.isFetchNextPageError
  const count = failed ? null : (list.data?.pages[0]?.total ?? null)
  const follow = useFollowToggle(tab)
  // Both tabs' tags, so a tab switch knows at once whether the tag filter applies there.
  const tabTags = { discover: useLabelTags(user.id, 'discover'), following: useLabelTags(user.id, 'following') }
  const tags = tabTags[tab].data ?? []

  const canLoadMore = list.hasNextPage && !list.isFetching && !list.isFetchNextPageError
  const sentinelRef = useInfiniteScroll(() => void list.fetchNextPage({ cancelRefetch: false }), canLoadMore, items.length)

  // A tab switch and a tag change clear the search (SPEC §4).
  const clearSearchInput = () => {
    applySearch.cancel()
    setSearchInput('')
  }
  // The search is cleared (SPEC §4); the tag stays only when labels of the new tab carry it.
  const changeTab = (next: LabelsTab) => {
    clearSearchInput()
    const keepTag = filters.tag !== null && (tabTags[next].data ?? []).some((t) => t.tag === filters.tag)
    setParams({ tab: next === 'discover' ? null : next, q: null, tag: keepTag ? filters.tag : null })
  }
  const changeTag = (tag: string | null) => {
    clearSearchInput()
    setParams({ tag, q: null })
  }
  const clearSearch = () => {
    clearSearchInput()
    setParams({ q: null })
  }

  const hasFilters = filters.tag !== null || filters.search !== ''
  const followedBase = tab === 'following'
  // The list as one load; a failed next page is said below the list instead.
  const state = { data: items, error: failed ? list.error : null, isPending: list.isPending, isFetching: list.isFetching, refetch: list.refetch }

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
            <svg
              aria-hidden="true"
              viewBox="0 0 20 20"
              className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-zinc-400"
              fill="none"
              stroke="currentColor"
              strokeWidth="2"
              strokeLinecap="round"
            >
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

      <TagRow tags={tags} active={filters.tag} onChange={changeTag} />

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
          {count !== null ? messages.labels.count(count, tab) : '\u00a0'}
        </p>
        <QueryState
          query={state}
          errorMessage={messages.load.labels(tab)}
          loading={
            <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4">
              {Array.from({ length: 8 }, (_, i) => (
                <Skeleton key={i} className="h-36 rounded-2xl" />
              ))}
            </div>
          }
          empty={
            tab === 'following' && !hasFilters ? (
              <EmptyState message={messages.empty.labelsFollowing} action={<Button onClick={() => changeTab('discover')}>Discover Labels</Button>} />
            ) : (
              <EmptyState message={tab === 'following' ? messages.empty.labelsFollowing : messages.empty.labelsDiscover} />
            )
          }
        >
          {(shown) => (
            <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4">
              {shown.map((label) => (
                <LabelCard
                  key={label.id}
                  leaving={label.leaving}
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
        </QueryState>
        <div ref={sentinelRef} aria-hidden="true" className="h-4" />
        {list.isFetchingNextPage && (
          <div className="flex justify-center py-6">
            <Spinner label="Loading more labels" />
          </div>
        )}
        {list.isFetchNextPageError && (
          <LoadError compact message={messages.load.labels(tab)} onRetry={() => void list.fetchNextPage()} retrying={list.isFetching} />
        )}
      </div>
    </section>
  )
}
