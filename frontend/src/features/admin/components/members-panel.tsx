import { EmptyState } from '@/components/ui/empty-state'
import { QueryState } from '@/components/ui/query-state'
import { Button } from '@/components/ui/button'
import { useToast } from '@/components/ui/toast'
import { ADMIN_LIST_LIMIT } from '@/config/constants'
import { useUser } from '@/lib/auth'
import { errorMessage } from '@/lib/errors'
import { useMembers, useSendReset, useSetAdmin, useSetBanned, type Member } from '../api/admin'
import { adminMessages } from '../messages'
import { Badge, Card, CardList, Facts, formatTime, LimitNote, panelLoad } from './panel-state'
import { SearchBox, useSearchParam } from './search-box'

/** Members with their invite, follows, ban and admin state: ban/unban, reset link, make admin. */
export function MembersPanel() {
  const search = useSearchParam()
  const query = useMembers(search)
  return (
    <div>
      <SearchBox label="Search members by email" />
      <QueryState query={query} {...panelLoad('the members')} empty={<EmptyState message={adminMessages.empty.members(search)} />}>
        {(rows) => (
          <>
            <CardList label="Members">
              {rows.map((m) => (
                <MemberRow key={m.id} member={m} />
              ))}
            </CardList>
            {rows.length >= ADMIN_LIST_LIMIT && <LimitNote text={adminMessages.limited.members(ADMIN_LIST_LIMIT)} />}
          </>
        )}
      </QueryState>
    </div>
  )
}

function MemberRow({ member: m }: { member: Member }) {
  const me = useUser()
  const toast = useToast()
  const ban = useSetBanned()
  const admin = useSetAdmin()
  const reset = useSendReset()
  const self = m.id === me.id
  const fail = (e: unknown) => toast.error(errorMessage(e))
  return (
    <Card>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h3 className="min-w-0 font-medium break-all text-zinc-900">
          {m.email}
          {self && <span className="text-zinc-500"> (you)</span>}
        </h3>
        <span className="flex flex-wrap gap-1.5">
          {m.is_admin && <Badge tone="info">admin</Badge>}
          {m.banned && <Badge tone="bad">banned</Badge>}
        </span>
      </div>
      <Facts
        items={[
          ['Joined', formatTime(m.joined_at)],
          ['Last sign-in', formatTime(m.last_sign_in_at)],
          ['Invite', m.invite_code ? `${m.invite_code}${m.invite_note ? ` (${m.invite_note})` : ''}` : '—'],
          ['Follows', String(m.follows)],
          ...(m.banned ? ([['Banned until', formatTime(m.banned_until)]] as [string, string][]) : []),
        ]}
      />
      <div className="mt-3 flex flex-wrap gap-2">
        <Button
          variant="secondary"
          size="sm"
          disabled={self || ban.isPending}
          aria-label={`${m.banned ? 'Unban' : 'Ban'} ${m.email}`}
          onClick={() =>
            ban.mutate(
              { id: m.id, banned: !m.banned },
              { onSuccess: () => toast.success(m.banned ? adminMessages.members.unbanned(m.email) : adminMessages.members.banned(m.email)), onError: fail },
            )
          }
        >
          {m.banned ? 'Unban' : 'Ban'}
        </Button>
        <Button
          variant="secondary"
          size="sm"
          disabled={reset.isPending}
          aria-label={`Send reset link to ${m.email}`}
          onClick={() => reset.mutate(m.email, { onSuccess: () => toast.success(adminMessages.members.resetSent(m.email)), onError: fail })}
        >
          Send reset link
        </Button>
        <Button
          variant="secondary"
          size="sm"
          disabled={self || admin.isPending}
          aria-label={`${m.is_admin ? 'Remove admin from' : 'Make admin'} ${m.email}`}
          onClick={() =>
            admin.mutate(
              { id: m.id, admin: !m.is_admin },
              {
                onSuccess: () => toast.success(m.is_admin ? adminMessages.members.revokedAdmin(m.email) : adminMessages.members.madeAdmin(m.email)),
                onError: fail,
              },
            )
          }
        >
          {m.is_admin ? 'Remove admin' : 'Make admin'}
        </Button>
      </div>
    </Card>
  )
}
