import { cn } from '@/lib/cn'

export function Skeleton({ className }: { className?: string }) {
  return <div aria-hidden="true" data-skeleton="" className={cn('animate-pulse rounded-lg bg-zinc-200', className)} />
}
