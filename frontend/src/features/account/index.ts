/** What other layers (app routes, the layout) compose from this feature. */
export { useAvatarUrl } from './api/avatar'
export { AvatarSection } from './components/avatar-section'
