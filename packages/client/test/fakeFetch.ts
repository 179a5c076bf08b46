/**
 * Test support: a fake `fetch` answering from a script of responders and recording every request
 * it received, a recorded sleep (no real waiting) and a seeded random, so the client's retry,
 * token and idempotency logic runs without a network and without time passing.
 */
import { createPartnerpayClient, type PartnerpayClientOptions } from "../src/index.ts"

export interface Sent {
  readonly method: string
  readonly path: string
  readonly headers: Headers
  readonly body: string
}

export type Responder = (request: Sent) => Response | Promise<Response>

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": status >= 400 ? "application/problem+json" : "application/json", ...headers },
  })

export const problem = (status: number, code: string, headers: Record<string, string> = {}, extra = {}) =>
  json(
    status,
    { type: `/docs/problems/${code.toLowerCase().replaceAll("_", "-")}`, code, detail: code, ...extra },
    headers,
  )

export const tokenAnswer = (token: string, expiresInSeconds = 3600) =>
  json(200, { AccessToken: token, TokenType: "Bearer", ExpiresInSeconds: expiresInSeconds })

/** Fails like fetch does when there is no answer (connection refused or reset). */
export const networkError: Responder = () => {
  throw new TypeError("fetch failed")
}

/**
 * A fake server: `routes` answers per "METHOD /path" (a list is consumed in order, its last
 * responder then answers every later request); `POST /auth/token` answers tokens `t1`, `t2`, ...
 * unless routed.
 */
export const fakeServer = (routes: Record<string, Responder | ReadonlyArray<Responder>> = {}) => {
  const sent: Array<Sent> = []
  const served = new Map<string, number>()
  let tokens = 0
  const fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url)
    const entry: Sent = {
      method: request.method,
      path: `${url.pathname}${url.search}`,
      headers: new Headers(request.headers),
      body: await request.text(),
    }
    sent.push(entry)
    const key = `${request.method} ${url.pathname}`
    const route = routes[key]
    if (route === undefined) {
      if (key === "POST /auth/token") return tokenAnswer(`t${++tokens}`)
      return json(404, { code: "NOT_FOUND", detail: key })
    }
    const list = typeof route === "function" ? [route] : route
    const index = served.get(key) ?? 0
    served.set(key, index + 1)
    return list[Math.min(index, list.length - 1)]!(entry)
  }
  return {
    fetch,
    sent,
    /** The requests other than token requests. */
    calls: () => sent.filter((request) => request.path !== "/auth/token"),
    tokenRequests: () => sent.filter((request) => request.path === "/auth/token"),
  }
}

/** A client on a fake server, with a settable clock, recorded sleeps and a fixed jitter. */
export const testClient = (server: ReturnType<typeof fakeServer>, options: Partial<PartnerpayClientOptions> = {}) => {
  const clock = { now: 1_700_000_000_000 }
  const sleeps: Array<number> = []
  let keys = 0
  const client = createPartnerpayClient({
    baseUrl: "https://partnerpay.test",
    clientId: "client-1",
    clientSecret: "secret-1",
    fetch: server.fetch,
    now: () => clock.now,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms)
      clock.now += ms
    },
    idempotencyKey: () => `key-${++keys}`,
    ...options,
  })
  return { client, clock, sleeps }
}
