import { unwrap } from '@/lib/errors'
import { selectEq } from '@/lib/supabase'

/** Ids of the labels the user follows (user_follow_labels). Throws on failure. */
export async function getFollowedLabelIds(userId: string): Promise<number[]> {
  const rows = unwrap(await selectEq('user_follow_labels', 'label_id', { user_id: userId }))
  return (rows ?? []).map((row) => Number(row.label_id))
}
