import { deleteEq, insertRow } from '@/lib/supabase'

/** Follows (insert) or unfollows (delete) a label. Throws on failure. */
export async function setFollow(userId: string, labelId: number, follow: boolean): Promise<void> {
  if (follow) await insertRow('user_follow_labels', { user_id: userId, label_id: labelId })
  else await deleteEq('user_follow_labels', { user_id: userId, label_id: labelId })
}
