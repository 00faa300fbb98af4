import { QueryClientProvider, type DefaultOptions, type QueryClient } from '@tanstack/react-query'
import { useEffect, useState, type ReactNode } from 'react'
import { ToastProvider, useToast } from '@/components/ui/toast'
import { TOAST_ERROR_MS } from '@/config/constants'
import { AuthProvider } from '@/lib/auth'
import { createQueryClient, setLoadErrorReporter } from '@/lib/query-client'

/**
 * The query cache, reporting load errors as error toasts. The app passes its one client (made
 * before render, see main.tsx); without `client` a fresh one is made, with `defaults` (tests
 * turn retries off).
 */
export function QueryProvider({ children, defaults, client }: { children: ReactNode; defaults?: DefaultOptions; client?: QueryClient }) {
  const toast = useToast()
  const [queryClient] = useState(() => client ?? createQueryClient((message) => toast.error(message, TOAST_ERROR_MS), defaults))
  useEffect(() => {
    if (!client) return
    setLoadErrorReporter((message) => toast.error(message, TOAST_ERROR_MS))
    return () => setLoadErrorReporter(() => {})
  }, [client, toast])
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
}

export function AppProvider({ children, queryClient }: { children: ReactNode; queryClient?: QueryClient }) {
  return (
    <ToastProvider>
      <QueryProvider client={queryClient}>
        <AuthProvider>{children}</AuthProvider>
      </QueryProvider>
    </ToastProvider>
  )
}
