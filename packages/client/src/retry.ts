/**
 * When the client retries and how long it waits.
 *
 * Retryable: 429 (rate limited), 503 (service unavailable), 409 with code
 * `IDEMPOTENCY_REQUEST_IN_PROGRESS` or `CONCURRENT_MODIFICATION` (the service stored nothing, see
 * docs/api/cross-cutting.md), and network errors (no answer). Every other answer is final.
 *
 * The wait before retry n (0-based) is an "equal jitter" exponential backoff, `d/2 + random * d/2`
 * with `d = min(maxDelayMs, baseDelayMs * 2^n)`, and never less than the answer's `Retry-After`
 * (seconds or an HTTP date). An answer asking for more than `maxRetryAfterMs` is returned as it
 * is rather than waited for (a long outage is the caller's decision). At most `maxRetries`
 * retries per call.
 */

export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 disables retrying). */
  readonly maxRetries?: number
  /** The first backoff step (default 500 ms). */
  readonly baseDelayMs?: number
  /** The largest backoff step (default 8 s). */
  readonly maxDelayMs?: number
  /** The longest `Retry-After` the client waits for (default 60 s); a longer one is answered to the caller. */
  readonly maxRetryAfterMs?: number
}

export type RetryPolicy = Required<RetryOptions>

export const defaultRetryPolicy: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
}

export const retryPolicy = (options: RetryOptions | false | undefined): RetryPolicy =>
  options === false ? { ...defaultRetryPolicy, maxRetries: 0 } : { ...defaultRetryPolicy, ...options }

/** The 409 codes after which the same request may be sent again. */
export const retryableConflictCodes: ReadonlySet<string> = new Set([
  "IDEMPOTENCY_REQUEST_IN_PROGRESS",
  "CONCURRENT_MODIFICATION",
])

/** Whether the answer asks for the same request again (reads a clone of a 409's body). */
export const isRetryableResponse = async (response: Response): Promise<boolean> => {
  if (response.status === 429 || response.status === 503) return true
  if (response.status !== 409) return false
  try {
    const body: unknown = await response.clone().json()
    const code = typeof body === "object" && body !== null ? (body as { code?: unknown }).code : undefined
    return typeof code === "string" && retryableConflictCodes.has(code)
  } catch {
    return false
  }
}

/** `Retry-After` in milliseconds: delay-seconds or an HTTP date (relative to `nowMs`); undefined when absent or unreadable. */
export const retryAfterMs = (response: Response, nowMs: number): number | undefined => {
  const value = response.headers.get("retry-after")?.trim()
  if (value === undefined || value === "") return undefined
  if (/^\d+$/.test(value)) return Number(value) * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs)
}

/** The jittered backoff before retry `retry` (0-based); `random` in [0, 1). */
export const backoffMs = (policy: RetryPolicy, retry: number, random: number): number => {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry)
  return Math.round(step / 2 + random * (step / 2))
}
