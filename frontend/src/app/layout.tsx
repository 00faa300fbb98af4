import { AppLayout } from '@/components/layouts/app-layout'
import { useAvatarUrl } from '@/features/account'
import { useAuth } from '@/lib/auth'

/** The layout with what it shows from features: the signed-in member's picture in the header. */
export function Layout() {
  const { status, user } = useAuth()
  const avatar = useAvatarUrl(status === 'signed-in' && user ? user.id : null)
  return <AppLayout avatarUrl={avatar.data ?? null} />
}
