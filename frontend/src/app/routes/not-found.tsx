import { Link } from 'react-router'
import { buttonClasses } from '@/components/ui/button'
import { extraMessages } from '@/config/messages'
import { paths } from '@/config/paths'
import { cn } from '@/lib/cn'
import { useDocumentTitle } from '@/hooks/use-document-title'

export default function NotFoundRoute() {
  useDocumentTitle('Page Not Found')
  return (
    <div className="mx-auto flex max-w-md flex-col items-center py-16 text-center">
      <p className="text-6xl font-black text-zinc-500">404</p>
      <h1 className="mt-4 text-2xl font-bold text-zinc-900">Page Not Found</h1>
      <p className="mt-2 text-zinc-600">{extraMessages.notFound}</p>
      <Link to={paths.home.getHref()} className={cn(buttonClasses('primary'), 'mt-6')}>
        Go home
      </Link>
    </div>
  )
}
