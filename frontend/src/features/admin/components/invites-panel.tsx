import { useState, type FormEvent } from 'react'
import { EmptyState } from '@/components/ui/empty-state'
import { QueryState } from '@/components/ui/query-state'
import { Button } from '@/components/ui/button'
import { TextField } from '@/components/ui/text-field'
import { useToast } from '@/components/ui/toast'
import { errorMessage } from '@/lib/errors'
import { useCreateInvite, useInvites, useRevokeInvite, type CreatedInvite, type Invite } from '../api/admin'
import { adminMessages } from '../messages'
import { Badge, Card, CardList, Facts, formatTime, panelLoad } from './panel-state'

const statusTone = { active: 'good', used: 'neutral', expired: 'warn', revoked: 'bad' } as const

/** Checks the create form; returns the error of each field that is wrong. */
export function checkInviteForm(uses: string, expires: string, note: string) {
  const errors: { uses?: string; expires?: string; note?: string } = {}
  const n = Number(uses)
  if (!/^\d+$/.test(uses.trim()) || n < 1 || n > 10000) errors.uses = adminMessages.invites.usesInvalid
  const h = Number(expires)
  if (expires.trim() !== '' && (!/^\d+$/.test(expires.trim()) || h < 1 || h > 87600)) errors.expires = adminMessages.invites.expiryInvalid
  if (note.trim().length > 200) errors.note = adminMessages.invites.noteTooLong
  return errors
}

/** Create invite codes (uses, expiry, note), list them with who used them, revoke. */
export function InvitesPanel() {
  const query = useInvites()
  return (
    <div className="space-y-8">
      <CreateInviteForm />
      <section aria-labelledby="invite-list">
        <h3 id="invite-list" className="mb-3 text-sm font-semibold tracking-wide text-zinc-500 uppercase">
          Invite codes
        </h3>
        <QueryState query={query} {...panelLoad('the invites')} empty={<EmptyState message={adminMessages.empty.invites} />}>
          {(rows) => (
            <CardList label="Invite codes">
              {rows.map((invite) => (
                <InviteRow key={invite.id} invite={invite} />
              ))}
            </CardList>
          )}
        </QueryState>
      </section>
    </div>
  )
}

function CreateInviteForm() {
  const toast = useToast()
  const create = useCreateInvite()
  const [uses, setUses] = useState('1')
  const [expires, setExpires] = useState('72')
  const [note, setNote] = useState('')
  const [errors, setErrors] = useState<ReturnType<typeof checkInviteForm>>({})
  const [created, setCreated] = useState<CreatedInvite | null>(null)

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    const found = checkInviteForm(uses, expires, note)
    setErrors(found)
    if (Object.keys(found).length > 0) return
    create.mutate(
      { maxUses: Number(uses), expiresInHours: expires.trim() === '' ? null : Number(expires), note },
      {
        onSuccess: (invite) => {
          setCreated(invite)
          setNote('')
          toast.success(adminMessages.invites.created)
        },
        onError: (e) => toast.error(errorMessage(e)),
      },
    )
  }

  return (
    <section aria-labelledby="invite-create" className="rounded-2xl border border-zinc-200 bg-white p-4 shadow-sm">
      <h3 id="invite-create" className="mb-3 font-medium text-zinc-900">
        New invite
      </h3>
      <form onSubmit={onSubmit} noValidate className="grid grid-cols-1 gap-3 sm:grid-cols-[8rem_10rem_1fr_auto] sm:items-start">
        <TextField label="Uses" inputMode="numeric" value={uses} onChange={(e) => setUses(e.target.value)} error={errors.uses} />
        <TextField
          label="Expires in (hours)"
          inputMode="numeric"
          value={expires}
          placeholder="never"
          onChange={(e) => setExpires(e.target.value)}
          error={errors.expires}
        />
        <TextField label="Note" value={note} maxLength={200} placeholder="who it is for" onChange={(e) => setNote(e.target.value)} error={errors.note} />
        <Button type="submit" className="sm:mt-6" disabled={create.isPending}>
          Create invite
        </Button>
      </form>
      <div aria-live="polite">
        {created && (
          <p className="mt-4 rounded-xl bg-violet-50 px-4 py-3 text-sm text-violet-900">
            New code: <code className="font-mono text-base font-semibold break-all select-all">{created.code}</code>
            <span className="text-violet-800">
              {' '}
              · {created.max_uses} {created.max_uses === 1 ? 'use' : 'uses'}
              {created.expires_at ? ` · expires ${formatTime(created.expires_at)}` : ' · never expires'}
            </span>
          </p>
        )}
      </div>
    </section>
  )
}

function InviteRow({ invite }: { invite: Invite }) {
  const toast = useToast()
  const revoke = useRevokeInvite()
  const status = invite.status as keyof typeof statusTone
  return (
    <Card>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h4 className="min-w-0 font-mono text-sm font-semibold break-all text-zinc-900">{invite.code}</h4>
        <Badge tone={statusTone[status]}>{invite.status}</Badge>
      </div>
      <Facts
        items={[
          ['Uses', `${invite.uses} of ${invite.max_uses}`],
          ['Expires', invite.expires_at ? formatTime(invite.expires_at) : 'never'],
          ['Created', formatTime(invite.created_at)],
          ['Note', invite.note || '—'],
          ['Used by', invite.used_by.length > 0 ? invite.used_by.join(', ') : '—'],
        ]}
      />
      {status === 'active' && (
        <div className="mt-3">
          <Button
            variant="secondary"
            size="sm"
            disabled={revoke.isPending}
            aria-label={`Revoke invite ${invite.code}`}
            onClick={() =>
              revoke.mutate(invite.id, { onSuccess: () => toast.success(adminMessages.invites.revoked), onError: (e) => toast.error(errorMessage(e)) })
            }
          >
            Revoke
          </Button>
        </div>
      )}
    </Card>
  )
}
