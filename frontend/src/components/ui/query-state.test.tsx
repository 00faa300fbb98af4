import { useQuery } from '@tanstack/react-query'
import { fireEvent, screen, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { RequestError } from '@/lib/errors'
import { renderWithProviders } from '@/testing/test-utils'
import { EmptyState } from './empty-state'
import { QueryState, type QueryStateProps } from './query-state'

type Props = Omit<QueryStateProps<string[]>, 'query' | 'loading' | 'errorMessage' | 'children'>

/** A list page in miniature: one query through the app's query client, shown by QueryState. */
function ListPage({ load, refreshable, ...props }: { load: () => Promise<string[]>; refreshable?: boolean } & Props) {
  const query = useQuery({ queryKey: ['query-state-test'], queryFn: load })
  return (
    <>
      {refreshable && <button onClick={() => void query.refetch()}>Refresh</button>}
      <QueryState query={query} loading={<p>loading rows</p>} errorMessage={(error) => `Failed to load rows: ${error.message}`} {...props}>
        {(rows) => (
          <ul aria-label="Rows">
            {rows.map((row) => (
              <li key={row}>{row}</li>
            ))}
          </ul>
        )}
      </QueryState>
    </>
  )
}

const deferred = <T,>() => {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

describe('QueryState', () => {
  it('shows the placeholders while loading, then the content', async () => {
    const rows = deferred<string[]>()
    renderWithProviders(<ListPage load={() => rows.promise} />)
    expect(screen.getByText('loading rows')).toBeTruthy()
    rows.resolve(['a', 'b'])
    const list = await screen.findByRole('list', { name: 'Rows' })
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['a', 'b'])
    expect(screen.queryByText('loading rows')).toBeNull()
  })

  it('shows the empty state for no rows, and the content when there is no empty state to show', async () => {
    const { unmount } = renderWithProviders(<ListPage load={async () => []} empty={<EmptyState message="Nothing here yet." />} />)
    expect(await screen.findByText('Nothing here yet.')).toBeTruthy()
    expect(screen.queryByRole('list')).toBeNull()
    unmount()
    renderWithProviders(<ListPage load={async () => []} />)
    expect(await screen.findByRole('list', { name: 'Rows' })).toBeTruthy()
  })

  it('asks isEmpty when the data is not a plain list', async () => {
    renderWithProviders(<ListPage load={async () => ['only']} isEmpty={(rows) => rows.length < 2} empty={<EmptyState message="Too few." />} />)
    expect(await screen.findByText('Too few.')).toBeTruthy()
  })

  it('replaces the content with the failure and Try Again, which loads again', async () => {
    const load = vi.fn<() => Promise<string[]>>().mockRejectedValueOnce(new RequestError('boom', 500)).mockResolvedValue(['back'])
    renderWithProviders(<ListPage load={load} empty={<EmptyState message="Nothing here yet." />} />)
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('Failed to load rows: boom')
    // Nothing is guessed from a failure: no empty state, no list.
    expect(screen.queryByText('Nothing here yet.')).toBeNull()
    expect(screen.queryByRole('list')).toBeNull()
    fireEvent.click(within(alert).getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByText('back')).toBeTruthy()
    expect(screen.queryByRole('alert')).toBeNull()
    expect(load).toHaveBeenCalledTimes(2)
  })

  it('shows the placeholders again while a first load is retried', async () => {
    const again = deferred<string[]>()
    const load = vi.fn<() => Promise<string[]>>().mockRejectedValueOnce(new RequestError('offline', 0)).mockReturnValueOnce(again.promise)
    renderWithProviders(<ListPage load={load} />)
    fireEvent.click(within(await screen.findByRole('alert')).getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByText('loading rows')).toBeTruthy()
    again.resolve(['x'])
    expect(await screen.findByText('x')).toBeTruthy()
  })

  it('shows an explained error (an answer, not a failure) without a retry', async () => {
    renderWithProviders(
      <ListPage
        load={() => Promise.reject(new RequestError('permission denied', 403, '42501'))}
        explain={(error) => (error instanceof RequestError && error.code === '42501' ? <EmptyState message="For admins only." /> : null)}
      />,
    )
    expect(await screen.findByText('For admins only.')).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Try Again' })).toBeNull()
  })

  it('falls back to the load error when explain has nothing to say', async () => {
    renderWithProviders(<ListPage load={() => Promise.reject(new RequestError('boom', 500))} explain={() => null} />)
    expect((await screen.findByRole('alert')).textContent).toContain('Failed to load rows: boom')
  })

  it('lets a failed refresh win over the rows it held, and says Retrying… while it is retried', async () => {
    const again = deferred<string[]>()
    const load = vi
      .fn<() => Promise<string[]>>()
      .mockResolvedValueOnce(['old'])
      .mockRejectedValueOnce(new RequestError('boom', 503))
      .mockReturnValueOnce(again.promise)
    renderWithProviders(<ListPage load={load} refreshable />)
    expect(await screen.findByText('old')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Refresh' }))
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('Failed to load rows: boom')
    expect(screen.queryByText('old')).toBeNull()
    fireEvent.click(within(alert).getByRole('button', { name: 'Try Again' }))
    expect(((await screen.findByRole('button', { name: 'Retrying…' })) as HTMLButtonElement).disabled).toBe(true)
    again.resolve(['new'])
    expect(await screen.findByText('new')).toBeTruthy()
  })
})
