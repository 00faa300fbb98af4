import { createBrowserRouter, type RouteObject } from 'react-router'
import { Layout } from './layout'
import { PageSpinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { ProtectedRoute, PublicOnlyRoute } from './routes/guards'
import { RootError, RouteError } from './routes/route-error'

type RouteModule = { default: React.ComponentType }
const lazyRoute = (load: () => Promise<RouteModule>) => async () => ({ Component: (await load()).default })

export const routes: RouteObject[] = [
  {
    element: <Layout />,
    hydrateFallbackElement: <PageSpinner />,
    ErrorBoundary: RootError,
    children: [
      {
        // Errors below the layout render inside it, so the navigation stays usable.
        ErrorBoundary: RouteError,
        children: [
          {
            element: <PublicOnlyRoute />,
            children: [
              { path: paths.login.path, lazy: lazyRoute(() => import('./routes/login')) },
              { path: paths.signup.path, lazy: lazyRoute(() => import('./routes/signup')) },
              { path: paths.forgotPassword.path, lazy: lazyRoute(() => import('./routes/forgot-password')) },
            ],
          },
          {
            element: <ProtectedRoute />,
            children: [
              { path: paths.home.path, lazy: lazyRoute(() => import('./routes/new-releases')) },
              { path: paths.labels.path, lazy: lazyRoute(() => import('./routes/labels')) },
              { path: paths.explore.path, lazy: lazyRoute(() => import('./routes/explore')) },
              { path: paths.collection.path, lazy: lazyRoute(() => import('./routes/collection')) },
              { path: paths.changePassword.path, lazy: lazyRoute(() => import('./routes/change-password')) },
              { path: paths.security.path, lazy: lazyRoute(() => import('./routes/security')) },
              { path: paths.admin.path, lazy: lazyRoute(() => import('./routes/admin')) },
            ],
          },
          // Reached from the mailed link, signed in or (with a spent link) not.
          { path: paths.resetPassword.path, lazy: lazyRoute(() => import('./routes/reset-password')) },
          { path: '*', lazy: lazyRoute(() => import('./routes/not-found')) },
        ],
      },
    ],
  },
]

export function createRouter() {
  return createBrowserRouter(routes)
}
