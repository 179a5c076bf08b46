/**
 * Test support: HTTP calls to a running service (in-process or the real
 * process), in one place instead of a copy per test file. A bearer token and
 * a JSON body are sent when given; the answer's JSON body is read (undefined
 * when empty).
 */
import { assert } from "@effect/vitest"
import { eventually } from "./support.ts"

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read field by field and asserted
export type Json = any

export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: Json
}

export interface RequestOptions {
  readonly token?: string | undefined
  readonly body?: unknown
  readonly headers?: Record<string, string> | undefined
}

/** Sends `method` to `url` with the bearer token and the JSON body when given; the raw response. */
export const send = (url: string, method: string, options: RequestOptions = {}): Promise<Response> => {
  const headers: Record<string, string> = {}
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
  if (options.body !== undefined) headers["content-type"] = "application/json"
  return fetch(url, {
    method,
    headers: { ...headers, ...options.headers },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  })
}

/** Sends `method path` to the service at `base`; the answer, with its JSON body. */
export const request = async (
  base: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Answer> => {
  const response = await send(`${base}${path}`, method, options)
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text === "" ? undefined : JSON.parse(text) }
}

/** `request` with the token, the body and more headers as arguments. */
export const call = (
  base: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<Answer> => request(base, method, path, { token, body, headers })

/** The body of a 200 answer; another status fails the test, naming the request and the answer. */
export const ok = async (base: string, method: string, path: string, token?: string, body?: unknown): Promise<Json> => {
  const answer = await call(base, method, path, token, body)
  assert.strictEqual(answer.status, 200, `${method} ${path}: ${JSON.stringify(answer.body)}`)
  return answer.body
}

/** The body of a successful (2xx) answer; another status throws, naming the request and the answer. */
export const succeeded = async (
  base: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<Json> => {
  const answer = await call(base, method, path, token, body, headers)
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`)
  return answer.body
}

/** Polls `GET path` (one request at a time) until `accept` holds for its body; that body. */
export const until = (
  base: string,
  path: string,
  token: string,
  accept: (body: Json) => boolean,
  timeoutMillis = 15_000,
): Promise<Json> => {
  let last: Json
  let pending = false
  return eventually(() => {
    if (!pending) {
      pending = true
      void call(base, "GET", path, token).then((answer) => {
        last = answer.body
        pending = false
      })
    }
    return last !== undefined && accept(last) ? last : undefined
  }, timeoutMillis)
}

/**
 * Registers a company (`POST /Company/Create` with `body`) and waits until the sandbox KYB
 * verified it (keep PARTNERPAY_KYB_DELAY_MS small in tests): only a Verified company collects
 * payments. Its id.
 */
export const verifiedCompany = async (base: string, token: string, body: unknown): Promise<string> => {
  const { companyId } = await ok(base, "POST", "/Company/Create", token, body)
  await until(base, `/company/status?companyId=${companyId}`, token, (status) => status.Status === "Verified")
  return companyId as string
}

/**
 * The customer's identity verification, then a bank link in its session (sandbox): StartKyc,
 * CheckVerification (Verified at the first check unless the device id says otherwise), then
 * `PUT /Account/Link` of the checking account. Only a Verified payer pays. The link result.
 */
export const verifyAndLink = async (
  base: string,
  customerToken: string,
  options: { readonly deviceId?: string; readonly publicToken?: string } = {},
): Promise<Json> => {
  const session = await ok(base, "POST", "/Verification/StartKyc", customerToken, {
    deviceId: options.deviceId ?? "my-phone",
  })
  await ok(base, "GET", "/Verification/CheckVerification", customerToken)
  return ok(base, "PUT", "/Account/Link", customerToken, {
    tokenId: session.tokenId,
    publicToken: options.publicToken ?? "public-sandbox-ok",
    linkAccountsMetadata: { linkSessionId: "link-1", institutionId: "ins_1", accountIds: ["acc-checking"] },
  })
}

/** `call`, `ok`, `until` and the helpers above on the service at `base()` (read at each call: the service may start later). */
export const on = (base: () => string) => ({
  call: (method: string, path: string, token?: string, body?: unknown, headers?: Record<string, string>) =>
    call(base(), method, path, token, body, headers),
  ok: (method: string, path: string, token?: string, body?: unknown) => ok(base(), method, path, token, body),
  until: (path: string, token: string, accept: (body: Json) => boolean, timeoutMillis?: number) =>
    until(base(), path, token, accept, timeoutMillis),
  verifiedCompany: (token: string, body: unknown) => verifiedCompany(base(), token, body),
  verifyAndLink: (customerToken: string, options?: { readonly deviceId?: string; readonly publicToken?: string }) =>
    verifyAndLink(base(), customerToken, options),
})
