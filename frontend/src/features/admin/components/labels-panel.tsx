import { EmptyState } from '@/components/ui/empty-state'
import { QueryState } from '@/components/ui/query-state'
import { Button, buttonClasses } from '@/components/ui/button'
import { useToast } from '@/components/ui/toast'
import { ADMIN_LIST_LIMIT } from '@/config/constants'
import { errorMessage } from '@/lib/errors'
import { useAdminLabels, useRequestCrawl, useSetLabelHidden, type AdminLabel } from '../api/admin'
import { adminMessages } from '../messages'
import { Badge, Card, CardList, Facts, formatTime, LimitNote, panelLoad } from './panel-state'
import { SearchBox, useSearchParam } from './search-box'

/** Every label, hidden ones too: hide or show to members, re-crawl, open on Bandcamp. */
export function LabelsPanel() {
  const search = useSearchParam()
  const query = useAdminLabels(search)
  return (
    <div>
      <SearchBox label="Search labels by name or URL" />
      <QueryState query={query} {...panelLoad('the labels')} empty={<EmptyState message={adminMessages.empty.labels(search)} />}>
        {(rows) => (
          <>
            <CardList label="Labels">
              {rows.map((label) => (
                <LabelRow key={label.id} label={label} />
              ))}
            </CardList>
            {rows.length >= ADMIN_LIST_LIMIT && <LimitNote text={adminMessages.limited.labels(ADMIN_LIST_LIMIT)} />}
          </>
        )}
      </QueryState>
    </div>
  )
}

function LabelRow({ label }: { label: AdminLabel }) {
  const toast = useToast()
  // Hiding changes what members see: every cached list reloads.
  const setHidden = useSetLabelHidden()
  const crawl = useRequestCrawl()
  const toggle = () =>
    setHidden.mutate(
      { id: label.id, hidden: !label.hidden },
      {
        onSuccess: () => toast.success(label.hidden ? adminMessages.labels.shown(label.label_name) : adminMessages.labels.hidden(label.label_name)),
        onError: (e) => toast.error(errorMessage(e)),
      },
    )
  const recrawl = () =>
    crawl.mutate(label.id, {
      onSuccess: () => toast.success(adminMessages.crawls.labelRequested(label.label_name)),
      onError: (e) => toast.error(errorMessage(e)),
    })
  return (
    <Card className={label.hidden ? 'bg-zinc-50' : undefined}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h3 className="min-w-0 font-medium break-words text-zinc-900">{label.label_name}</h3>
        <span className="flex flex-wrap gap-1.5">
          {label.hidden && <Badge tone="bad">hidden</Badge>}
          {label.parse_failure && <Badge tone="warn">parse failure</Badge>}
        </span>
      </div>
      <Facts
        items={[
          ['URL', label.label_url],
          ['Followers', String(label.followers)],
          ['Crawled', formatTime(label.crawled_at)],
          ...(label.parse_failure ? ([['Failure', label.parse_failure]] as [string, string][]) : []),
        ]}
      />
      <div className="mt-3 flex flex-wrap gap-2">
        <Button
          variant="secondary"
          size="sm"
          disabled={setHidden.isPending}
          onClick={toggle}
          aria-label={`${label.hidden ? 'Unhide' : 'Hide'} ${label.label_name}`}
        >
          {label.hidden ? 'Unhide' : 'Hide'}
        </Button>
        <Button variant="secondary" size="sm" disabled={crawl.isPending} onClick={recrawl} aria-label={`Re-crawl ${label.label_name}`}>
          Re-crawl
        </Button>
        <a href={label.label_url} target="_blank" rel="noreferrer" className={buttonClasses('ghost', 'sm')}>
          Open on Bandcamp<span className="sr-only"> ({label.label_name}, opens in a new tab)</span>
        </a>
      </div>
    </Card>
  )
}
