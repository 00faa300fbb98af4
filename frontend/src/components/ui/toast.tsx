/**
 * A small toast system: one live region, success/info toasts as role=status and errors as
 * role=alert, each dismissed after its duration (paused while pointed at or focused) or by its
 * close button. A toast may carry one action (Undo).
 *
 * - Identical toasts do not stack: showing a message already on screen restarts that toast.
 * - An open native <dialog> is in the browser's top layer and makes the page behind it inert,
 *   so a region outside it would be painted under its backdrop and could not be clicked. While
 *   a dialog is open (see useToastLayer) the region is rendered inside it instead.
 * - On a phone (narrow screen) a toast must not cover the control just pressed: the region
 *   goes to the half of the screen away from the last press.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, useSyncExternalStore, type ReactNode, type RefObject } from 'react'
import { createPortal } from 'react-dom'
import { TOAST_DEFAULT_MS } from '@/config/constants'
import { cn } from '@/lib/cn'

export type ToastKind = 'success' | 'error' | 'info'

export interface ToastAction {
  label: string
  onClick: () => void
}

interface ToastItem {
  id: number
  kind: ToastKind
  message: string
  durationMs: number
  action?: ToastAction
}

export interface ToastApi {
  success: (message: string, durationMs?: number, action?: ToastAction) => void
  error: (message: string, durationMs?: number) => void
  info: (message: string, durationMs?: number) => void
}

const ToastContext = createContext<ToastApi | null>(null)

/** Registers the open dialogs the toasts render into, innermost last. */
const LayerContext = createContext<((element: HTMLElement) => () => void) | null>(null)

/** Phones: below this width toasts span the screen and must keep clear of the last press. */
const NARROW_QUERY = '(max-width: 639px)'

const kindStyles: Record<ToastKind, string> = {
  success: 'border-emerald-200 bg-white text-zinc-900 [&_svg]:text-emerald-600',
  error: 'border-red-200 bg-white text-zinc-900 [&_svg]:text-red-600',
  info: 'border-violet-200 bg-white text-zinc-900 [&_svg]:text-violet-600',
}

function ToastIcon({ kind }: { kind: ToastKind }) {
  const path =
    kind === 'success'
      ? 'M5 10.5l3 3 7-7'
      : kind === 'error'
        ? 'M10 6v5m0 3h.01M10 2a8 8 0 100 16 8 8 0 000-16z'
        : 'M10 9v5m0-8h.01M10 2a8 8 0 100 16 8 8 0 000-16z'
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 20 20"
      className="mt-0.5 size-5 shrink-0"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d={path} />
    </svg>
  )
}

function Toast({ item, onDismiss }: { item: ToastItem; onDismiss: (id: number) => void }) {
  // Paused while the pointer is on it or focus is in it, so its action can be reached.
  const [held, setHeld] = useState(false)
  useEffect(() => {
    if (held) return
    const timer = setTimeout(() => onDismiss(item.id), item.durationMs)
    return () => clearTimeout(timer)
  }, [item.id, item.durationMs, onDismiss, held])

  return (
    <div
      role={item.kind === 'error' ? 'alert' : 'status'}
      data-toast={item.kind}
      onPointerEnter={() => setHeld(true)}
      onPointerLeave={() => setHeld(false)}
      onFocus={() => setHeld(true)}
      onBlur={() => setHeld(false)}
      className={cn(
        'pointer-events-auto flex w-full items-start gap-3 rounded-xl border px-4 py-3 text-sm shadow-lg shadow-zinc-900/10',
        kindStyles[item.kind],
      )}
    >
      <ToastIcon kind={item.kind} />
      <p className="min-w-0 flex-1 break-words">{item.message}</p>
      {item.action && (
        <button
          type="button"
          onClick={() => {
            item.action?.onClick()
            onDismiss(item.id)
          }}
          className="-my-1 rounded-md px-2 py-1 font-semibold text-violet-700 hover:bg-violet-50 focus-visible:outline-2 focus-visible:outline-violet-600"
        >
          {item.action.label}
        </button>
      )}
      <button
        type="button"
        onClick={() => onDismiss(item.id)}
        aria-label="Dismiss notification"
        className="-m-1 rounded-md p-1 text-zinc-400 hover:text-zinc-700 focus-visible:outline-2 focus-visible:outline-violet-600"
      >
        <svg aria-hidden="true" viewBox="0 0 20 20" className="size-4" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
          <path d="M5 5l10 10M15 5L5 15" />
        </svg>
      </button>
    </div>
  )
}

