/** Every route of the app, with a builder for links. */
export const paths = {
  home: { path: '/', getHref: () => '/' },
  login: { path: '/login', getHref: () => '/login' },
  signup: { path: '/signup', getHref: () => '/signup' },
  forgotPassword: { path: '/forgot-password', getHref: () => '/forgot-password' },
  resetPassword: { path: '/reset-password', getHref: () => '/reset-password' },
  changePassword: { path: '/change-password', getHref: () => '/change-password' },
  security: { path: '/security', getHref: () => '/security' },
  labels: { path: '/labels', getHref: () => '/labels' },
  explore: { path: '/explore', getHref: () => '/explore' },
  collection: { path: '/collection', getHref: () => '/collection' },
  admin: { path: '/admin', getHref: () => '/admin' },
} as const
