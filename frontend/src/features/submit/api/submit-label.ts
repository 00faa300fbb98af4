import { insertRow, insertRowsReturning, selectColumnsEq, selectEq } from '@/lib/supabase'

/** A label already on Labelbase under the submitted URL. */
export interface ListedLabel {
  id: number
  name: string
  followed: boolean
}

export type SubmitOutcome = { kind: 'submitted' } | { kind: 'already-queued' } | { kind: 'already-listed'; label: ListedLabel }

/**
 * The label already on Labelbase at this URL (and whether the member follows it), or null.
 * Labels are readable by every member (RLS), so this is a plain table read. Throws on failure.
 */
export async function findListedLabel(userId: string, labelUrl: string): Promise<ListedLabel | null> {
  const [row] = await selectColumnsEq('labels', ['id', 'label_name'], { label_url: labelUrl }, 1)
  if (!row) return null
  const follow = await selectEq('user_follow_labels', 'label_id', { user_id: userId, label_id: row.id }, 1)
  return { id: Number(row.id), name: row.label_name, followed: follow.length > 0 }
}

/**
 * Queues a normalised label URL unless the label is already on Labelbase (the member is
 * offered to follow it instead) or already queued. The new row starts unprocessed and
 * unvalidated; the server's daily job handles it. Throws on failure.
 */
export async function submitLabel(userId: string, labelUrl: string): Promise<SubmitOutcome> {
  const listed = await findListedLabel(userId, labelUrl)
  if (listed) return { kind: 'already-listed', label: listed }
  const existing = await selectEq('labels_to_add', 'id', { label_url: labelUrl }, 1)
  if (existing.length > 0) return { kind: 'already-queued' }
  await insertRowsReturning('labels_to_add', [{ label_url: labelUrl, is_processed: false, is_valid: false, user_id: userId }], 'id')
  return { kind: 'submitted' }
}

/** Follows a label found through the submit dialog (the same insert as the Labels page's Follow). Throws on failure. */
export async function followListedLabel(userId: string, labelId: number): Promise<void> {
  await insertRow('user_follow_labels', { user_id: userId, label_id: labelId })
}
