import { describe, expect, it } from 'vitest'
import { ConfigError, resolveEnv } from './env'

const origin = 'https://app.example.test'

describe('resolveEnv', () => {
  it('uses the page origin and the injected runtime config by default', () => {
    expect(resolveEnv({ origin, runtime: { anonKey: 'anon-runtime', analyticsScript: '' } })).toEqual({
      supabaseUrl: origin,
      anonKey: 'anon-runtime',
      analyticsScript: '',
    })
  })

  it('prefers build-time variables', () => {
    const env = resolveEnv({
      origin,
      viteUrl: 'https://project.supabase.co',
      viteAnonKey: 'anon-build',
      viteAnalytics: 'https://stats.example.test/script.js',
      runtime: { anonKey: 'anon-runtime', analyticsScript: 'https://other.example.test/a.js' },
    })
    expect(env).toEqual({
      supabaseUrl: 'https://project.supabase.co',
      anonKey: 'anon-build',
      analyticsScript: 'https://stats.example.test/script.js',
    })
  })

  it('ignores an analytics value that is not an http(s) URL', () => {
    expect(resolveEnv({ origin, runtime: { anonKey: 'k', analyticsScript: 'javascript:alert(1)' } }).analyticsScript).toBe('')
  })

  it('fails loudly without an anon key', () => {
    expect(() => resolveEnv({ origin })).toThrow(ConfigError)
    expect(() => resolveEnv({ origin, viteAnonKey: '  ', runtime: { anonKey: '' } })).toThrow(/anon key/)
  })
})
