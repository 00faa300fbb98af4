import { Outlet } from 'react-router'
import { NavBar } from './nav-bar'

/** The page frame; avatarUrl is passed to the header (the app layer reads it, components do not import features). */
export function AppLayout({ avatarUrl = null }: { avatarUrl?: string | null }) {
  return (
    <div className="flex min-h-dvh flex-col">
      <a
        href="#main"
        className="sr-only z-50 rounded-lg bg-white px-4 py-2 focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:outline-2 focus:outline-violet-600"
      >
        Skip to content
      </a>
      <NavBar avatarUrl={avatarUrl} />
      <main id="main" tabIndex={-1} className="mx-auto w-full max-w-7xl flex-1 px-4 py-6 outline-none sm:px-6 sm:py-10 3xl:max-w-[1520px] 4xl:max-w-[1800px]">
        <Outlet />
      </main>
      <footer className="border-t border-zinc-200 py-6 text-center text-xs text-zinc-500">Labelbase · follow the labels you love</footer>
    </div>
  )
}
