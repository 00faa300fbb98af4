import { useState } from 'react'
import { Button } from '@/components/ui/button'
import { Modal } from '@/components/ui/modal'
import { PageHeader } from '@/components/ui/page-header'
import { QueryState } from '@/components/ui/query-state'
import { Skeleton } from '@/components/ui/skeleton'
import { useToast } from '@/components/ui/toast'
import { TOAST_ERROR_MS } from '@/config/constants'
import { extraMessages } from '@/config/messages'
import { useUser } from '@/lib/auth'
import { messageFor } from '@/lib/errors'
import { cancelTotpSetup, useRemoveTotp, useStartTotpSetup, useTotpFactors, type TotpEnrollment } from '../api/mfa'
import { TotpSetup } from './totp-setup'

const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium' })

/** Account security: turn two-factor authentication (an authenticator app) on or off. */
export function SecurityPage() {
  const user = useUser()
  const toast = useToast()
  const factors = useTotpFactors(user.id)
  const [enrollment, setEnrollment] = useState<TotpEnrollment | null>(null)
  const [confirming, setConfirming] = useState(false)
  const verified = factors.data?.find((f) => f.status === 'verified')
  const remove = useRemoveTotp(user.id, {
    onSuccess: () => toast.success(extraMessages.mfa.removed),
    onError: (error) => toast.error(messageFor(error, extraMessages.mfa.removeFailed), TOAST_ERROR_MS),
    onSettled: () => setConfirming(false),
  })
  const setup = useStartTotpSetup({
    onSuccess: setEnrollment,
    onError: (error) => toast.error(messageFor(error, extraMessages.mfa.setupFailed), TOAST_ERROR_MS),
  })

  const start = () => setup.mutate(factors.data?.filter((f) => f.status === 'unverified') ?? [])

  const finish = () => {
    setEnrollment(null)
    void factors.refetch()
  }

  // An abandoned setup is removed at once; the server would drop it after five minutes.
  const cancel = () => {
    if (enrollment) void cancelTotpSetup(enrollment.factorId)
    setEnrollment(null)
  }

  const onRemove = () => {
    if (verified) remove.mutate(verified.id)
  }

  return (
    <div className="mx-auto max-w-2xl">
      <PageHeader title="Security" subtitle={`Signed in as ${user.email}`} />
      <section aria-labelledby="totp-heading" className="rounded-2xl border border-zinc-200 bg-white p-6 shadow-sm sm:p-8">
        <div className="flex items-start justify-between gap-3">
          <div className="min-w-0">
            <h2 id="totp-heading" className="text-lg font-semibold text-zinc-900">
              Two-factor authentication
            </h2>
            <p className="mt-1 text-sm text-zinc-600">After your password, sign-in asks for a code from an authenticator app on your phone.</p>
          </div>
          {factors.isSuccess && (
            <span
              className={
                verified
                  ? 'rounded-full bg-emerald-100 px-3 py-1 text-xs font-semibold text-emerald-800'
                  : 'rounded-full bg-zinc-100 px-3 py-1 text-xs font-semibold text-zinc-700'
              }
            >
              {verified ? 'On' : 'Off'}
            </span>
          )}
        </div>
        <div className="mt-6">
          <QueryState query={factors} compact loading={<Skeleton className="h-10 w-56" />} errorMessage={extraMessages.mfa.loadFailed}>
            {() =>
              verified ? (
                <div className="flex flex-wrap items-center justify-between gap-3">
                  <p className="text-sm text-zinc-700">
                    <span className="font-medium text-zinc-900">{verified.friendlyName || 'Authenticator app'}</span>, added{' '}
                    {dateFormat.format(new Date(verified.createdAt))}
                  </p>
                  <Button variant="secondary" onClick={() => setConfirming(true)}>
                    Remove
                  </Button>
                </div>
              ) : enrollment ? (
                <TotpSetup enrollment={enrollment} onDone={finish} onCancel={cancel} />
              ) : (
                <div className="space-y-3">
                  <p className="text-sm text-zinc-600">Once it is on, devices signed in with your password alone are signed out.</p>
                  <Button onClick={start} disabled={setup.isPending}>
                    {setup.isPending ? 'Preparing…' : 'Set up authenticator app'}
                  </Button>
                </div>
              )
            }
          </QueryState>
        </div>
      </section>
      <Modal
        open={confirming}
        onClose={() => setConfirming(false)}
        title="Remove the authenticator app?"
        description="Sign-in will ask for your password only. You can set up an app again at any time."
      >
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={() => setConfirming(false)} data-autofocus>
            Keep it
          </Button>
          <Button onClick={onRemove} disabled={remove.isPending}>
            {remove.isPending ? 'Removing…' : 'Remove'}
          </Button>
        </div>
      </Modal>
    </div>
  )
}
