import type { ReactNode } from 'react'
import { Skeleton } from '@/components/ui/skeleton'

/**
 * A music app's cover grid: 2 covers a row on phones, 3 on tablets, 4 at 1280 px, 5–6 on wider
 * screens (the layout's width grows with the screen there, see AppLayout).
 */
export function ReleaseGrid({ children }: { children: ReactNode }) {
  return <div className="grid grid-cols-2 gap-3 sm:grid-cols-3 sm:gap-5 lg:grid-cols-4 3xl:grid-cols-5 4xl:grid-cols-6">{children}</div>
}

export function ReleaseCardSkeleton() {
  return (
    <div className="overflow-hidden rounded-2xl border border-zinc-200 bg-white">
      <Skeleton className="aspect-square w-full rounded-none" />
      <div className="space-y-2 p-3 sm:p-4">
        <Skeleton className="h-3 w-1/2" />
        <Skeleton className="h-4 w-3/4" />
        <Skeleton className="h-3 w-1/3" />
        <Skeleton className="mt-4 h-9 w-full" />
      </div>
    </div>
  )
}
