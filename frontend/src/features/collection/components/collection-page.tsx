import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react'
import { Link } from 'react-router'
import { buttonClasses } from '@/components/ui/button'
import { EmptyState } from '@/components/ui/empty-state'
import { PageHeader } from '@/components/ui/page-header'
import { Pager } from '@/components/ui/pager'
import { Skeleton } from '@/components/ui/skeleton'
import { panelId, tabId, Tabs } from '@/components/ui/tabs'
import { inputClasses } from '@/components/ui/text-field'
import { useToast } from '@/components/ui/toast'
import {
  COLLECTION_PAGE_SIZE,
  COLLECTION_SEARCH_DEBOUNCE_MS,
  COLLECTION_SEED_STORAGE_KEY,
  TOAST_ERROR_MS,
  type CollectionFilterType,
} from '@/config/constants'
import { extraMessages, messages } from '@/config/messages'
import { paths } from '@/config/paths'
import { useDebouncedCallback } from '@/hooks/use-debounced-callback'
import { useUser } from '@/lib/auth'
import { cn } from '@/lib/cn'
import { clampPage, pageSlice, totalPages } from '@/lib/pagination'
import { seededShuffle, sessionSeed } from '@/lib/seeded-shuffle'
import type { CollectionLabel, Release } from '@/types/api'
import { getCollectionLabels } from '../api/get-collection-labels'
import { getLatestReleasesPerLabel } from '../api/get-latest-releases-per-label'
import { filterLabels } from '../utils/filter-labels'
import { CollectionLabelCard } from './collection-label-card'

const TABS = [
  { value: 'unchecked', label: 'To Listen' },
  { value: 'checked', label: 'All Listened' },
] as const satisfies ReadonlyArray<{ value: CollectionFilterType; label: string }>

type CollectionTab = (typeof TABS)[number]['value']

interface CollectionPageProps {
  renderRelease: (release: Release) => ReactNode
  /** Called after each (re)load of the label list, e.g. to refresh listened states. */
  onLabelsLoaded?: () => void
}

/** Followed labels, 5 per page in a per-session shuffled order, each with its latest releases. */
export function CollectionPage({ renderRelease, onLabelsLoaded }: CollectionPageProps) {
  const onLoaded = useRef(onLabelsLoaded)
  onLoaded.current = onLabelsLoaded
  const user = useUser()
  const toast = useToast()
  const seed = useMemo(() => sessionSeed(window.sessionStorage, COLLECTION_SEED_STORAGE_KEY), [])
  const [filterType, setFilterType] = useState<CollectionTab>('unchecked')
  const [searchInput, setSearchInput] = useState('')
  const [search, setSearch] = useState('')
  const [page, setPage] = useState(1)
  const [labels, setLabels] = useState<CollectionLabel[]>([])
  const [loading, setLoading] = useState(true)
  const [releases, setReleases] = useState<Map<number, Release[]>>(new Map())
  const requested = useRef(new Set<number>())

  const applySearch = useDebouncedCallback((value: string) => {
    setSearch(value)
    setPage(1)
  }, COLLECTION_SEARCH_DEBOUNCE_MS)

  useEffect(() => {
    let active = true
    setLoading(true)
    setLabels([])
    setPage(1)
    getCollectionLabels(user.id, filterType)
      .then((rows) => {
        if (!active) return
        setLabels(seededShuffle(rows, seed))
        onLoaded.current?.()
      })
      .catch(() => active && toast.error(messages.load.collectionLabels, TOAST_ERROR_MS))
      .finally(() => active && setLoading(false))
    return () => {
      active = false
    }
  }, [user.id, filterType, seed, toast])

  const filtered = useMemo(() => filterLabels(labels, search), [labels, search])
  const total = totalPages(filtered.length, COLLECTION_PAGE_SIZE)
  const current = clampPage(page, total)
  const pageLabels = useMemo(() => pageSlice(filtered, current, COLLECTION_PAGE_SIZE), [filtered, current])

  useEffect(() => {
    const missing = pageLabels.map((label) => label.id).filter((id) => !requested.current.has(id))
    if (missing.length === 0) return
    missing.forEach((id) => requested.current.add(id))
    getLatestReleasesPerLabel(missing)
      .catch(() => new Map<number, Release[]>(missing.map((id) => [id, []])))
      .then((grouped) => setReleases((map) => new Map([...map, ...grouped])))
  }, [pageLabels])

  const goTo = (next: number) => {
    setPage(clampPage(next, total))
    window.scrollTo({ top: 0, behavior: 'smooth' })
  }

  let body: ReactNode
  if (loading) {
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
          <CollectionLabelCard key={label.id} label={label} releases={releases.get(label.id)} renderRelease={renderRelease} />
        ))}
        <Pager page={current} total={total} onChange={goTo} label="Collection pages, bottom" />
      </div>
    )
  }

  return (
    <section>
      <PageHeader title="Collection" subtitle={messages.collection.subtitle} />
      <div className="mb-6 flex flex-wrap items-center justify-between gap-3">
        <Tabs label="Listen status" idPrefix="collection" items={TABS} value={filterType} onChange={setFilterType} />
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
