import { useMemo, type ReactNode } from 'react'
import { Link } from 'react-router'
import { buttonClasses } from '@/components/ui/button'
import { EmptyState } from '@/components/ui/empty-state'
import { LoadError } from '@/components/ui/load-error'
import { PageHeader } from '@/components/ui/page-header'
import { QueryState } from '@/components/ui/query-state'
import { Pager } from '@/components/ui/pager'
import { panelId, tabId, Tabs } from '@/components/ui/tabs'
import { inputClasses } from '@/components/ui/text-field'
import {
  COLLECTION_PAGE_SIZE,
  COLLECTION_RELEASES_PER_LABEL,
  COLLECTION_SEARCH_DEBOUNCE_MS,
  COLLECTION_SEED_STORAGE_KEY,
  type CollectionFilterType,
} from '@/config/constants'
import { extraMessages, messages } from '@/config/messages'
import { paths } from '@/config/paths'
import { useDebouncedCallback } from '@/hooks/use-debounced-callback'
import { oneOf, pageParam, useSearchParamState } from '@/hooks/use-search-param-state'
import { useSyncedInput } from '@/hooks/use-synced-input'
import { useUser } from '@/lib/auth'
import { cn } from '@/lib/cn'
import { errorMessage } from '@/lib/errors'
import { clampPage, pageSlice, totalPages } from '@/lib/pagination'
import { sessionSeed } from '@/lib/seeded-shuffle'
import type { CollectionLabel, Release } from '@/types/api'
import { useCollectionLabels, useFullyListenedFlags } from '../api/get-collection-labels'
import { useLatestReleasesPerLabel } from '../api/get-latest-releases-per-label'
import { filterLabels } from '../utils/filter-labels'
import { CollectionLabelCard, CollectionLabelCardSkeleton } from './collection-label-card'

const TABS = [
  { value: 'unchecked', label: 'To Listen' },
  { value: 'checked', label: 'All Listened' },
] as const satisfies ReadonlyArray<{ value: CollectionFilterType; label: string }>

type CollectionTab = (typeof TABS)[number]['value']
const TAB_VALUES = TABS.map((tab) => tab.value)

interface CollectionPageProps {
  renderRelease: (release: Release) => ReactNode
  /** Whether the member listened to a release, as the strips' buttons show it (optimistic). */
  isListened?: (release: Release) => boolean
}

/**
 * Followed labels, 5 per page in a per-session shuffled order, each with its latest releases.
 * The tab (?tab=checked), the search (?q=) and the page (?page=) live in the URL.
 */
export function CollectionPage({ renderRelease, isListened }: CollectionPageProps) {
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
  const filtered = useMemo(() => filterLabels(query.data ?? [], search), [query.data, search])
  const total = totalPages(filtered.length, COLLECTION_PAGE_SIZE)
  const current = clampPage(pageParam(params.get('page')), total)
  const pageLabels = useMemo(() => pageSlice(filtered, current, COLLECTION_PAGE_SIZE), [filtered, current])
  const releases = useLatestReleasesPerLabel(useMemo(() => pageLabels.map((label) => label.id), [pageLabels]))

  // A card is done (dim, check) when all its releases are listened, live as they are marked:
  // a strip showing fewer than five releases holds all of them, so it decides at once; a full
  // strip decides "not done" at once (one shown release is not listened), and "done" from the
  // server, asked again when the strip's listened state changes.
  const stripState = (labelId: number) => {
    const strip = releases.data?.get(labelId)
    if (!strip || !isListened) return null
    return { all: strip.length > 0 && strip.every(isListened), complete: strip.length < COLLECTION_RELEASES_PER_LABEL }
  }
  const askServer = pageLabels.filter((label) => {
    const strip = stripState(label.id)
    return strip !== null && strip.all && !strip.complete
  })
  const listenedKey = askServer.map((label) => `${label.id}:${(releases.data?.get(label.id) ?? []).map((r) => r.id).join('.')}`).join(',')
  const flags = useFullyListenedFlags(user.id, listenedKey, askServer.length > 0)
  const isDone = (label: CollectionLabel) => {
    const strip = stripState(label.id)
    if (strip === null) return label.is_fully_checked
    if (!strip.all) return false
    if (strip.complete) return true
    return flags.data?.get(label.id) ?? label.is_fully_checked
  }

  const goTo = (next: number) => {
    const page = clampPage(next, total)
    setParams({ page: page === 1 ? null : String(page) })
    window.scrollTo({ top: 0, behavior: 'smooth' })
  }

  const content =
    filtered.length === 0 ? (
      <EmptyState message={extraMessages.collectionNoSearchMatch(search.trim())} />
    ) : (
      <div className="space-y-5">
        <Pager page={current} total={total} onChange={goTo} label="Collection pages, top" />
        {releases.isError && (
          <LoadError
            compact
            message={messages.load.releases(errorMessage(releases.error))}
            onRetry={() => void releases.refetch()}
            retrying={releases.isFetching}
          />
        )}
        {pageLabels.map((label) => (
          <CollectionLabelCard
            key={label.id}
            label={label}
            releases={releases.data?.get(label.id)}
            failed={releases.isError}
            done={isDone(label)}
            renderRelease={renderRelease}
          />
        ))}
        <Pager page={current} total={total} onChange={goTo} label="Collection pages, bottom" />
      </div>
    )

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
        <QueryState
          query={query}
          errorMessage={messages.load.collectionLabels}
          loading={
            <div className="space-y-5" aria-busy="true" aria-label="Loading your labels">
              {Array.from({ length: 3 }, (_, i) => (
                <CollectionLabelCardSkeleton key={i} />
              ))}
            </div>
          }
          empty={
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
          }
        >
          {() => content}
        </QueryState>
      </div>
    </section>
  )
}
