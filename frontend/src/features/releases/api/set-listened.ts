import { unwrap } from '@/lib/errors'
import { deleteEq, upsertRow } from '@/lib/supabase'

/** Marks (upsert) or unmarks (delete) a release as listened. Throws on failure. */
export async function setListened(userId: string, releaseId: number, listened: boolean): Promise<void> {
  if (listened) {
    unwrap(await upsertRow('user_listened_releases', { user_id: userId, release_id: releaseId }, ['user_id', 'release_id']))
  } else {
    unwrap(await deleteEq('user_listened_releases', { user_id: userId, release_id: releaseId }))
  }
}
