/**
 * "Unavailable, try again": the third decision on a money movement, next to
 * "refused" (Failed at once, no return code) and "returned" (Failed or
 * Returned with the bank's ACH return code). A rail that cannot be reached
 * (a timeout, a 5xx, a 429: `ProviderUnavailable`) leaves the movement
 * Pending and asks again later, with exponential backoff and jitter: after
 * the n-th failure in a row, the next attempt waits between half and all of
 * min(cap, base x 2^(n-1)) (by default 30 s doubling up to 1 h; "equal
 * jitter": never sooner than half the base, so never on every poll; several
 * instances do not retry in step). After `giveUpAfterMillis` (72 h) of
 * outage since the first failure, the movement fails with a reason saying so.
 *
 * Pure: the time and the jitter (a number in [0, 1)) are inputs. The attempts
 * are recorded as events of the movement's aggregate (`TransferOriginationDeferred`,
 * `PayoutOriginationDeferred`; for the status question of an originated
 * movement, `TransferStatusDeferred`, ended by `TransferStatusResumed`), so
 * they survive restarts and every instance reads the same next attempt.
 */
import { DateTime } from "effect"

/** The bounds of the backoff. */
export interface Backoff {
  /** The wait after the first failure (before jitter). */
  readonly baseMillis: number
  /** The longest wait. */
  readonly capMillis: number
  /** How long an outage lasts before the movement fails. */
  readonly giveUpAfterMillis: number
}

/** 30 s doubling up to 1 h; fail after 72 h. */
export const defaults: Backoff = { baseMillis: 30_000, capMillis: 3_600_000, giveUpAfterMillis: 72 * 3_600_000 }

/** The failures in a row so far, since when, and when to try again. */
export interface Attempts {
  readonly failures: number
  readonly firstFailedAt: DateTime.Utc
  readonly retryAt: DateTime.Utc
}

/** The wait after the `failures`-th failure in a row, before jitter: base x 2^(failures-1), at most the cap. */
export const ceilingOf = (failures: number, backoff: Backoff = defaults): number =>
  Math.min(backoff.capMillis, backoff.baseMillis * 2 ** Math.min(Math.max(failures, 1) - 1, 40))

/** The wait with `jitter` in [0, 1): between half the ceiling and the ceiling (a jitter outside is clamped). */
export const delayOf = (failures: number, jitter: number, backoff: Backoff = defaults): number => {
  const ceiling = ceilingOf(failures, backoff)
  const clamped = Number.isFinite(jitter) ? Math.min(Math.max(jitter, 0), 1) : 0
  return Math.floor(ceiling / 2 + (clamped * ceiling) / 2)
}

/** What to do after the rail was unavailable once more. */
export type Next =
  | { readonly _tag: "RetryAt"; readonly attempts: Attempts }
  | { readonly _tag: "GiveUp"; readonly reason: string }

/** The reason a movement fails with after the outage limit. */
export const gaveUpReason = (backoff: Backoff, lastReason: string): string =>
  `the rail stayed unavailable for ${Math.round(backoff.giveUpAfterMillis / 3_600_000)} hours (last: ${lastReason})`

/**
 * The decision after the rail was unavailable at `at` (the attempts before, if any): try again at
 * `at` + the backoff's delay, or give up once the outage has lasted `giveUpAfterMillis`.
 */
export const afterUnavailable = (
  previous: Attempts | undefined,
  at: DateTime.Utc,
  jitter: number,
  reason: string,
  backoff: Backoff = defaults,
): Next => {
  const firstFailedAt = previous?.firstFailedAt ?? at
  if (DateTime.toEpochMillis(at) - DateTime.toEpochMillis(firstFailedAt) >= backoff.giveUpAfterMillis)
    return { _tag: "GiveUp", reason: gaveUpReason(backoff, reason) }
  const failures = (previous?.failures ?? 0) + 1
  return {
    _tag: "RetryAt",
    attempts: {
      failures,
      firstFailedAt,
      retryAt: DateTime.makeUnsafe(DateTime.toEpochMillis(at) + delayOf(failures, jitter, backoff)),
    },
  }
}

/** Whether a movement deferred by `attempts` may be tried at `at`. */
export const isDue = (attempts: Attempts | undefined, at: DateTime.Utc): boolean =>
  attempts === undefined || DateTime.toEpochMillis(attempts.retryAt) <= DateTime.toEpochMillis(at)
