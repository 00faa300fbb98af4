import { messages } from './messages'

/** What the gateway injects into index.html in place of `<!--labelbase:runtime-config-->`. */
export interface RuntimeConfig {
  anonKey?: string
  analyticsScript?: string
}

declare global {
  interface Window {
    __LABELBASE__?: RuntimeConfig
  }
}

export interface Env {
  supabaseUrl: string
  anonKey: string
  /** URL of an analytics script to load deferred, or '' when analytics is off. */
  analyticsScript: string
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ConfigError'
  }
}

interface EnvSources {
  viteUrl?: string
  viteAnonKey?: string
  viteAnalytics?: string
  runtime?: RuntimeConfig
  origin: string
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === 'https:' || url.protocol === 'http:'
  } catch {
    return false
  }
}

/**
 * Resolves the configuration from build-time variables first, then from the runtime config,
 * so one build serves any deployment. Throws ConfigError when no anon key is available.
 */
export function resolveEnv(sources: EnvSources): Env {
  const supabaseUrl = nonEmpty(sources.viteUrl) ?? sources.origin
  const anonKey = nonEmpty(sources.viteAnonKey) ?? nonEmpty(sources.runtime?.anonKey)
  if (!anonKey) throw new ConfigError(messages.config.missingAnonKey)
  const analytics = nonEmpty(sources.viteAnalytics) ?? nonEmpty(sources.runtime?.analyticsScript) ?? ''
  return { supabaseUrl, anonKey, analyticsScript: analytics && isHttpUrl(analytics) ? analytics : '' }
}

let cached: Env | undefined

/** The app's configuration, resolved once. */
export function getEnv(): Env {
  cached ??= resolveEnv({
    viteUrl: import.meta.env.VITE_SUPABASE_URL,
    viteAnonKey: import.meta.env.VITE_SUPABASE_ANON_KEY,
    viteAnalytics: import.meta.env.VITE_ANALYTICS_SCRIPT,
    runtime: window.__LABELBASE__,
    origin: window.location.origin,
  })
  return cached
}
