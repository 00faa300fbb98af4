import { unwrap } from '@/lib/errors'
import { selectEq } from '@/lib/supabase'

/** Ids of the releases the user marked as listened. Throws on failure. */
export async function getListenedReleaseIds(userId: string): Promise<Set<number>> {
  const rows = unwrap(await selectEq('user_listened_releases', 'release_id', { user_id: userId }))
  return new Set((rows ?? []).map((row) => Number(row.release_id)))
}
