import { insertRowsReturning, selectEq } from '@/lib/supabase'

export type SubmitOutcome = 'submitted' | 'already-queued' | 'failed'

/**
 * Queues a normalised label URL unless it is already queued. The new row starts unprocessed
 * and unvalidated; the server's daily job handles it.
 */
export async function submitLabel(userId: string, labelUrl: string): Promise<SubmitOutcome> {
  const existing = await selectEq('labels_to_add', 'id', { label_url: labelUrl }, 1)
  if (existing.error) return 'failed'
  if (existing.data && existing.data.length > 0) return 'already-queued'
  const inserted = await insertRowsReturning('labels_to_add', [{ label_url: labelUrl, is_processed: false, is_valid: false, user_id: userId }], 'id')
  return inserted.error ? 'failed' : 'submitted'
}
