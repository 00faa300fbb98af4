/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react'
import tailwindcss from '@tailwindcss/vite'
import { defineConfig, type Plugin } from 'vite'

const srcDir = decodeURIComponent(new URL('./src', import.meta.url).pathname)
// `npm run dev` proxies the APIs to a running gateway, so the app can use its own origin.
const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {}
const gateway = env.LABELBASE_GATEWAY ?? 'http://localhost:8080'

/**
 * Adds modulepreload links for the lazy chunks of the feed route (/) to index.html. Without them
 * the browser learns of those chunks only after the main bundle has run and the router has
 * matched the route: one more round trip, in series, before the feed can ask for data. Signed-out
 * visitors fetch them too; they are a few KB compressed.
 */
function preloadRoute(routeModule: string): Plugin {
  return {
    name: 'labelbase:preload-route',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const bundle = ctx.bundle
        if (!bundle) return []
        const chunks = Object.values(bundle).filter((c) => c.type === 'chunk')
        const route = chunks.find((c) => c.facadeModuleId?.endsWith(routeModule))
        if (!route) throw new Error(`preload-route: no chunk for ${routeModule}`)
        const byName = new Map(chunks.map((c) => [c.fileName, c]))
        // The entry's static imports are preloaded by Vite already.
        const entry = new Set<string>()
        const walk = (name: string, into: Set<string>) => {
          if (into.has(name)) return
          into.add(name)
          for (const dep of byName.get(name)?.imports ?? []) walk(dep, into)
        }
        for (const c of chunks) if (c.isEntry) walk(c.fileName, entry)
        const wanted = new Set<string>()
        walk(route.fileName, wanted)
        return [...wanted]
          .filter((name) => !entry.has(name))
          .map((name) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `/${name}` }, injectTo: 'head' as const }))
      },
    },
  }
}

export default defineConfig({
  plugins: [react(), tailwindcss(), preloadRoute('src/app/routes/new-releases.tsx')],
  resolve: { alias: { '@': srcDir } },
  server: { proxy: { '/auth/v1': gateway, '/rest/v1': gateway } },
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    rolldownOptions: {
      output: {
        // Libraries change less often than the app: separate chunks keep them cached.
        codeSplitting: {
          groups: [
            { name: 'supabase', test: /node_modules[\\/]@supabase/ },
            { name: 'react', test: /node_modules[\\/](react|react-dom|react-router|scheduler)[\\/]/ },
          ],
        },
      },
    },
  },
  test: {
    environment: 'happy-dom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/testing/setup-tests.ts'],
    restoreMocks: true,
  },
})
