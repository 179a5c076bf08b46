/**
 * Executable specification of the three decisions on a money movement
 * (issue 35): "returned" (the bank's ACH return code: Failed or Returned with
 * it), "refused" (the rail would not originate it: Failed at once, no return
 * code, the rail's words) and "unavailable, try again" (deferred with
 * exponential backoff and jitter, Failed after 72 hours of outage), on the
 * Transfer (a debit and a refund's credit), and the backoff's bounds as
 * properties (`MovementAttempts.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import fc from "fast-check"
import type { TransferId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as MovementAttempts from "../../src/payments/MovementAttempts.ts"
import * as Transfer from "../../src/payments/Transfer.ts"
import {
  type RefundId,
  TransferFailed,
  TransferOriginated,
  TransferOriginationDeferred,
  TransferRefundFailed,
  TransferRefundRequested,
  TransferSettled,
} from "../../src/payments/TransferEvents.ts"
import { DeciderSpecification, PropertyParams } from "../../src/testing/index.ts"
import { transferInitiated } from "../fixtures/TransferFixtures.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(2026_11_28_35)

const spec = DeciderSpecification.forAggregate(Transfer.aggregate)

const transferId = "6c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e50" as TransferId
const refundId = "7c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e60" as RefundId
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const later = DateTime.makeUnsafe("2026-03-01T11:00:00.000Z")
const plus = (base: DateTime.Utc, millis: number) => DateTime.makeUnsafe(DateTime.toEpochMillis(base) + millis)

const initiated = transferInitiated("6c1d2e3f", transferId, at)
const settled = TransferSettled.make({ transferId, at })
const refundRequested = TransferRefundRequested.make({ transferId, refundId, amount: Money.make(2_500, "USD"), at })

const outcome = (value: Transfer.Outcome): Transfer.RecordOutcome => ({
  _tag: "RecordOutcome",
  transferId,
  outcome: value,
  at: later,
})
const unavailable = (when: DateTime.Utc, jitter = 0.5, refund?: RefundId): Transfer.RecordOriginationUnavailable => ({
  _tag: "RecordOriginationUnavailable",
  transferId,
  ...(refund === undefined ? {} : { refundId: refund }),
  reason: "create transfer: Dwolla answered 503",
  jitter,
  at: when,
})

describe("a Pending transfer not originated yet", () => {
  it("refused by the rail: Failed at once, no return code, the rail's words as the reason", () => {
    spec
      .given([initiated])
      .when(outcome({ _tag: "Refused", reason: "Receiver exceeds weekly limit." }))
      .then([TransferFailed.make({ transferId, reason: "Receiver exceeds weekly limit.", at: later })])
  })
  it("refused with an empty reason: refused as invalid, naming reason", () => {
    spec
      .given([initiated])
      .when(outcome({ _tag: "Refused", reason: " " }))
      .thenFails({ _tag: "ValidationFailed" })
  })
  it("returned by the bank before settlement: Failed with the ACH return code and its description", () => {
    spec
      .given([initiated])
      .when(outcome({ _tag: "Failed", returnCode: "R01" }))
      .then([
        TransferFailed.make({
          transferId,
          returnCode: "R01",
          reason: "Insufficient funds",
          at: later,
        }),
      ])
  })
  it("the rail unavailable: deferred (still Pending) until half to all of the 30 s base later", () => {
    spec
      .given([initiated])
      .when(unavailable(at, 0))
      .then([
        TransferOriginationDeferred.make({
          transferId,
          failures: 1,
          firstFailedAt: at,
          retryAt: plus(at, 15_000),
          reason: "create transfer: Dwolla answered 503",
          at,
        }),
      ])
  })
  it("unavailable again: the wait doubles, counted from the first failure", () => {
    const first = TransferOriginationDeferred.make({
      transferId,
      failures: 1,
      firstFailedAt: at,
      retryAt: plus(at, 30_000),
      reason: "timeout",
      at,
    })
    const now = plus(at, 30_000)
    spec
      .given([initiated, first])
      .when(unavailable(now, 0.999_999))
      .then([
        TransferOriginationDeferred.make({
          transferId,
          failures: 2,
          firstFailedAt: at,
          retryAt: plus(now, 59_999),
          reason: "create transfer: Dwolla answered 503",
          at: now,
        }),
      ])
  })
  it("unavailable 72 hours after the first failure: Failed, no return code, saying the rail stayed unavailable", () => {
    const deferred = TransferOriginationDeferred.make({
      transferId,
      failures: 75,
      firstFailedAt: at,
      retryAt: plus(at, 72 * 3_600_000),
      reason: "timeout",
      at: plus(at, 71 * 3_600_000),
    })
    const now = plus(at, 72 * 3_600_000)
    spec
      .given([initiated, deferred])
      .when(unavailable(now))
      .then([
        TransferFailed.make({
          transferId,
          reason: "the rail stayed unavailable for 72 hours (last: create transfer: Dwolla answered 503)",
          at: now,
        }),
      ])
  })
})

describe("a Pending transfer already originated", () => {
  it("an outage of the originator changes nothing (the movement exists)", () => {
    spec
      .given([initiated, TransferOriginated.make({ transferId, providerReference: "dw-1", at })])
      .when(unavailable(later))
      .thenNothingHappens()
  })
})

describe("a Settled transfer", () => {
  it("a refusal changes nothing (it comes before any money moved)", () => {
    spec
      .given([initiated, settled])
      .when(outcome({ _tag: "Refused", reason: "late refusal" }))
      .thenNothingHappens()
  })
  it("a refund's credit refused by the rail: the refund Failed at once, no return code, its amount freed", () => {
    spec
      .given([initiated, settled, refundRequested])
      .when({
        _tag: "RecordRefundOutcome",
        transferId,
        refundId,
        outcome: { _tag: "Refused", reason: "Funding source removed." },
        at: later,
      })
      .then([
        TransferRefundFailed.make({
          transferId,
          refundId,
          amount: Money.make(2_500, "USD"),
          reason: "Funding source removed.",
          at: later,
        }),
      ])
  })
  it("a refund's credit with the rail unavailable: deferred with backoff", () => {
    spec
      .given([initiated, settled, refundRequested])
      .when(unavailable(later, 0, refundId))
      .then([
        TransferOriginationDeferred.make({
          transferId,
          refundId,
          failures: 1,
          firstFailedAt: later,
          retryAt: plus(later, 15_000),
          reason: "create transfer: Dwolla answered 503",
          at: later,
        }),
      ])
  })
})

describe("a Failed transfer", () => {
  it("a later refusal or outage changes nothing", () => {
    const failed = TransferFailed.make({ transferId, reason: "Receiver exceeds weekly limit.", at })
    spec
      .given([initiated, failed])
      .when(outcome({ _tag: "Refused", reason: "again" }))
      .thenNothingHappens()
    spec.given([initiated, failed]).when(unavailable(later)).thenNothingHappens()
  })
})

describe("the backoff of an unavailable rail", () => {
  const failures = fc.integer({ min: 1, max: 200 })
  const jitter = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })

  it("never waits less than half the base (never on every poll) nor more than the cap", () => {
    fc.assert(
      fc.property(failures, jitter, (n, j) => {
        const delay = MovementAttempts.delayOf(n, j)
        assert.isAtLeast(delay, MovementAttempts.defaults.baseMillis / 2)
        assert.isAtMost(delay, MovementAttempts.defaults.capMillis)
      }),
      seeded({ numRuns: 200 }),
    )
  })

  it("waits at least as long after each further failure, up to the cap (the ceiling doubles)", () => {
    fc.assert(
      fc.property(failures, (n) => {
        const ceiling = MovementAttempts.ceilingOf(n)
        const next = MovementAttempts.ceilingOf(n + 1)
        assert.strictEqual(next, Math.min(2 * ceiling, MovementAttempts.defaults.capMillis))
      }),
      seeded({ numRuns: 200 }),
    )
  })

  it("retries until the outage reaches 72 hours, and gives up from then on", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 * 3_600_000 }), jitter, (elapsed, j) => {
        const previous: MovementAttempts.Attempts = { failures: 3, firstFailedAt: at, retryAt: at }
        const next = MovementAttempts.afterUnavailable(previous, plus(at, elapsed), j, "timeout")
        assert.strictEqual(next._tag, elapsed >= 72 * 3_600_000 ? "GiveUp" : "RetryAt")
        if (next._tag === "RetryAt") {
          assert.strictEqual(next.attempts.failures, 4)
          assert.deepStrictEqual(next.attempts.firstFailedAt, at)
          assert.isTrue(
            DateTime.toEpochMillis(next.attempts.retryAt) > DateTime.toEpochMillis(plus(at, elapsed)),
            "the next attempt is later than now",
          )
        }
      }),
      seeded({ numRuns: 200 }),
    )
  })

  it("a movement is due once its next attempt has come (or when it was never deferred)", () => {
    const attempts: MovementAttempts.Attempts = { failures: 1, firstFailedAt: at, retryAt: later }
    assert.isTrue(MovementAttempts.isDue(undefined, at))
    assert.isFalse(MovementAttempts.isDue(attempts, at))
    assert.isTrue(MovementAttempts.isDue(attempts, later))
  })
})
