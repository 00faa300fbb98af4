import { QueryClientProvider, type DefaultOptions } from '@tanstack/react-query'
import { useState, type ReactNode } from 'react'
import { ToastProvider, useToast } from '@/components/ui/toast'
import { TOAST_ERROR_MS } from '@/config/constants'
import { AuthProvider } from '@/lib/auth'
import { createQueryClient } from '@/lib/query-client'

/** The query cache, reporting load errors as error toasts; `defaults` lets tests turn retries off. */
export function QueryProvider({ children, defaults }: { children: ReactNode; defaults?: DefaultOptions }) {
  const toast = useToast()
  const [client] = useState(() => createQueryClient((message) => toast.error(message, TOAST_ERROR_MS), defaults))
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>
}

export function AppProvider({ children }: { children: ReactNode }) {
  return (
    <ToastProvider>
      <QueryProvider>
        <AuthProvider>{children}</AuthProvider>
      </QueryProvider>
    </ToastProvider>
  )
}
