/**
 * `verifyWebhook`: checks a partnerpay webhook delivery with Web Crypto (`crypto.subtle`), so it
 * runs on Node >= 20, Deno, Bun, edge runtimes and browsers alike. The rules are those of
 * docs/webhooks/verifyWebhook.ts (the service's reference snippet), unchanged:
 *
 * - `X-Partnerpay-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>...]`, where v1 is the hex
 *   HMAC-SHA256, keyed with the signing secret, of `<t>.<X-Partnerpay-Event-Id>.<raw body>`;
 * - refused when either header is missing ("missing signature headers"), when there is no `t`
 *   or no well-formed v1 ("malformed signature"), when `t` is further than the tolerance
 *   (default 300 s) from now, in either direction ("timestamp outside tolerance"), and when no
 *   v1 matches ("signature mismatch"); one match among several v1 (a secret rotation) suffices;
 * - the comparison is constant-time; the payload is the parsed raw body.
 *
 * Header names are matched whatever their case (a plain object or a Fetch `Headers`).
 */
import type { webhooks } from "./generated/openapi.ts"

/** The documented webhooks: `{ Live, Event, Data }`, discriminated by `Event`. */
export type WebhookEvent = {
  [E in keyof webhooks]: NonNullable<webhooks[E]["post"]> extends {
    requestBody: { content: { "application/json": infer Envelope } }
  }
    ? Envelope
    : never
}[keyof webhooks]

export type Verdict<Payload = WebhookEvent> =
  | { readonly ok: true; readonly eventId: string; readonly payload: Payload }
  | { readonly ok: false; readonly reason: string }

export type WebhookHeaders = Headers | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

export interface VerifyOptions {
  /** How far the signature's time may be from now, in seconds (default 300: 5 minutes). */
  readonly toleranceSeconds?: number
  /** Now, in unix seconds (default: the clock). */
  readonly nowSeconds?: number
}

/** The default tolerance: 5 minutes. */
export const defaultToleranceSeconds = 5 * 60

const header = (headers: WebhookHeaders, name: string): string | undefined => {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined
  const record = headers as Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name)
  const value = key === undefined ? undefined : record[key]
  return Array.isArray(value) ? value[0] : (value as string | undefined)
}

const encoder = new TextEncoder()

const hexToBytes = (hex: string): Uint8Array => {
  const bytes = new Uint8Array(hex.length / 2)
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return bytes
}

/** Equal lengths assumed (both are 32-byte MACs): every byte is compared, whatever differs. */
const constantTimeEqual = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!
  return difference === 0
}

/**
 * Verifies a delivery: pass the RAW body (the exact bytes received, before any JSON parsing),
 * the request's headers and your signing secret (`GET /Webhooks/Endpoint`). Answer 2xx only
 * when `ok`, then de-duplicate on `eventId` (a retry carries the same id).
 */
export const verifyWebhook = async <Payload = WebhookEvent>(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): Promise<Verdict<Payload>> => {
  const toleranceSeconds = options.toleranceSeconds ?? defaultToleranceSeconds
  const nowSeconds = options.nowSeconds ?? Math.floor(Date.now() / 1000)
  const signature = header(headers, "x-partnerpay-signature")
  const eventId = header(headers, "x-partnerpay-event-id")
  if (signature === undefined || eventId === undefined) return { ok: false, reason: "missing signature headers" }
  let timestamp: number | undefined
  const candidates: Array<string> = []
  for (const part of signature.split(",")) {
    const [key, value] = part.trim().split("=", 2)
    if (key === "t" && value !== undefined && /^\d+$/.test(value)) timestamp = Number(value)
    if (key === "v1" && value !== undefined && /^[0-9a-f]{64}$/.test(value)) candidates.push(value)
  }
  if (timestamp === undefined || candidates.length === 0) return { ok: false, reason: "malformed signature" }
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return { ok: false, reason: "timestamp outside tolerance" }
  const body = typeof rawBody === "string" ? encoder.encode(rawBody) : rawBody
  const prefix = encoder.encode(`${timestamp}.${eventId}.`)
  const signed = new Uint8Array(prefix.length + body.length)
  signed.set(prefix, 0)
  signed.set(body, prefix.length)
  const key = await globalThis.crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  )
  const expected = new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", key, signed))
  let matches = false
  // Every candidate is compared (no early exit), each in constant time.
  for (const candidate of candidates) if (constantTimeEqual(hexToBytes(candidate), expected)) matches = true
  if (!matches) return { ok: false, reason: "signature mismatch" }
  return { ok: true, eventId, payload: JSON.parse(new TextDecoder().decode(body)) as Payload }
}
