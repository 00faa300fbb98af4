import { useId, useState } from 'react'
import { focusRing } from '@/components/ui/button'
import { Chip } from '@/components/ui/chip'
import { inputClasses } from '@/components/ui/text-field'
import { extraMessages } from '@/config/messages'
import { cn } from '@/lib/cn'
import type { TagCount } from '../api/get-label-tags'

/** How many of the most used tags the row shows; the rest are one click away under More tags. */
export const TAG_ROW_SIZE = 12

interface TagRowProps {
  tags: readonly TagCount[]
  active: string | null
  onChange: (tag: string | null) => void
}

/**
 * The tab's most used tags, in a fixed order (by use, from the server, not from the labels on
 * screen), so the row does not reorder or move when a chip is clicked. Every other tag in use
 * is reachable through More tags, a searchable list; a tag chosen there shows in Active filters.
 */
export function TagRow({ tags, active, onChange }: TagRowProps) {
  const [open, setOpen] = useState(false)
  const [query, setQuery] = useState('')
  const listId = useId()
  if (tags.length === 0) return null
  const top = tags.slice(0, TAG_ROW_SIZE)
  const rest = tags.length - top.length
  const q = query.trim().toLowerCase()
  const matches = q ? tags.filter((t) => t.tag.toLowerCase().includes(q)) : tags
  const choose = (tag: string) => onChange(active === tag ? null : tag)

  return (
    <div className="mb-4">
      <h2 className="mb-2 text-xs font-semibold tracking-wide text-zinc-500 uppercase">Tags</h2>
      <div className="flex flex-wrap items-center gap-1.5">
        <ul aria-label="Filter by tag" className="contents">
          {top.map(({ tag }) => (
            <li key={tag}>
              <Chip active={active === tag} onClick={() => choose(tag)}>
                {tag}
              </Chip>
            </li>
          ))}
        </ul>
        {rest > 0 && (
          <button
            type="button"
            aria-expanded={open}
            aria-controls={listId}
            onClick={() => setOpen((o) => !o)}
            className={cn('rounded-full px-2.5 py-0.5 text-xs font-medium text-violet-700 hover:bg-violet-50', focusRing)}
          >
            {open ? 'Fewer tags' : `More tags (${rest})`}
          </button>
        )}
      </div>
      {open && (
        <div id={listId} className="mt-3 rounded-xl border border-zinc-200 bg-white p-3">
          <label htmlFor={`${listId}-search`} className="sr-only">
            Find a tag
          </label>
          <input
            id={`${listId}-search`}
            type="search"
            placeholder={`Find a tag (${tags.length} in use)`}
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            className={cn(inputClasses, 'mb-3 sm:max-w-xs')}
          />
          {matches.length === 0 ? (
            <p className="text-sm text-zinc-500">{extraMessages.noTagMatch(query.trim())}</p>
          ) : (
            <ul aria-label="All tags" className="flex max-h-48 flex-wrap gap-1.5 overflow-y-auto">
              {matches.map(({ tag, labels }) => (
                <li key={tag}>
                  <Chip active={active === tag} onClick={() => choose(tag)} title={`${labels} labels`}>
                    {tag}
                  </Chip>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  )
}
