/**
 * The client's `fetch`: every request of the client (typed or raw) goes through `send`, which
 *
 * - adds the bearer token of its token source, unless the request names its own `Authorization`;
 * - adds an `Idempotency-Key` to a POST that has none (except `POST /auth/token`, which the
 *   service exempts), and keeps that key on every retry of the call, so a retried POST runs once;
 * - retries retryable answers and network errors (see retry.ts), honouring `Retry-After`;
 * - after a 401 to a managed (refreshable) token, gets a new token and sends the request again,
 *   once per call.
 *
 * The request body is read once and sent again on each attempt.
 */
import { backoffMs, isRetryableResponse, type RetryPolicy, retryAfterMs } from "./retry.ts"

/** Where a request's bearer token comes from. */
export interface TokenSource {
  /** The token for the next attempt. */
  readonly get: () => Promise<string>
  /**
   * A 401 answered a request sent with `token`: forget it. True when a new token may be had
   * (the request is then sent once more), false for a fixed token.
   */
  readonly invalidate: (token: string) => boolean
}

/** A token used as it is (a customer's token, or an access token given to the client). */
export const fixedToken = (token: string): TokenSource => ({
  get: () => Promise.resolve(token),
  invalidate: () => false,
})

export type Fetch = (request: Request) => Promise<Response>

export interface Transport {
  readonly fetch: Fetch
  readonly retry: RetryPolicy
  /** Milliseconds since the epoch. */
  readonly now: () => number
  /** In [0, 1): the backoff jitter. */
  readonly random: () => number
  /** Waits `ms` (rejects when `signal` aborts). */
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>
  /** A new Idempotency-Key. */
  readonly idempotencyKey: () => string
}

export const defaultSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason)
      return
    }
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    signal.addEventListener("abort", onAbort, { once: true })
  })

const isTokenRequest = (request: Request) => new URL(request.url).pathname.endsWith("/auth/token")

/** Lets the connection go (an answer that will be retried is not read). */
const discard = async (response: Response) => {
  try {
    await response.body?.cancel()
  } catch {
    // already closed
  }
}

/** Sends `request` with the token of `auth` (none when undefined), the idempotency key and the retries. */
export const send = async (
  transport: Transport,
  request: Request,
  auth: TokenSource | undefined,
): Promise<Response> => {
  const body = request.body === null ? null : await request.arrayBuffer()
  const headers = new Headers(request.headers)
  if (request.method === "POST" && !headers.has("idempotency-key") && !isTokenRequest(request)) {
    headers.set("Idempotency-Key", transport.idempotencyKey())
  }
  const managed = auth !== undefined && !headers.has("authorization")
  let refreshed = false
  let retries = 0
  for (;;) {
    const attempt = new Headers(headers)
    let token: string | undefined
    if (managed) {
      token = await auth.get()
      attempt.set("Authorization", `Bearer ${token}`)
    }
    let response: Response
    try {
      response = await transport.fetch(new Request(request, { headers: attempt, body }))
    } catch (error) {
      // No answer (connection refused or reset, DNS): retried, unless the caller aborted.
      if (request.signal.aborted || retries >= transport.retry.maxRetries) throw error
      await transport.sleep(backoffMs(transport.retry, retries, transport.random()), request.signal)
      retries++
      continue
    }
    if (response.status === 401 && token !== undefined && !refreshed && auth?.invalidate(token) === true) {
      refreshed = true
      await discard(response)
      continue
    }
    if (retries < transport.retry.maxRetries && (await isRetryableResponse(response))) {
      const asked = retryAfterMs(response, transport.now())
      if (asked === undefined || asked <= transport.retry.maxRetryAfterMs) {
        await discard(response)
        const wait = Math.max(asked ?? 0, backoffMs(transport.retry, retries, transport.random()))
        await transport.sleep(wait, request.signal)
        retries++
        continue
      }
    }
    return response
  }
}
