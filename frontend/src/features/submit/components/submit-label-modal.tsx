import { useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Modal } from '@/components/ui/modal'
import { TextField } from '@/components/ui/text-field'
import { useToast } from '@/components/ui/toast'
import { TOAST_SUBMISSION_MS } from '@/config/constants'
import { messages } from '@/config/messages'
import { useAuth } from '@/lib/auth'
import { submitLabel } from '../api/submit-label'
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
  const [submitting, setSubmitting] = useState(false)
  const check = checkLabelUrl(value)
  const showError = value.trim() !== '' && !check.ok

  const close = () => {
    setValue('')
    onClose()
  }

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault()
    if (submitting) return
    if (!user) {
      toast.error(messages.submit.mustBeLoggedIn, TOAST_SUBMISSION_MS)
      return
    }
    const checked = checkLabelUrl(value)
    if (!checked.ok) {
      toast.error(messages.submit.invalidAtSubmit, TOAST_SUBMISSION_MS)
      return
    }
    setSubmitting(true)
    try {
      const outcome = await submitLabel(user.id, checked.url)
      if (outcome === 'failed') {
        toast.error(messages.submit.failed, TOAST_SUBMISSION_MS)
        return
      }
      if (outcome === 'already-queued') toast.info(messages.submit.alreadyQueued, TOAST_SUBMISSION_MS)
      else toast.success(messages.submit.success, TOAST_SUBMISSION_MS)
      close()
    } catch {
      toast.error(messages.submit.failed, TOAST_SUBMISSION_MS)
    } finally {
      setSubmitting(false)
    }
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
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={close}>
            Cancel
          </Button>
          <Button type="submit" disabled={submitting || value.trim() === ''}>
            {submitting ? 'Submitting…' : 'Submit'}
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
