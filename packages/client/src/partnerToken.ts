/**
 * The partner's access token from its client credentials (`POST /auth/token`, ClientId and
 * ClientSecret), obtained on first use and kept until shortly before it expires: a call made
 * within `refreshBeforeExpirySeconds` of the expiry (or past it) obtains a new one first.
 * Concurrent calls share one token request. After a 401 to the current token (revoked, or
 * expired by the service's clock, e.g. after the sandbox clock moved), the next call obtains a
 * new one. A refused token request throws a `PartnerpayError` (401: wrong credentials).
 */
import { PartnerpayError } from "./PartnerpayError.ts"
import { send, type TokenSource, type Transport } from "./transport.ts"

export interface Credentials {
  readonly clientId: string
  readonly clientSecret: string
}

interface Held {
  readonly token: string
  /** When to obtain the next one (ms since the epoch). */
  readonly refreshAt: number
}

export const partnerToken = (
  transport: Transport,
  baseUrl: string,
  credentials: Credentials,
  refreshBeforeExpirySeconds: number,
): TokenSource => {
  let held: Held | undefined
  let pending: Promise<string> | undefined

  const obtain = async (): Promise<string> => {
    const requested = transport.now()
    const response = await send(
      transport,
      new Request(`${baseUrl}/auth/token`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ ClientId: credentials.clientId, ClientSecret: credentials.clientSecret }),
      }),
      undefined,
    )
    if (!response.ok) throw await PartnerpayError.fromResponse(response)
    const answer = (await response.json()) as { AccessToken: string; ExpiresInSeconds: number }
    const lifetimeMs = answer.ExpiresInSeconds * 1000
    // Counted from the request (the token may be older than its answer); a margin of at most half the lifetime.
    const marginMs = Math.min(refreshBeforeExpirySeconds * 1000, lifetimeMs / 2)
    held = { token: answer.AccessToken, refreshAt: requested + lifetimeMs - marginMs }
    return answer.AccessToken
  }

  return {
    get: () => {
      if (held !== undefined && transport.now() < held.refreshAt) return Promise.resolve(held.token)
      if (pending === undefined) {
        pending = obtain().finally(() => {
          pending = undefined
        })
      }
      return pending
    },
    invalidate: (token) => {
      if (held?.token === token) held = undefined
      return true
    },
  }
}
