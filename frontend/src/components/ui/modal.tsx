/**
 * Accessible modal dialog on the native <dialog>: showModal() puts it in the top layer and
 * makes the page behind it inert; Escape (the dialog's cancel event) and a click on the
 * backdrop close it; focus moves to the field marked data-autofocus and returns to the
 * element that opened it. It is mounted only while open, so closing removes it.
 */
import { type KeyboardEvent, type ReactNode, useEffect, useEffectEvent, useId, useRef } from 'react'
import { focusRing } from './button'
import { useToastLayer } from './toast'
import { cn } from '@/lib/cn'

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])'

interface ModalProps {
  open: boolean
  onClose: () => void
  title: string
  description?: ReactNode
  children: ReactNode
}

export function Modal(props: ModalProps) {
  return props.open ? <OpenModal {...props} /> : null
}

/**
 * Tab wraps around inside the dialog. The page behind is inert already, but without this
 * Tab from the last control leaves for the browser's own interface before coming back.
 */
function trapTab(event: KeyboardEvent<HTMLDialogElement>) {
  if (event.key !== 'Tab') return
  const items = Array.from(event.currentTarget.querySelectorAll<HTMLElement>(FOCUSABLE))
  if (items.length === 0) return
  const first = items[0]
  const last = items[items.length - 1]
  const active = document.activeElement
  if (event.shiftKey && active === first) {
    event.preventDefault()
    last.focus()
  } else if (!event.shiftKey && active === last) {
    event.preventDefault()
    first.focus()
  }
}

function OpenModal({ onClose, title, description, children }: ModalProps) {
  const titleId = useId()
  const descriptionId = useId()
  const dialogRef = useRef<HTMLDialogElement>(null)
  // The latest onClose, for the listeners the mount effect adds once.
  const close = useEffectEvent(onClose)
  // Toasts shown while the dialog is open appear above it, not under its backdrop.
  useToastLayer(dialogRef)

  useEffect(() => {
    const dialog = dialogRef.current
    if (!dialog) return
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
    // Escape fires cancel; the parent decides, so the dialog stays until it unmounts us.
    const onCancel = (event: Event) => {
      event.preventDefault()
      close()
    }
    // A browser may close without a cancel event (e.g. a second Escape): follow it.
    const onNativeClose = () => close()
    dialog.addEventListener('cancel', onCancel)
    dialog.addEventListener('close', onNativeClose)
    if (!dialog.open) dialog.showModal()
    dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus()
    const { overflow } = document.body.style
    document.body.style.overflow = 'hidden'
    return () => {
      dialog.removeEventListener('cancel', onCancel)
      dialog.removeEventListener('close', onNativeClose)
      if (dialog.open) dialog.close()
      document.body.style.overflow = overflow
      opener?.focus()
    }
  }, [])

  return (
    // The handlers on <dialog> itself are the backdrop click and the Tab trap; keyboard users
    // close with Escape (the native cancel) or the Close button.
    // eslint-disable-next-line jsx-a11y/no-noninteractive-element-interactions
    <dialog
      ref={dialogRef}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onKeyDown={trapTab}
      // A click on the dialog element itself (not its content) is a click on the backdrop.
      onClick={(event) => event.target === event.currentTarget && onClose()}
      className="mx-auto mt-auto mb-3 w-[calc(100%-1.5rem)] max-w-lg rounded-2xl bg-white p-0 text-zinc-900 shadow-2xl backdrop:bg-zinc-950/50 backdrop:backdrop-blur-sm sm:my-auto sm:w-full"
    >
      <div className="p-5 sm:p-6">
        <div className="mb-4 flex items-start justify-between gap-4">
          <div>
            <h2 id={titleId} className="text-lg font-semibold text-zinc-900">
              {title}
            </h2>
            {description && (
              <div id={descriptionId} className="mt-1 text-sm text-zinc-600">
                {description}
              </div>
            )}
          </div>
          <button type="button" onClick={onClose} aria-label="Close dialog" className={cn('-m-1 rounded-md p-1 text-zinc-400 hover:text-zinc-700', focusRing)}>
            <svg aria-hidden="true" viewBox="0 0 20 20" className="size-5" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
              <path d="M5 5l10 10M15 5L5 15" />
            </svg>
          </button>
        </div>
        {children}
      </div>
    </dialog>
  )
}
