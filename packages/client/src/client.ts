/**
 * `createPartnerpayClient`: an openapi-fetch client typed by the generated `paths`
 * (`client.GET("/Payment/{paymentRequestId}", { params: { path: { paymentRequestId } } })` answers
 * `{ data, error, response }`), whose requests carry the partner's token, idempotency keys and
 * retries (transport.ts), plus `paginate` (async iteration over a list), `withCustomerToken` (the
 * same client acting as a customer), `fetch` (the same handling for paths outside the OpenAPI
 * document, such as the sandbox's) and `accessToken`.
 */
import createClient, { type Client } from "openapi-fetch"
import type { paths } from "./generated/openapi.ts"
import {
  type GetPage,
  type ListItem,
  type ListPath,
  type ListQuery,
  type PaginateOptions,
  paginate,
} from "./pagination.ts"
import { partnerToken } from "./partnerToken.ts"
import { type Resources, resources } from "./resources.ts"
import { type RetryOptions, retryPolicy } from "./retry.ts"
import { defaultSleep, type Fetch, fixedToken, send, type TokenSource, type Transport } from "./transport.ts"

export interface PartnerpayClientOptions {
  /** The service's address, e.g. `https://sandbox.partnerpay.example` or `http://127.0.0.1:3000`. */
  readonly baseUrl: string
  /** The partner's client id: with `clientSecret`, tokens are obtained and refreshed by the client. */
  readonly clientId?: string
  readonly clientSecret?: string
  /** Or a token used as it is (never refreshed): a partner token obtained elsewhere, or a customer's. */
  readonly accessToken?: string
  /** Obtain a new partner token this long before the current one expires (default 60 s). */
  readonly refreshBeforeExpirySeconds?: number
  /** Retries of retryable answers (429, 503, 409 in progress / concurrent modification, network errors); `false`: none. */
  readonly retry?: RetryOptions | false
  /** The fetch to send with (default: the global `fetch`). */
  readonly fetch?: Fetch
  /** New Idempotency-Keys (default: `crypto.randomUUID()`). */
  readonly idempotencyKey?: () => string
  /** Headers sent with every request (e.g. `{ "X-Correlation-Id": ... }` per client). */
  readonly headers?: Record<string, string>
  /** Clock, jitter and waiting, replaceable for tests. */
  readonly now?: () => number
  readonly random?: () => number
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>
}

export interface PartnerpayClient extends Client<paths>, Resources {
  /**
   * Every item of a list, page after page:
   * `for await (const request of client.paginate("/Payment/History", { companyId, limit: 100 })) ...`
   */
  readonly paginate: <P extends ListPath>(
    path: P,
    query?: ListQuery<P>,
    options?: PaginateOptions<ListItem<P>>,
  ) => AsyncGenerator<ListItem<P>, void, undefined>
  /** The same client acting as a customer: its requests carry `token` (a customer token from `PUT /Login/CheckOtp`). */
  readonly withCustomerToken: (token: string) => PartnerpayClient
  /**
   * A request outside the typed document (e.g. `/Sandbox/Clock`), with the same token,
   * idempotency key and retries: `path` is relative to `baseUrl`.
   */
  readonly fetch: (path: string, init?: RequestInit) => Promise<Response>
  /** The current partner token (obtained or refreshed when needed). */
  readonly accessToken: () => Promise<string>
}

const trimSlash = (url: string) => url.replace(/\/+$/, "")

const build = (transport: Transport, baseUrl: string, auth: TokenSource, options: PartnerpayClientOptions) => {
  const api = createClient<paths>({
    baseUrl,
    fetch: (request: Request) => send(transport, request, auth),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
  })
  const client: PartnerpayClient = Object.assign(api, resources(api), {
    paginate: <P extends ListPath>(path: P, query?: ListQuery<P>, paging?: PaginateOptions<ListItem<P>>) =>
      paginate<ListItem<P>>(api.GET as unknown as GetPage, path, (query ?? {}) as Record<string, unknown>, paging),
    withCustomerToken: (token: string) => build(transport, baseUrl, fixedToken(token), options),
    fetch: (path: string, init?: RequestInit) => {
      const request = new Request(`${baseUrl}${path.startsWith("/") ? path : `/${path}`}`, init)
      for (const [name, value] of Object.entries(options.headers ?? {})) {
        if (!request.headers.has(name)) request.headers.set(name, value)
      }
      return send(transport, request, auth)
    },
    accessToken: () => auth.get(),
  })
  return client
}

/**
 * A client of the partnerpay API. With `clientId` / `clientSecret` it obtains the partner token
 * itself and refreshes it (before expiry, and once after a 401); with `accessToken` it uses that.
 */
export const createPartnerpayClient = (options: PartnerpayClientOptions): PartnerpayClient => {
  const baseUrl = trimSlash(options.baseUrl)
  const transport: Transport = {
    fetch: options.fetch ?? ((request) => globalThis.fetch(request)),
    retry: retryPolicy(options.retry),
    now: options.now ?? Date.now,
    random: options.random ?? Math.random,
    sleep: options.sleep ?? defaultSleep,
    idempotencyKey: options.idempotencyKey ?? (() => globalThis.crypto.randomUUID()),
  }
  let auth: TokenSource
  if (options.clientId !== undefined && options.clientSecret !== undefined) {
    auth = partnerToken(
      transport,
      baseUrl,
      { clientId: options.clientId, clientSecret: options.clientSecret },
      options.refreshBeforeExpirySeconds ?? 60,
    )
  } else if (options.accessToken !== undefined) {
    auth = fixedToken(options.accessToken)
  } else {
    throw new TypeError("createPartnerpayClient: give clientId and clientSecret, or accessToken")
  }
  return build(transport, baseUrl, auth, options)
}
