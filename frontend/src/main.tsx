import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from '@/app/app'
import { ConfigErrorPage } from '@/components/errors/config-error'
import { ConfigError, getEnv } from '@/config/env'
import { loadAnalytics } from '@/lib/analytics'
import './index.css'

const root = createRoot(document.getElementById('root')!)

try {
  const env = getEnv()
  loadAnalytics(env.analyticsScript)
  root.render(
    <StrictMode>
      <App />
    </StrictMode>,
  )
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  console.error(error.message)
  root.render(<ConfigErrorPage message={error.message} />)
}
