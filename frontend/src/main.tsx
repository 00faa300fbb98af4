import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from '@/app/app'
import { ConfigErrorPage } from '@/components/errors/config-error'
import { ConfigError, getEnv } from '@/config/env'
import { paths } from '@/config/paths'
import { prefetchLatestReleases } from '@/features/releases'
import { loadAnalytics } from '@/lib/analytics'
import { appQueryClient } from '@/lib/query-client'
import './index.css'

const root = createRoot(document.getElementById('root')!)

try {
  const env = getEnv()
  loadAnalytics(env.analyticsScript)
  const queryClient = appQueryClient()
  // A cold load of the feed asks for its data now, not after React has rendered the route.
  if (window.location.pathname === paths.home.path) void prefetchLatestReleases(queryClient)
  root.render(
    <StrictMode>
      <App queryClient={queryClient} />
    </StrictMode>,
  )
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  console.error(error.message)
  root.render(<ConfigErrorPage message={error.message} />)
}
