import { NEW_RELEASES_PAGE_SIZE } from '@/config/constants'
import { listOrEmpty } from '@/lib/errors'
import { toRelease } from '@/lib/release-row'
import { rpc } from '@/lib/supabase'
import type { Release } from '@/types/api'

/** One page (1-based) of the newest releases of the labels the user follows. */
export async function getLatestReleases(userId: string, page: number): Promise<Release[]> {
  const result = await rpc('get_latest_releases', {
    user_id: userId,
    label_ids: null,
    page_size: NEW_RELEASES_PAGE_SIZE,
    page,
  })
  return listOrEmpty(result, 'get_latest_releases').map(toRelease)
}
