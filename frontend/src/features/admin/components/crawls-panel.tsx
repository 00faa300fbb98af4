import { QueryState } from '@/components/ui/query-state'
import { Button } from '@/components/ui/button'
import { useToast } from '@/components/ui/toast'
import { errorMessage } from '@/lib/errors'
import { useCrawls, useRequestCrawl, type CrawlRun } from '../api/admin'
import { adminMessages } from '../messages'
import { Badge, Card, CardList, Facts, formatTime, panelLoad } from './panel-state'

const runTone = { succeeded: 'good', failed: 'bad', running: 'info', skipped: 'neutral' } as const

/** Recent passes, the next planned one, "crawl now", and labels whose pages failed to parse. */
export function CrawlsPanel() {
  const toast = useToast()
  const query = useCrawls()
  const crawl = useRequestCrawl()
  const onCrawlNow = () =>
    crawl.mutate(null, {
      onSuccess: () => toast.success(adminMessages.crawls.requested),
      onError: (e) => toast.error(errorMessage(e)),
    })
  return (
    <QueryState query={query} {...panelLoad('the crawls')}>
      {({ status, runs, failures }) => (
        <div className="space-y-8">
          <section aria-labelledby="crawl-status" className="rounded-2xl border border-zinc-200 bg-white p-4 shadow-sm">
            <div className="flex flex-wrap items-start justify-between gap-3">
              <div>
                <h3 id="crawl-status" className="font-medium text-zinc-900">
                  Crawler
                </h3>
                <Facts
                  items={[
                    ['Next pass', formatTime(status.next_pass_at)],
                    ['Last success', formatTime(status.last_succeeded_at)],
                    ['Running now', status.running ? 'yes' : 'no'],
                    ['Requested', String(status.open_requests)],
                  ]}
                />
              </div>
              <Button size="sm" onClick={onCrawlNow} disabled={crawl.isPending}>
                Crawl now
              </Button>
            </div>
          </section>
          <section aria-labelledby="crawl-runs">
            <h3 id="crawl-runs" className="mb-3 text-sm font-semibold tracking-wide text-zinc-500 uppercase">
              Recent passes
            </h3>
            {runs.length === 0 ? (
              <p className="text-sm text-zinc-600">{adminMessages.empty.runs}</p>
            ) : (
              <CardList label="Recent passes">
                {runs.map((run) => (
                  <RunCard key={run.id} run={run} />
                ))}
              </CardList>
            )}
          </section>
          <section aria-labelledby="crawl-failures">
            <h3 id="crawl-failures" className="mb-3 text-sm font-semibold tracking-wide text-zinc-500 uppercase">
              Labels that failed to parse
            </h3>
            {failures.length === 0 ? (
              <p className="text-sm text-zinc-600">{adminMessages.empty.failures}</p>
            ) : (
              <CardList label="Labels that failed to parse">
                {failures.map((f) => (
                  <Card key={f.label_id}>
                    <h4 className="font-medium text-zinc-900">{f.label_name}</h4>
                    <Facts
                      items={[
                        ['Page', f.url],
                        ['Reason', f.reason],
                        ['Since', formatTime(f.first_seen_at)],
                        ['Last seen', formatTime(f.last_seen_at)],
                      ]}
                    />
                  </Card>
                ))}
              </CardList>
            )}
          </section>
        </div>
      )}
    </QueryState>
  )
}

function RunCard({ run }: { run: CrawlRun }) {
  const status = run.status as keyof typeof runTone
  return (
    <Card>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h4 className="font-medium text-zinc-900">
          Pass {run.id} · {formatTime(run.started_at)}
        </h4>
        <span className="flex gap-1.5">
          <Badge tone={runTone[status]}>{run.status}</Badge>
          {run.stop_reason && <Badge tone="warn">stopped: {run.stop_reason}</Badge>}
        </span>
      </div>
      <Facts
        items={[
          ['Submissions', `${run.labels_checked} checked, ${run.labels_valid} added, ${run.labels_invalid} refused`],
          ['Releases', `${run.releases_added} added, ${run.releases_updated} updated`],
          ['Network failures', String(run.network_failures)],
          ['Parse failures', String(run.parse_failures)],
          ['Finished', formatTime(run.finished_at)],
          ...(run.error ? ([['Error', run.error]] as [string, string][]) : []),
        ]}
      />
    </Card>
  )
}
