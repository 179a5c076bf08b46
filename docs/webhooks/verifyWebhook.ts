// Verifying a partnerpay webhook (Node.js 18+, no dependencies).
// Copy this file into your receiver. Pass the RAW request body (the exact bytes
// received, before any JSON parsing) and the request headers.
import { createHmac, timingSafeEqual } from "node:crypto"

/** How old a delivery may be: 5 minutes (older ones are refused as possible replays). */
export const toleranceSeconds = 5 * 60

export type Verdict =
  | { readonly ok: true; readonly eventId: string; readonly payload: unknown }
  | { readonly ok: false; readonly reason: string }

type Headers = Record<string, string | ReadonlyArray<string> | undefined>

const header = (headers: Headers, name: string): string | undefined => {
  const value = headers[name] ?? headers[name.toLowerCase()]
  return Array.isArray(value) ? value[0] : (value as string | undefined)
}

/**
 * Checks `X-Partnerpay-Signature: t=<unix seconds>,v1=<hex>` where v1 is the
 * HMAC-SHA256, keyed with your signing secret, of `<t>.<X-Partnerpay-Event-Id>.<raw body>`.
 * Refuses a signature older (or further in the future) than 5 minutes. Several
 * v1 entries may be present (e.g. during a secret rotation): one match is enough.
 */
export const verifyWebhook = (
  rawBody: string | Uint8Array,
  headers: Headers,
  secret: string,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): Verdict => {
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
  const body = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : Buffer.from(rawBody)
  const expected = createHmac("sha256", secret).update(`${timestamp}.${eventId}.`, "utf8").update(body).digest()
  const matches = candidates.some((candidate) => timingSafeEqual(Buffer.from(candidate, "hex"), expected))
  if (!matches) return { ok: false, reason: "signature mismatch" }
  return { ok: true, eventId, payload: JSON.parse(body.toString("utf8")) }
}
