import { useId } from 'react'
import { inputClasses } from '@/components/ui/text-field'
import { COLLECTION_SEARCH_DEBOUNCE_MS } from '@/config/constants'
import { useDebouncedCallback } from '@/hooks/use-debounced-callback'
import { useSearchParamState } from '@/hooks/use-search-param-state'
import { useSyncedInput } from '@/hooks/use-synced-input'
import { cn } from '@/lib/cn'

/** The panel's search in ?q=, applied a moment after typing stops (like the member screens). */
export function useSearchParam(): string {
  const [params] = useSearchParamState()
  return params.get('q') ?? ''
}

export function SearchBox({ label }: { label: string }) {
  const id = useId()
  const [params, setParams] = useSearchParamState()
  const [text, setText] = useSyncedInput(params.get('q') ?? '')
  const apply = useDebouncedCallback((value: string) => setParams({ q: value.trim() }, { replace: true }), COLLECTION_SEARCH_DEBOUNCE_MS)
  return (
    <div className="mb-4 w-full sm:w-80">
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <input
        id={id}
        type="search"
        value={text}
        placeholder={label}
        onChange={(event) => {
          setText(event.target.value)
          apply(event.target.value)
        }}
        className={cn(inputClasses)}
      />
    </div>
  )
}
