/**
 * A mocked Labelbase API for page tests: MSW intercepts the requests the real supabase-js
 * client sends, so a page is tested through lib/supabase.ts, the query cache and the
 * components exactly as it runs, minus the network.
 */
import { http, HttpResponse, type JsonBodyType } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll } from 'vitest'

/**
 * Lists every page reads beside its main data (the filters' choices); a test overrides them
 * with apiServer.use when it is about them.
 */
const defaultHandlers = [
  http.post('*/rest/v1/rpc/get_label_tags', () => HttpResponse.json([])),
  http.post('*/rest/v1/rpc/get_explore_genres', () => HttpResponse.json([])),
]

export const apiServer = setupServer(...defaultHandlers)

/** Starts the server for the calling test file; a request without a handler fails the test. */
export function setupApiServer() {
  beforeAll(() => {
    window.__LABELBASE__ = { anonKey: 'test-anon-key' }
    apiServer.listen({ onUnhandledRequest: 'error' })
  })
  afterEach(() => apiServer.resetHandlers())
  afterAll(() => apiServer.close())
}

type Args = Record<string, unknown>

/** Answers POST /rest/v1/rpc/<fn> with what `reply` returns for the call's arguments. */
export function rpc(fn: string, reply: (args: Args) => JsonBodyType | Response, calls?: Args[]) {
  return http.post(`*/rest/v1/rpc/${fn}`, async ({ request }) => {
    const args = (await request.json()) as Args
    calls?.push(args)
    const body = reply(args)
    return body instanceof Response ? body : HttpResponse.json(body)
  })
}

/** Answers GET /rest/v1/<table> with rows. */
export function selectRows(table: string, rows: JsonBodyType[]) {
  return http.get(`*/rest/v1/${table}`, () => HttpResponse.json(rows))
}

/** Answers writes (POST and DELETE) to /rest/v1/<table>, recording them. */
export function writeTable(table: string, status = 201, calls?: { method: string; url: string }[]) {
  const reply = ({ request }: { request: Request }) => {
    calls?.push({ method: request.method, url: request.url })
    return status < 300 ? new HttpResponse(null, { status }) : HttpResponse.json({ message: 'permission denied', code: '42501' }, { status })
  }
  return [http.post(`*/rest/v1/${table}`, reply), http.delete(`*/rest/v1/${table}`, reply)]
}

/** A request that never reaches the server (supabase-js reports status 0). */
export const networkError = () => HttpResponse.error()
