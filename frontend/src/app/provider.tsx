import type { ReactNode } from 'react'
import { ToastProvider } from '@/components/ui/toast'
import { AuthProvider } from '@/lib/auth'

export function AppProvider({ children }: { children: ReactNode }) {
  return (
    <ToastProvider>
      <AuthProvider>{children}</AuthProvider>
    </ToastProvider>
  )
}
