// ESLint (flat config) for the web app, its browser journeys, the Node test suites and the scripts.
// `npm run lint` runs it with `prettier --check`; `npm run format` fixes what both can.
//
// TypeScript: the app builds with TypeScript 7 (the native `tsc`), which has no JavaScript compiler
// API, and typescript-eslint 8 needs that API (its peer range is typescript <6.1). So, as the
// TypeScript 7 release notes recommend, package.json installs both side by side under npm aliases:
//   "typescript": "npm:@typescript/typescript6@…"  the TS 6 API, for typescript-eslint and editors
//   "@typescript/native": "npm:typescript@7.0.2"   its `tsc` bin is the one `npm run build` runs
// (TS 6 names its bin `tsc6`, so the two do not clash.) The rules below are the syntactic ones: no
// type-aware rules, which would type-check with TS 6 rather than the compiler the build uses.
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import js from '@eslint/js'
import { defineConfig, globalIgnores } from 'eslint/config'
import { createNodeResolver, importX } from 'eslint-plugin-import-x'
import jsxA11y from 'eslint-plugin-jsx-a11y'
import playwright from 'eslint-plugin-playwright'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

const here = (path) => fileURLToPath(new URL(path, import.meta.url))

// Import boundaries (bulletproof-react style): a feature under src/features/<name> may use the
// shared layers (components, hooks, lib, config, types) but never another feature or the app;
// src/app composes the features; the shared layers use neither. Every folder under
// src/features is a feature, so a new one is covered without touching this file.
const features = readdirSync(here('./src/features'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
const boundaries = [
  ...features.map((name) => ({
    target: `./src/features/${name}`,
    from: './src/features',
    except: [`./${name}`],
    message: 'A feature must not import another feature: compose them in src/app.',
  })),
  { target: './src/features', from: './src/app', message: 'Features must not import the app: src/app composes the features.' },
  {
    target: ['./src/components', './src/hooks', './src/lib', './src/config', './src/types', './src/testing'],
    from: './src/features',
    message: 'The shared layers must not import features.',
  },
  // Test helpers render through the app's real providers, so they may import src/app; the
  // shared layers that ship may not.
  {
    target: ['./src/components', './src/hooks', './src/lib', './src/config', './src/types'],
    from: './src/app',
    message: 'The shared layers must not import the app.',
  },
]

export default defineConfig([
  globalIgnores(['dist/', 'dist-fallback/', 'node_modules/', 'test-results/', 'coverage/']),

  {
    files: ['**/*.{js,mjs,cjs,ts,tsx}'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    languageOptions: { globals: globals.node },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `_name` marks a binding that is unused on purpose (e.g. a key taken out of an object).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },

  // The app: browser code, React hooks (including the React Compiler rules), JSX accessibility,
  // and the import boundaries.
  {
    files: ['src/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat.recommended, jsxA11y.flatConfigs.recommended],
    plugins: { 'import-x': importX },
    languageOptions: { globals: globals.browser },
    settings: {
      'import-x/resolver-next': [
        createNodeResolver({
          tsconfig: { configFile: here('./tsconfig.app.json') },
          extensions: ['.ts', '.tsx', '.js', '.json'],
        }),
      ],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: here('.'), zones: boundaries }],
    },
  },

  // Scripts that drive a browser pass it functions to run in the page.
  { files: ['scripts/cold-load.mjs'], languageOptions: { globals: { ...globals.node, ...globals.browser } } },

  // Browser journeys: Playwright's rules (web-first assertions, no fixed waits, no focused tests).
  {
    files: ['e2e/**/*.ts'],
    extends: [playwright.configs['flat/recommended']],
    rules: {
      // The journeys check in helpers (expectToast, expectPath, ...) as well as inline.
      'playwright/expect-expect': ['error', { assertFunctionPatterns: ['^expect[A-Z]', '^signUp$'] }],
      'playwright/no-wait-for-timeout': 'error',
      'playwright/no-networkidle': 'error',
      // A journey is a story with steps; its conditions are data-driven, not skipped tests.
      'playwright/no-conditional-in-test': 'off',
      'playwright/no-conditional-expect': 'off',
    },
  },
])
