import { useId, useRef, useState } from 'react'
import { Button } from '@/components/ui/button'
import { useToast } from '@/components/ui/toast'
import { AVATAR_MIME_TYPES, TOAST_ERROR_MS } from '@/config/constants'
import { extraMessages } from '@/config/messages'
import { useUser } from '@/lib/auth'
import { messageFor } from '@/lib/errors'
import { avatarProblem, useAvatarUrl, useRemoveAvatar, useUploadAvatar } from '../api/avatar'

/** The account page's picture: choose a file (checked here and by the bucket), replace or remove it. */
export function AvatarSection() {
  const user = useUser()
  const toast = useToast()
  const inputId = useId()
  const input = useRef<HTMLInputElement>(null)
  const [problem, setProblem] = useState<string | null>(null)
  const avatar = useAvatarUrl(user.id)
  const upload = useUploadAvatar(user.id, {
    onSuccess: () => toast.success(extraMessages.avatar.uploaded),
    onError: (error) => setProblem(messageFor(error, extraMessages.avatar.uploadFailed)),
  })
  const remove = useRemoveAvatar(user.id, {
    onSuccess: () => toast.success(extraMessages.avatar.removed),
    onError: (error) => toast.error(messageFor(error, extraMessages.avatar.removeFailed), TOAST_ERROR_MS),
  })

  const onChoose = (file: File | undefined) => {
    if (input.current) input.current.value = ''
    if (!file) return
    const reason = avatarProblem(file)
    setProblem(reason)
    if (!reason) upload.mutate(file)
  }

  const url = avatar.data ?? null
  const busy = upload.isPending || remove.isPending
  return (
    <section aria-labelledby="avatar-heading" className="rounded-2xl border border-zinc-200 bg-white p-6 shadow-sm sm:p-8">
      <h2 id="avatar-heading" className="text-lg font-semibold text-zinc-900">
        Picture
      </h2>
      <p className="mt-1 text-sm text-zinc-600">Shown next to your email in the menu. JPEG, PNG or WebP, up to 2 MB; it is cropped to a square.</p>
      <div className="mt-6 flex flex-wrap items-center gap-4">
        {url ? (
          <img src={url} alt="Your avatar" className="size-24 rounded-full border border-zinc-200 object-cover" />
        ) : (
          <span aria-hidden="true" className="flex size-24 items-center justify-center rounded-full bg-violet-600 text-3xl font-bold text-white uppercase">
            {user.email.slice(0, 1)}
          </span>
        )}
        <div className="flex flex-wrap gap-2">
          <label htmlFor={inputId} className="sr-only">
            Choose a picture
          </label>
          <input
            id={inputId}
            ref={input}
            type="file"
            accept={AVATAR_MIME_TYPES.join(',')}
            className="sr-only"
            aria-describedby={problem ? `${inputId}-problem` : undefined}
            onChange={(event) => onChoose(event.target.files?.[0])}
          />
          <Button onClick={() => input.current?.click()} disabled={busy}>
            {upload.isPending ? 'Uploading…' : url ? 'Replace picture' : 'Upload picture'}
          </Button>
          {url && (
            <Button variant="secondary" onClick={() => remove.mutate()} disabled={busy}>
              {remove.isPending ? 'Removing…' : 'Remove'}
            </Button>
          )}
        </div>
      </div>
      {problem && (
        <p id={`${inputId}-problem`} role="alert" className="mt-3 text-sm text-red-700">
          {problem}
        </p>
      )}
    </section>
  )
}
