import { useEffect, useState, type FormEvent } from 'react'
import { EmptyState } from '@/components/ui/empty-state'
import { QueryState } from '@/components/ui/query-state'
import { Button } from '@/components/ui/button'
import { Chip } from '@/components/ui/chip'
import { TextField } from '@/components/ui/text-field'
import { useToast } from '@/components/ui/toast'
import { oneOf, useSearchParamState } from '@/hooks/use-search-param-state'
import { errorMessage } from '@/lib/errors'
import { useRejectSubmission, useRetrySubmission, useSubmissions, type Submission, type SubmissionStatus } from '../api/admin'
import { adminMessages } from '../messages'
import { Badge, Card, CardList, Facts, formatTime, panelLoad } from './panel-state'

const FILTERS = [
  { value: 'all', label: 'All' },
  { value: 'pending', label: 'Pending' },
  { value: 'refused', label: 'Refused' },
  { value: 'done', label: 'Done' },
] as const
type Filter = (typeof FILTERS)[number]['value']

const tone = { pending: 'warn', refused: 'bad', done: 'good' } as const

/** The submission queue (?status=pending|refused|done): retry and reject with a reason. */
export function QueuePanel() {
  const [params, setParams] = useSearchParamState()
  const filter: Filter = oneOf(
    params.get('status'),
    FILTERS.map((f) => f.value),
    'all',
  )
  const status: SubmissionStatus | null = filter === 'all' ? null : filter
  const query = useSubmissions(status)
  return (
    <div>
      <div role="group" aria-label="Show submissions" className="mb-4 flex flex-wrap gap-1.5">
        {FILTERS.map((f) => (
          <Chip key={f.value} active={filter === f.value} onClick={() => setParams({ status: f.value === 'all' ? null : f.value })}>
            {f.label}
          </Chip>
        ))}
      </div>
      <QueryState query={query} {...panelLoad('the submission queue')} empty={<EmptyState message={adminMessages.empty.queue(status)} />}>
        {(rows) => (
          <CardList label="Submissions">
            {rows.map((s) => (
              <SubmissionCard key={s.id} submission={s} />
            ))}
          </CardList>
        )}
      </QueryState>
    </div>
  )
}

function SubmissionCard({ submission: s }: { submission: Submission }) {
  const toast = useToast()
  const [rejecting, setRejecting] = useState(false)
  const [reason, setReason] = useState('')
  const [reasonError, setReasonError] = useState('')
  // The outcome is told from the hooks' own callbacks, not from mutate()'s: the queue's live
  // view reloads when the procedure commits, often before its answer is back, and the reload
  // removes this card; mutate()'s callbacks die with the card, the hooks' run regardless.
  const fail = (e: Error) => toast.error(errorMessage(e))
  const retry = useRetrySubmission({ onSuccess: () => toast.success(adminMessages.queue.retried), onError: fail })
  const reject = useRejectSubmission({
    onSuccess: () => {
      toast.success(adminMessages.queue.rejected)
      setRejecting(false)
      setReason('')
    },
    onError: fail,
  })
  const status = s.status as SubmissionStatus
  const busy = retry.isPending || reject.isPending
  const reasonId = `reject-reason-${s.id}`
  // Opening the form moves focus into it, so a keyboard user types the reason at once.
  useEffect(() => {
    if (rejecting) document.getElementById(reasonId)?.focus()
  }, [rejecting, reasonId])

  const onRetry = () => retry.mutate(s.id)
  const onReject = (event: FormEvent) => {
    event.preventDefault()
    if (reason.trim() === '') {
      setReasonError(adminMessages.queue.reasonRequired)
      return
    }
    reject.mutate({ id: s.id, reason })
  }

  return (
    <Card>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h3 className="min-w-0 font-medium break-all text-zinc-900">
          <a href={s.label_url} target="_blank" rel="noreferrer" className="hover:underline">
            {s.label_url}
          </a>
        </h3>
        <Badge tone={tone[status]}>{status}</Badge>
      </div>
      <Facts
        items={[
          ['Submitted', formatTime(s.submitted_at)],
          ['By', s.submitter_email ?? '—'],
          ['Attempts', String(s.attempts)],
          ['Processed', formatTime(s.processed_at)],
          ...(s.reason ? ([['Reason', s.reason]] as [string, string][]) : []),
        ]}
      />
      {status !== 'done' && (
        <div className="mt-3 flex flex-wrap gap-2">
          <Button variant="secondary" size="sm" disabled={busy} onClick={onRetry} aria-label={`Retry ${s.label_url}`}>
            Retry
          </Button>
          {!rejecting && (
            <Button variant="secondary" size="sm" disabled={busy} onClick={() => setRejecting(true)} aria-label={`Reject ${s.label_url}`}>
              Reject
            </Button>
          )}
        </div>
      )}
      {rejecting && (
        <form onSubmit={onReject} className="mt-3 flex flex-wrap items-end gap-2" aria-label={`Reject ${s.label_url}`}>
          <TextField
            label={adminMessages.queue.reasonLabel}
            value={reason}
            id={reasonId}
            maxLength={500}
            error={reasonError || undefined}
            onChange={(e) => {
              setReason(e.target.value)
              setReasonError('')
            }}
            className="min-w-0 flex-1 basis-60"
          />
          <Button type="submit" size="sm" disabled={busy}>
            Reject submission
          </Button>
          <Button variant="ghost" size="sm" onClick={() => setRejecting(false)}>
            Cancel
          </Button>
        </form>
      )}
    </Card>
  )
}
