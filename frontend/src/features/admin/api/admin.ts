/**
 * The admin console's calls: the admin procedures of migration 000017 (docs/admin.md) over
 * /rest/v1/rpc. The database decides who may call them (public.is_admin()); a member gets
 * 42501 and the console shows that it is for admins only. Member actions (ban, make admin)
 * are procedures too, so the browser never holds the service-role key; a reset link is the
 * ordinary recovery mail (resetPasswordForEmail), which needs no key at all.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { ADMIN_LIST_LIMIT } from '@/config/constants'
import { paths } from '@/config/paths'
import { RequestError } from '@/lib/errors'
import type { MutationConfig } from '@/lib/query-client'
import { queryKeys } from '@/lib/query-keys'
import { requestPasswordReset, rpc, type FunctionReturns } from '@/lib/supabase'

export type SubmissionStatus = 'pending' | 'refused' | 'done'
export type Submission = FunctionReturns<'admin_submissions'>[number]
export type CrawlRun = FunctionReturns<'admin_crawl_runs'>[number]
export type LabelFailure = FunctionReturns<'admin_label_failures'>[number]
export type AdminLabel = FunctionReturns<'admin_labels'>[number]
export type Member = FunctionReturns<'admin_members'>[number]
export type Invite = FunctionReturns<'admin_invites'>[number]
export type CreatedInvite = FunctionReturns<'admin_create_invite'>[number]
export type BucketUse = FunctionReturns<'admin_storage_use'>[number]

export interface CrawlStatus {
  next_pass_at: string | null
  open_requests: number
  running: boolean
  last_succeeded_at: string | null
}

/** True when the server refused the call because the caller is not an admin. */
export function isForbidden(error: unknown): boolean {
  return error instanceof RequestError && (error.code === '42501' || error.status === 401 || error.status === 403)
}

const blank = (s: string) => (s.trim() === '' ? undefined : s.trim())

export async function getSubmissions(status: SubmissionStatus | null): Promise<Submission[]> {
  return (await rpc('admin_submissions', status ? { p_status: status } : {})) ?? []
}

export interface CrawlsData {
  status: CrawlStatus
  runs: CrawlRun[]
  failures: LabelFailure[]
}

export async function getCrawls(): Promise<CrawlsData> {
  const [status, runs, failures] = await Promise.all([rpc('admin_crawl_status', {}), rpc('admin_crawl_runs', { p_limit: 20 }), rpc('admin_label_failures', {})])
  return { status: status as unknown as CrawlStatus, runs: runs ?? [], failures: failures ?? [] }
}

export async function getLabels(search: string): Promise<AdminLabel[]> {
  return (await rpc('admin_labels', { p_search: blank(search), p_limit: ADMIN_LIST_LIMIT })) ?? []
}

export async function getMembers(search: string): Promise<Member[]> {
  return (await rpc('admin_members', { p_search: blank(search), p_limit: ADMIN_LIST_LIMIT })) ?? []
}

export async function getInvites(): Promise<Invite[]> {
  return (await rpc('admin_invites', {})) ?? []
}

export const useSubmissions = (status: SubmissionStatus | null) =>
  useQuery({ queryKey: queryKeys.adminSubmissions(status), queryFn: () => getSubmissions(status) })
export const useCrawls = () => useQuery({ queryKey: queryKeys.adminCrawls, queryFn: getCrawls })
export const useAdminLabels = (search: string) => useQuery({ queryKey: queryKeys.adminLabels(search), queryFn: () => getLabels(search) })
export const useMembers = (search: string) => useQuery({ queryKey: queryKeys.adminMembers(search), queryFn: () => getMembers(search) })
/** Objects and bytes per storage bucket (admin_storage_use, migration 20261127203000). */
export async function getStorageUse(): Promise<BucketUse[]> {
  return (await rpc('admin_storage_use', {})) ?? []
}

export const useStorageUse = () => useQuery({ queryKey: queryKeys.adminStorage, queryFn: getStorageUse })
export const useInvites = () => useQuery({ queryKey: queryKeys.adminInvites, queryFn: getInvites })

/** The console's actions, one procedure (or the recovery mail) each. */
export const actions = {
  retry: async (id: number) => void (await rpc('admin_retry_submission', { p_id: id })),
  reject: async ({ id, reason }: { id: number; reason: string }) => void (await rpc('admin_reject_submission', { p_id: id, p_reason: reason })),
  requestCrawl: async (labelId: number | null) => void (await rpc('admin_request_crawl', labelId === null ? {} : { p_label_id: labelId })),
  setHidden: async ({ id, hidden }: { id: number; hidden: boolean }) => void (await rpc('admin_set_label_hidden', { p_label_id: id, p_hidden: hidden })),
  setBanned: async ({ id, banned }: { id: string; banned: boolean }) => void (await rpc('admin_set_banned', { p_user_id: id, p_banned: banned })),
  setAdmin: async ({ id, admin }: { id: string; admin: boolean }) => void (await rpc('admin_set_admin', { p_user_id: id, p_admin: admin })),
  sendReset: (email: string) => requestPasswordReset(email, window.location.origin + paths.resetPassword.getHref()),
  createInvite: async (input: { maxUses: number; expiresInHours: number | null; note: string }): Promise<CreatedInvite> => {
    const rows = await rpc('admin_create_invite', {
      p_max_uses: input.maxUses,
      p_expires_in_hours: input.expiresInHours ?? undefined,
      p_note: input.note.trim(),
    })
    return rows[0]
  },
  revokeInvite: async (id: number) => void (await rpc('admin_revoke_invite', { p_id: id })),
}

/**
 * A mutation that reloads the console's lists when it succeeds; `everything` reloads every
 * cached query (an action that changes what members see, such as hiding a label).
 */
function useAdminAction<TInput, TResult>(
  fn: (input: TInput) => Promise<TResult>,
  config: MutationConfig<TInput, TResult> = {},
  options: { everything?: boolean } = {},
) {
  const queryClient = useQueryClient()
  return useMutation({
    ...config,
    mutationFn: fn,
    onSuccess: async (...args) => {
      void queryClient.invalidateQueries(options.everything ? undefined : { queryKey: queryKeys.admin })
      await config.onSuccess?.(...args)
    },
  })
}

type Config<F extends (input: never) => Promise<unknown>> = MutationConfig<Parameters<F>[0], Awaited<ReturnType<F>>>

export const useRetrySubmission = (config?: Config<typeof actions.retry>) => useAdminAction(actions.retry, config)
export const useRejectSubmission = (config?: Config<typeof actions.reject>) => useAdminAction(actions.reject, config)
export const useRequestCrawl = (config?: Config<typeof actions.requestCrawl>) => useAdminAction(actions.requestCrawl, config)
/** Hiding changes what members see: every cached list reloads. */
export const useSetLabelHidden = (config?: Config<typeof actions.setHidden>) => useAdminAction(actions.setHidden, config, { everything: true })
export const useSetBanned = (config?: Config<typeof actions.setBanned>) => useAdminAction(actions.setBanned, config)
export const useSetAdmin = (config?: Config<typeof actions.setAdmin>) => useAdminAction(actions.setAdmin, config)
export const useSendReset = (config?: Config<typeof actions.sendReset>) => useAdminAction(actions.sendReset, config)
export const useCreateInvite = (config?: Config<typeof actions.createInvite>) => useAdminAction(actions.createInvite, config)
export const useRevokeInvite = (config?: Config<typeof actions.revokeInvite>) => useAdminAction(actions.revokeInvite, config)