function subscribeNarrow(onChange: () => void) {
  if (typeof window.matchMedia !== 'function') return () => {}
  const query = window.matchMedia(NARROW_QUERY)
  query.addEventListener('change', onChange)
  return () => query.removeEventListener('change', onChange)
}
const isNarrow = () => typeof window.matchMedia === 'function' && window.matchMedia(NARROW_QUERY).matches

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<ToastItem[]>([])
  const [layers, setLayers] = useState<HTMLElement[]>([])
  const [edge, setEdge] = useState<'top' | 'bottom'>('bottom')
  const narrow = useSyncExternalStore(subscribeNarrow, isNarrow, () => false)
  const nextId = useRef(1)
  const lastPressY = useRef<number | null>(null)

  useEffect(() => {
    const onPress = (event: PointerEvent) => {
      lastPressY.current = event.clientY
    }
    document.addEventListener('pointerdown', onPress, true)
    return () => document.removeEventListener('pointerdown', onPress, true)
  }, [])

  const dismiss = useCallback((id: number) => setToasts((list) => list.filter((t) => t.id !== id)), [])
  const show = useCallback((kind: ToastKind, message: string, durationMs = TOAST_DEFAULT_MS, action?: ToastAction) => {
    const id = nextId.current++
    // A press in the lower half of a phone's screen puts the toasts at the top, and the other way round.
    const y = lastPressY.current
    setEdge(y !== null && y > window.innerHeight / 2 ? 'top' : 'bottom')
    // The same message again replaces the one on screen (a new id restarts its timer).
    setToasts((list) => [...list.filter((t) => t.kind !== kind || t.message !== message).slice(-4), { id, kind, message, durationMs, action }])
  }, [])

  const api = useMemo<ToastApi>(
    () => ({
      success: (message, ms, action) => show('success', message, ms, action),
      error: (message, ms) => show('error', message, ms),
      info: (message, ms) => show('info', message, ms),
    }),
    [show],
  )

  const register = useCallback((element: HTMLElement) => {
    setLayers((list) => [...list, element])
    return () => setLayers((list) => list.filter((e) => e !== element))
  }, [])

  const top = narrow && edge === 'top'
  const region = (
    <div
      role="region"
      aria-label="Notifications"
      data-edge={top ? 'top' : 'bottom'}
      className={cn(
        'pointer-events-none fixed inset-x-3 z-[60] m-0 flex flex-col items-stretch gap-2 border-0 bg-transparent p-0 sm:inset-x-auto sm:top-auto sm:right-4 sm:bottom-4 sm:w-96',
        top ? 'top-3' : 'bottom-3',
      )}
    >
      {toasts.map((item) => (
        <Toast key={item.id} item={item} onDismiss={dismiss} />
      ))}
    </div>
  )
  const layer = layers.at(-1)

  return (
    <ToastContext.Provider value={api}>
      <LayerContext.Provider value={register}>
        {children}
        {layer ? createPortal(region, layer) : region}
      </LayerContext.Provider>
    </ToastContext.Provider>
  )
}

/** Renders the toasts inside `ref`'s element (an open modal <dialog>) while the caller is mounted. */
export function useToastLayer(ref: RefObject<HTMLElement | null>) {
  const register = useContext(LayerContext)
  useEffect(() => {
    const element = ref.current
    if (!register || !element) return
    return register(element)
  }, [register, ref])
}

export function useToast(): ToastApi {
  const api = useContext(ToastContext)
  if (!api) throw new Error('useToast must be used inside ToastProvider')
  return api
}
