import { afterEach, describe, expect, it, vi } from 'vitest'
import * as lib from '@/lib/supabase'
import { createQueryClient } from '@/lib/query-client'
import { queryKeys } from '@/lib/query-keys'
import { apiServer, rpc, setupApiServer } from '@/testing/api-server'
import { releaseRow } from '@/testing/factories'
import { testUser } from '@/testing/test-utils'
import { prefetchLatestReleases } from './get-latest-releases'

vi.mock('@/lib/supabase', async (importOriginal) => ({ ...(await importOriginal<typeof lib>()), getSession: vi.fn() }))
const getSession = vi.mocked(lib.getSession)

setupApiServer()

describe('prefetchLatestReleases', () => {
  afterEach(() => getSession.mockReset())

  it('loads the first feed page for the stored session into the query the feed reads', async () => {
    getSession.mockResolvedValue({ user: testUser })
    const calls: Record<string, unknown>[] = []
    apiServer.use(rpc('get_latest_releases', () => [releaseRow(1), releaseRow(2)], calls))
    const client = createQueryClient(() => {}, { queries: { retry: false } })

    await prefetchLatestReleases(client)

    expect(calls).toHaveLength(1)
    expect(calls[0]).toMatchObject({ user_id: testUser.id, page: 1 })
    const data = client.getQueryData<{ pages: { id: number }[][] }>(queryKeys.feed(testUser.id))
    expect(data?.pages.map((page) => page.map((release) => release.id))).toEqual([[1, 2]])
  })

  it('asks for nothing without a session', async () => {
    getSession.mockResolvedValue(null)
    const calls: Record<string, unknown>[] = []
    apiServer.use(rpc('get_latest_releases', () => [], calls))
    const client = createQueryClient(() => {}, { queries: { retry: false } })

    await prefetchLatestReleases(client)

    expect(calls).toHaveLength(0)
    expect(client.getQueryCache().getAll()).toHaveLength(0)
  })

  it('does not throw when the session cannot be read', async () => {
    getSession.mockRejectedValue(new Error('storage unavailable'))
    const client = createQueryClient(() => {}, { queries: { retry: false } })
    await expect(prefetchLatestReleases(client)).resolves.toBeUndefined()
  })
})
