import { useEffect } from 'react'
import { Link, useRouteError } from 'react-router'
import { Button, buttonClasses } from '@/components/ui/button'
import { extraMessages } from '@/config/messages'
import { paths } from '@/config/paths'
import { useDocumentTitle } from '@/hooks/use-document-title'
import { cn } from '@/lib/cn'

/**
 * What a route shows instead of crashing the app when it throws while rendering or its code
 * fails to load (e.g. a chunk gone after a deploy, which a reload fixes). The navigation bar
 * stays, so the user can go elsewhere too.
 */
export function RouteError() {
  const error = useRouteError()
  useDocumentTitle(extraMessages.routeErrorTitle)
  useEffect(() => console.error('route error:', error), [error])
  return (
    <div role="alert" className="mx-auto flex max-w-md flex-col items-center py-16 text-center">
      <svg aria-hidden="true" viewBox="0 0 24 24" className="size-14 text-zinc-400" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round">
        <circle cx="12" cy="12" r="9" />
        <path d="M12 7.5v5.5M12 16.5h.01" />
      </svg>
      <h1 className="mt-4 text-2xl font-bold text-zinc-900">{extraMessages.routeErrorTitle}</h1>
      <p className="mt-2 text-zinc-600">{extraMessages.routeError}</p>
      <div className="mt-6 flex flex-wrap justify-center gap-3">
        <Button onClick={() => window.location.reload()}>Reload Page</Button>
        <Link to={paths.home.getHref()} className={cn(buttonClasses('secondary'))}>
          Go home
        </Link>
      </div>
    </div>
  )
}

/** The same page for a failure of the layout itself, which then cannot frame it. */
export function RootError() {
  return (
    <main className="px-4 py-10">
      <RouteError />
    </main>
  )
}
