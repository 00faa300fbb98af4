import { useMemo, type ReactNode } from 'react'
import { Link } from 'react-router'
import { buttonClasses } from '@/components/ui/button'
import { EmptyState } from '@/components/ui/empty-state'
import { PageHeader } from '@/components/ui/page-header'
import { Pager } from '@/components/ui/pager'
import { Skeleton } from '@/components/ui/skeleton'
import { panelId, tabId, Tabs } from '@/components/ui/tabs'
import { inputClasses } from '@/components/ui/text-field'
import { COLLECTION_PAGE_SIZE, COLLECTION_SEARCH_DEBOUNCE_MS, COLLECTION_SEED_STORAGE_KEY, type CollectionFilterType } from '@/config/constants'
import { extraMessages, messages } from '@/config/messages'
import { paths } from '@/config/paths'
import { useDebouncedCallback } from '@/hooks/use-debounced-callback'
import { oneOf, pageParam, useSearchParamState } from '@/hooks/use-search-param-state'
import { useSyncedInput } from '@/hooks/use-synced-input'
import { useUser } from '@/lib/auth'
import { cn } from '@/lib/cn'
import { clampPage, pageSlice, totalPages } from '@/lib/pagination'
import { sessionSeed } from '@/lib/seeded-shuffle'
import type { Release } from '@/types/api'
import { useCollectionLabels } from '../api/get-collection-labels'
import { useLatestReleasesPerLabel } from '../api/get-latest-releases-per-label'
import { filterLabels } from '../utils/filter-labels'
import { CollectionLabelCard } from './collection-label-card'

const TABS = [
  { value: 'unchecked', label: 'To Listen' },
  { value: 'checked', label: 'All Listened' },
] as const satisfies ReadonlyArray<{ value: CollectionFilterType; label: string }>

type CollectionTab = (typeof TABS)[number]['value']
const TAB_VALUES = TABS.map((tab) => tab.value)

interface CollectionPageProps {
  renderRelease: (release: Release) => ReactNode
}

/**
 * Followed labels, 5 per page in a per-session shuffled order, each with its latest releases.
 * The tab (?tab=checked), the search (?q=) and the page (?page=) live in the URL.
 */
export function CollectionPage({ renderRelease }: CollectionPageProps) {
  const user = useUser()
  const seed = useMemo(() => sessionSeed(window.sessionStorage, COLLECTION_SEED_STORAGE_KEY), [])
  const [params, setParams] = useSearchParamState()
  const filterType: CollectionTab = oneOf(params.get('tab'), TAB_VALUES, 'unchecked')
  const search = params.get('q') ?? ''
  const [searchInput, setSearchInput] = useSyncedInput(search)

  // Changing the tab or the search returns to page 1 (SPEC §4).
  const applySearch = useDebouncedCallback((value: string) => setParams({ q: value, page: null }, { replace: true }), COLLECTION_SEARCH_DEBOUNCE_MS)
  const changeTab = (tab: CollectionTab) => setParams({ tab: tab === 'unchecked' ? null : tab, page: null })

  const query = useCollectionLabels(user.id, filterType, seed)
  const labels = query.data ?? []
  const filtered = useMemo(() => filterLabels(query.data ?? [], search), [query.data, search])
  const total = totalPages(filtered.length, COLLECTION_PAGE_SIZE)
  const current = clampPage(pageParam(params.get('page')), total)
  const pageLabels = useMemo(() => pageSlice(filtered, current, COLLECTION_PAGE_SIZE), [filtered, current])
  const releases = useLatestReleasesPerLabel(useMemo(() => pageLabels.map((label) => label.id), [pageLabels]))

  const goTo = (next: number) => {
    const page = clampPage(next, total)
    setParams({ page: page === 1 ? null : String(page) })
    window.scrollTo({ top: 0, behavior: 'smooth' })
  }

  let body: ReactNode
  if (query.isPending) {
    body = (
      <div className="space-y-4">
        {Array.from({ length: 3 }, (_, i) => (
          <Skeleton key={i} className="h-64 rounded-2xl" />
        ))}
      </div>
    )
  } else if (labels.length === 0) {
    body =
      filterType === 'checked' ? (
        <EmptyState message={messages.empty.collectionChecked} />
      ) : (
        <EmptyState
          message={messages.empty.collectionNothingFollowed}
          action={
            <Link to={paths.labels.getHref()} className={buttonClasses('primary')}>
              Go to Labels
            </Link>
          }
        />
      )
  } else if (filtered.length === 0) {
    body = <EmptyState message={extraMessages.collectionNoSearchMatch(search.trim())} />
  } else {
    body = (
      <div className="space-y-5">
        <Pager page={current} total={total} onChange={goTo} label="Collection pages, top" />
        {pageLabels.map((label) => (
          <CollectionLabelCard key={label.id} label={label} releases={releases.data?.get(label.id)} renderRelease={renderRelease} />
        ))}
        <Pager page={current} total={total} onChange={goTo} label="Collection pages, bottom" />
      </div>
    )
  }

  return (
    <section>
      <PageHeader title="Collection" subtitle={messages.collection.subtitle} />
      <div className="mb-6 flex flex-wrap items-center justify-between gap-3">
        <Tabs label="Listen status" idPrefix="collection" items={TABS} value={filterType} onChange={changeTab} />
        <div className="w-full sm:w-72">
          <label htmlFor="collection-search" className="sr-only">
            Search your labels by name or URL
          </label>
          <input
            id="collection-search"
            type="search"
            placeholder="Search your labels"
            value={searchInput}
            onChange={(event) => {
              setSearchInput(event.target.value)
              applySearch(event.target.value)
            }}
            className={cn(inputClasses)}
          />
        </div>
      </div>
      <div id={panelId('collection')} role="tabpanel" aria-labelledby={tabId('collection', filterType)}>
        {body}
      </div>
    </section>
  )
}
