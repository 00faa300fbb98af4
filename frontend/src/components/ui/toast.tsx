/**
 * A small toast system: one live region, success/info toasts as role=status and errors as
 * role=alert, each dismissed after its duration or by its close button.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react'
import { TOAST_DEFAULT_MS } from '@/config/constants'
import { cn } from '@/lib/cn'

export type ToastKind = 'success' | 'error' | 'info'

interface ToastItem {
  id: number
  kind: ToastKind
  message: string
  durationMs: number
}

export interface ToastApi {
  success: (message: string, durationMs?: number) => void
  error: (message: string, durationMs?: number) => void
  info: (message: string, durationMs?: number) => void
}

const ToastContext = createContext<ToastApi | null>(null)

const kindStyles: Record<ToastKind, string> = {
  success: 'border-emerald-200 bg-white text-zinc-900 [&_svg]:text-emerald-600',
  error: 'border-red-200 bg-white text-zinc-900 [&_svg]:text-red-600',
  info: 'border-sky-200 bg-white text-zinc-900 [&_svg]:text-sky-600',
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
  useEffect(() => {
    const timer = setTimeout(() => onDismiss(item.id), item.durationMs)
    return () => clearTimeout(timer)
  }, [item.id, item.durationMs, onDismiss])

  return (
    <div
      role={item.kind === 'error' ? 'alert' : 'status'}
      data-toast={item.kind}
      className={cn(
        'pointer-events-auto flex w-full items-start gap-3 rounded-xl border px-4 py-3 text-sm shadow-lg shadow-zinc-900/10',
        kindStyles[item.kind],
      )}
    >
      <ToastIcon kind={item.kind} />
      <p className="min-w-0 flex-1 break-words">{item.message}</p>
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

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<ToastItem[]>([])
  const nextId = useRef(1)

  const dismiss = useCallback((id: number) => setToasts((list) => list.filter((t) => t.id !== id)), [])
  const show = useCallback((kind: ToastKind, message: string, durationMs = TOAST_DEFAULT_MS) => {
    const id = nextId.current++
    setToasts((list) => [...list.slice(-4), { id, kind, message, durationMs }])
  }, [])

  const api = useMemo<ToastApi>(
    () => ({
      success: (message, ms) => show('success', message, ms),
      error: (message, ms) => show('error', message, ms),
      info: (message, ms) => show('info', message, ms),
    }),
    [show],
  )

  return (
    <ToastContext.Provider value={api}>
      {children}
      <div
        role="region"
        aria-label="Notifications"
        className="pointer-events-none fixed inset-x-3 bottom-3 z-[60] flex flex-col items-stretch gap-2 sm:inset-x-auto sm:right-4 sm:bottom-4 sm:w-96"
      >
        {toasts.map((item) => (
          <Toast key={item.id} item={item} onDismiss={dismiss} />
        ))}
      </div>
    </ToastContext.Provider>
  )
}

export function useToast(): ToastApi {
  const api = useContext(ToastContext)
  if (!api) throw new Error('useToast must be used inside ToastProvider')
  return api
}
