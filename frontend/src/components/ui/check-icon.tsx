import { cn } from '@/lib/cn'

/** The check mark of "listened" states; decorative (the control around it carries the name). */
export function CheckIcon({ className }: { className?: string }) {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 20 20"
      className={cn('size-4', className)}
      fill="none"
      stroke="currentColor"
      strokeWidth="2.5"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d="M5 10.5l3 3 7-7" />
    </svg>
  )
}
