import { http, HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { apiServer, setupApiServer } from '@/testing/api-server'
import { submitLabel } from './submit-label'

setupApiServer()

const userId = '11111111-1111-4111-8111-111111111111'

function table(name: string, rows: (url: URL) => unknown[], seen: string[]) {
  return http.get(`*/rest/v1/${name}`, ({ request }) => {
    seen.push(`GET ${name}?${new URL(request.url).searchParams.toString()}`)
    return HttpResponse.json(rows(new URL(request.url)))
  })
}

describe('submitLabel', () => {
  it('finds a label already on Labelbase and does not queue it', async () => {
    const seen: string[] = []
    apiServer.use(
      table('labels', () => [{ id: 7, label_name: 'Ghostly Tapes' }], seen),
      table('user_follow_labels', () => [], seen),
      http.post('*/rest/v1/labels_to_add', () => {
        seen.push('POST labels_to_add')
        return HttpResponse.json([{ id: 1 }], { status: 201 })
      }),
    )
    expect(await submitLabel(userId, 'https://ghostlytapes.bandcamp.com')).toEqual({
      kind: 'already-listed',
      label: { id: 7, name: 'Ghostly Tapes', followed: false },
    })
    expect(seen[0]).toBe('GET labels?select=id%2Clabel_name&label_url=eq.https%3A%2F%2Fghostlytapes.bandcamp.com&limit=1')
    expect(seen).not.toContain('POST labels_to_add')
  })

  it('queues a URL no label and no submission has', async () => {
    const seen: string[] = []
    apiServer.use(
      table('labels', () => [], seen),
      table('labels_to_add', () => [], seen),
      http.post('*/rest/v1/labels_to_add', async ({ request }) => {
        seen.push(`POST labels_to_add ${JSON.stringify(await request.json())}`)
        return HttpResponse.json([{ id: 1 }], { status: 201 })
      }),
    )
    expect(await submitLabel(userId, 'https://new.bandcamp.com')).toEqual({ kind: 'submitted' })
    expect(seen.at(-1)).toBe(`POST labels_to_add [{"label_url":"https://new.bandcamp.com","is_processed":false,"is_valid":false,"user_id":"${userId}"}]`)
  })

  it('fails when the label lookup fails', async () => {
    apiServer.use(http.get('*/rest/v1/labels', () => HttpResponse.json({ message: 'boom' }, { status: 500 })))
    await expect(submitLabel(userId, 'https://x.bandcamp.com')).rejects.toMatchObject({ name: 'RequestError', status: 500, message: 'boom' })
  })
})
