import { useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Modal } from '@/components/ui/modal'
import { TextField } from '@/components/ui/text-field'
import { useToast } from '@/components/ui/toast'
import { TOAST_ERROR_MS, TOAST_SUBMISSION_MS, TOAST_SUCCESS_MS } from '@/config/constants'
import { extraMessages, messages } from '@/config/messages'
import { useAuth } from '@/lib/auth'
import type { ListedLabel } from '../api/submit-label'
import { useFollowListedLabel, useSubmitLabel } from '../api/use-submit-label'
import { checkLabelUrl } from '../utils/label-url'

interface SubmitLabelModalProps {
  open: boolean
  onClose: () => void
}

/** The "Submit a label" dialog: live URL validation, then the queue check and insert. */
export function SubmitLabelModal({ open, onClose }: SubmitLabelModalProps) {
  const { user } = useAuth()
  const toast = useToast()
  const [value, setValue] = useState('')
  // A label already on Labelbase at the submitted URL: said in the dialog, with Follow.
  const [listed, setListed] = useState<{ url: string; label: ListedLabel } | null>(null)
  const check = checkLabelUrl(value)
  const showError = value.trim() !== '' && !check.ok
  const shownListed = listed && check.ok && listed.url === check.url ? listed.label : null

  const close = () => {
    setValue('')
    setListed(null)
    onClose()
  }

  const submit = useSubmitLabel({
    onSuccess: (outcome, { labelUrl }) => {
      if (outcome.kind === 'already-listed') {
        setListed({ url: labelUrl, label: outcome.label })
        return
      }
      if (outcome.kind === 'already-queued') toast.info(messages.submit.alreadyQueued, TOAST_SUBMISSION_MS)
      else toast.success(messages.submit.success, TOAST_SUBMISSION_MS)
      close()
    },
    onError: () => toast.error(messages.submit.failed, TOAST_SUBMISSION_MS),
  })
  const followLabel = useFollowListedLabel({
    onSuccess: () => {
      toast.success(messages.follow.followed, TOAST_SUCCESS_MS)
      close()
    },
    onError: () => toast.error(messages.follow.failed, TOAST_ERROR_MS),
  })

  const follow = (label: ListedLabel) => {
    if (!user || followLabel.isPending) return
    followLabel.mutate({ userId: user.id, labelId: label.id })
  }

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    if (submit.isPending) return
    if (!user) {
      toast.error(messages.submit.mustBeLoggedIn, TOAST_SUBMISSION_MS)
      return
    }
    const checked = checkLabelUrl(value)
    if (!checked.ok) {
      toast.error(messages.submit.invalidAtSubmit, TOAST_SUBMISSION_MS)
      return
    }
    submit.mutate({ userId: user.id, labelUrl: checked.url })
  }

  return (
    <Modal
      open={open}
      onClose={close}
      title="Submit a label"
      description="Know a label on Bandcamp that is missing here? Submit its page; new submissions are processed every day."
    >
      <form noValidate onSubmit={onSubmit} className="space-y-4">
        <TextField
          label="Bandcamp label URL"
          name="label_url"
          type="text"
          inputMode="url"
          autoComplete="url"
          spellCheck={false}
          autoCapitalize="none"
          placeholder="https://labelname.bandcamp.com"
          value={value}
          onChange={(event) => setValue(event.target.value)}
          error={showError && !check.ok ? check.error : undefined}
          hint={check.ok ? `Will be submitted as ${check.url}` : undefined}
          data-autofocus=""
        />
        {shownListed && (
          <div
            role="status"
            className="flex flex-wrap items-center justify-between gap-3 rounded-xl border border-violet-200 bg-violet-50 px-4 py-3 text-sm text-zinc-800"
          >
            <p className="min-w-0 break-words">
              {shownListed.followed ? extraMessages.submitAlreadyFollowed(shownListed.name) : extraMessages.submitAlreadyListed(shownListed.name)}
            </p>
            {!shownListed.followed && (
              <Button size="sm" onClick={() => follow(shownListed)} disabled={followLabel.isPending}>
                {followLabel.isPending ? 'Following…' : `Follow ${shownListed.name}`}
              </Button>
            )}
          </div>
        )}
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={close}>
            Cancel
          </Button>
          <Button type="submit" disabled={submit.isPending || value.trim() === '' || shownListed !== null}>
            {submit.isPending ? 'Submitting…' : 'Submit'}
          </Button>
        </div>
      </form>
    </Modal>
  )
}

/** The button that opens the dialog, for page headers. */
export function SubmitLabelButton() {
  const [open, setOpen] = useState(false)
  return (
    <>
      <Button variant="primary" onClick={() => setOpen(true)} aria-haspopup="dialog">
        <svg aria-hidden="true" viewBox="0 0 20 20" className="size-4" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
          <path d="M10 4v12M4 10h12" />
        </svg>
        Submit a label
      </Button>
      <SubmitLabelModal open={open} onClose={() => setOpen(false)} />
    </>
  )
}
