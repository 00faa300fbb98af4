import { focusRing } from '@/components/ui/button'
import { Chip } from '@/components/ui/chip'
import { cn } from '@/lib/cn'
import type { Label } from '@/types/api'

interface LabelCardProps {
  label: Label
  followed: boolean
  saving: boolean
  error?: string
  activeTag: string | null
  /** The card just left the list (followed in Discover): it fades out. */
  leaving?: boolean
  onToggleFollow: () => void
  onTagClick: (tag: string) => void
}

function displayName(label: Label): string {
  if (label.label_name) return label.label_name
  try {
    return new URL(label.label_url).host
  } catch {
    return label.label_url
  }
}

export function LabelCard({ label, followed, saving, error, activeTag, leaving, onToggleFollow, onTagClick }: LabelCardProps) {
  const name = displayName(label)
  return (
    <article
      aria-label={name}
      aria-hidden={leaving || undefined}
      data-label-id={label.id}
      data-leaving={leaving || undefined}
      inert={leaving}
      className={cn(
        'flex min-w-0 flex-col gap-3 rounded-2xl border border-zinc-200 bg-white p-4 shadow-sm transition-[opacity,scale] duration-200 ease-out motion-reduce:transition-none',
        leaving && 'pointer-events-none scale-95 opacity-0',
      )}
    >
      <div className="flex items-start justify-between gap-3">
        <div className="flex min-w-0 items-center gap-3">
          <span
            aria-hidden="true"
            style={{ background: `linear-gradient(135deg, hsl(${(label.id * 47) % 360} 70% 55%), hsl(${(label.id * 47 + 50) % 360} 65% 40%))` }}
            className="flex size-10 shrink-0 items-center justify-center rounded-xl text-sm font-bold text-white uppercase"
          >
            {name.slice(0, 1)}
          </span>
          <h3 className="min-w-0 font-semibold text-zinc-900">
            <a
              href={label.label_url}
              target="_blank"
              rel="noopener noreferrer"
              title={name}
              className={cn('line-clamp-2 rounded-sm break-words hover:underline', focusRing)}
            >
              {name}
            </a>
          </h3>
        </div>
      </div>
      {label.tags.length > 0 && (
        <ul aria-label="Tags" className="flex flex-wrap gap-1.5">
          {label.tags.map((tag) => (
            <li key={tag} className="max-w-full">
              <Chip active={activeTag === tag} onClick={() => onTagClick(tag)} aria-label={`Filter by tag ${tag}`}>
                {tag}
              </Chip>
            </li>
          ))}
        </ul>
      )}
      <div className="mt-auto">
        {/* The name stays "Follow" and aria-pressed tells the state, so a screen reader does not
            hear a new name and a new state at once; the text shows Follow / Following (SPEC §2). */}
        {/* Followed: a quiet "Following" that offers Unfollow on hover and focus, instead of
            a wall of solid buttons down the Following tab. */}
        <button
          type="button"
          aria-label="Follow"
          aria-pressed={followed}
          aria-busy={saving || undefined}
          data-saving={saving || undefined}
          onClick={onToggleFollow}
          className={cn(
            'group/follow w-full rounded-lg px-3 py-2 text-sm font-medium transition-colors',
            followed
              ? 'border border-zinc-200 bg-zinc-50 text-zinc-700 hover:border-red-200 hover:bg-red-50 hover:text-red-700 focus-visible:border-red-200 focus-visible:bg-red-50 focus-visible:text-red-700'
              : 'bg-zinc-900 text-white hover:bg-zinc-700',
            saving && 'cursor-progress opacity-70',
            focusRing,
          )}
        >
          {followed ? (
            <>
              <span className="inline-flex items-center gap-1.5 group-hover/follow:hidden group-focus-visible/follow:hidden">
                <svg aria-hidden="true" viewBox="0 0 20 20" className="size-4 text-emerald-600" fill="none" stroke="currentColor" strokeWidth="2.2">
                  <path d="M5 10.5l3 3 7-7" strokeLinecap="round" strokeLinejoin="round" />
                </svg>
                Following
              </span>
              <span className="hidden group-hover/follow:inline group-focus-visible/follow:inline">Unfollow</span>
            </>
          ) : (
            'Follow'
          )}
        </button>
        {error && (
          <p role="alert" className="mt-2 text-sm text-red-600">
            {error}
          </p>
        )}
      </div>
    </article>
  )
}
