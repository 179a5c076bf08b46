/**
 * Executable specification of "unavailable, try again" when the rail is asked
 * where an ORIGINATED movement stands (issue 35 §1): the status question is
 * deferred with the origination's backoff (`MovementAttempts.ts`: 30 s
 * doubling to 1 h, with jitter), the first answer after an outage ends it,
 * and after 72 hours of continuous outage the movement (a debit or a refund's
 * credit) fails with a reason saying so.
 */
import { describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import type { TransferId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as Transfer from "../../src/payments/Transfer.ts"
import {
  type RefundId,
  TransferFailed,
  TransferOriginated,
  TransferRefundCompleted,
  TransferRefundFailed,
  TransferRefundOriginated,
  TransferRefundRequested,
  TransferSettled,
  TransferStatusDeferred,
  TransferStatusResumed,
} from "../../src/payments/TransferEvents.ts"
import { DeciderSpecification } from "../../src/testing/index.ts"
import { transferInitiated } from "../fixtures/TransferFixtures.ts"

const spec = DeciderSpecification.forAggregate(Transfer.aggregate)

const transferId = "8c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e50" as TransferId
const refundId = "9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e60" as RefundId
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const later = DateTime.makeUnsafe("2026-03-01T11:00:00.000Z")
const plus = (base: DateTime.Utc, millis: number) => DateTime.makeUnsafe(DateTime.toEpochMillis(base) + millis)
const hours = (n: number) => n * 3_600_000
const outage = "transfer status: Dwolla answered 503"

const initiated = transferInitiated("8c1d2e3f", transferId, at)
const originated = TransferOriginated.make({ transferId, providerReference: "dw-1", at })
const settled = TransferSettled.make({ transferId, at })
const refundRequested = TransferRefundRequested.make({ transferId, refundId, amount: Money.make(2_500, "USD"), at })
const refundOriginated = TransferRefundOriginated.make({ transferId, refundId, providerReference: "dw-r1", at })
/** A settled transfer whose refund the rail has taken, its outcome not known yet. */
const refundInFlight = [initiated, originated, settled, refundRequested, refundOriginated]

const unavailable = (when: DateTime.Utc, jitter = 0, refund?: RefundId): Transfer.RecordStatusUnavailable => ({
  _tag: "RecordStatusUnavailable",
  transferId,
  ...(refund === undefined ? {} : { refundId: refund }),
  reason: outage,
  jitter,
  at: when,
})
const answered = (when: DateTime.Utc, refund?: RefundId): Transfer.RecordStatusAnswered => ({
  _tag: "RecordStatusAnswered",
  transferId,
  ...(refund === undefined ? {} : { refundId: refund }),
  at: when,
})
const deferred = (failures: number, firstFailedAt: DateTime.Utc, when: DateTime.Utc, retryAt: DateTime.Utc) =>
  TransferStatusDeferred.make({ transferId, failures, firstFailedAt, retryAt, reason: outage, at: when })

describe("a Pending transfer originated, its status asked", () => {
  it("the rail unavailable: the status question deferred (still Pending) until half to all of the 30 s base later", () => {
    spec
      .given([initiated, originated])
      .when(unavailable(at, 0))
      .then([deferred(1, at, at, plus(at, 15_000))])
  })
  it("unavailable again: the wait doubles, counted from the first failure", () => {
    const now = plus(at, 30_000)
    spec
      .given([initiated, originated, deferred(1, at, at, now)])
      .when(unavailable(now, 0.999_999))
      .then([deferred(2, at, now, plus(now, 59_999))])
  })
  it("the wait never exceeds an hour, however long the outage", () => {
    const now = plus(at, hours(40))
    spec
      .given([initiated, originated, deferred(60, at, plus(at, hours(39)), now)])
      .when(unavailable(now, 0.999_999))
      .then([deferred(61, at, now, plus(now, 3_599_998))])
  })
  it("unavailable 72 hours after the first failure: Failed, no return code, saying the rail stayed unavailable", () => {
    const now = plus(at, hours(72))
    spec
      .given([initiated, originated, deferred(75, at, plus(at, hours(71)), now)])
      .when(unavailable(now))
      .then([
        TransferFailed.make({
          transferId,
          reason: `the rail stayed unavailable for 72 hours (last: ${outage})`,
          at: now,
        }),
      ])
  })
  it("answered after an outage: the outage ends (its backoff forgotten)", () => {
    spec
      .given([initiated, originated, deferred(3, at, later, plus(later, 60_000))])
      .when(answered(plus(later, 60_000)))
      .then([TransferStatusResumed.make({ transferId, at: plus(later, 60_000) })])
  })
  it("a new outage after an answer counts its 72 hours from its own first failure", () => {
    const now = plus(at, hours(80))
    spec
      .given([
        initiated,
        originated,
        deferred(70, at, plus(at, hours(70)), plus(at, hours(71))),
        TransferStatusResumed.make({ transferId, at: plus(at, hours(71)) }),
      ])
      .when(unavailable(now, 0))
      .then([deferred(1, now, now, plus(now, 15_000))])
  })
  it("answered without an outage: nothing changes (no event per poll)", () => {
    spec.given([initiated, originated]).when(answered(later)).thenNothingHappens()
  })
})

describe("no transfer", () => {
  it("a status outage or answer about it is refused: the transfer is not found", () => {
    spec.given([]).when(unavailable(later)).thenFails({ _tag: "NotFound", entity: "Transfer" })
    spec.given([]).when(answered(later)).thenFails({ _tag: "NotFound", entity: "Transfer" })
  })
})

describe("a Pending transfer originated, the rail's words missing", () => {
  it("a status outage without a reason is refused on reason", () => {
    spec
      .given([initiated, originated])
      .when({ ...unavailable(later), reason: " " })
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "reason", message: "must not be empty" }] })
  })
})

describe("a Pending transfer not originated yet", () => {
  it("a status outage changes nothing (its origination has its own backoff)", () => {
    spec.given([initiated]).when(unavailable(later)).thenNothingHappens()
  })
})

describe("a Settled transfer", () => {
  it("a status outage changes nothing (the money arrived; a return is still asked about)", () => {
    spec.given([initiated, originated, settled]).when(unavailable(later)).thenNothingHappens()
  })
  it("its refund's credit with the rail unavailable: the status question deferred with backoff", () => {
    spec
      .given(refundInFlight)
      .when(unavailable(later, 0, refundId))
      .then([
        TransferStatusDeferred.make({
          transferId,
          refundId,
          failures: 1,
          firstFailedAt: later,
          retryAt: plus(later, 15_000),
          reason: outage,
          at: later,
        }),
      ])
  })
  it("its refund's credit unavailable for 72 hours: the refund Failed, its amount freed", () => {
    const now = plus(later, hours(72))
    spec
      .given([
        ...refundInFlight,
        TransferStatusDeferred.make({
          transferId,
          refundId,
          failures: 75,
          firstFailedAt: later,
          retryAt: now,
          reason: outage,
          at: plus(later, hours(71)),
        }),
      ])
      .when(unavailable(now, 0, refundId))
      .then([
        TransferRefundFailed.make({
          transferId,
          refundId,
          amount: Money.make(2_500, "USD"),
          reason: `the rail stayed unavailable for 72 hours (last: ${outage})`,
          at: now,
        }),
      ])
  })
  it("an outage or answer about a refund it does not have is refused: the refund is not found", () => {
    const other = "9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e61" as RefundId
    spec
      .given(refundInFlight)
      .when(unavailable(later, 0, other))
      .thenFails({ _tag: "NotFound", entity: "Refund" })
    spec.given(refundInFlight).when(answered(later, other)).thenFails({ _tag: "NotFound", entity: "Refund" })
  })
  it("its refund's credit answered after an outage: the refund's outage ends, and a new one counts from its own first failure", () => {
    const refundDeferred = TransferStatusDeferred.make({
      transferId,
      refundId,
      failures: 3,
      firstFailedAt: at,
      retryAt: later,
      reason: outage,
      at,
    })
    spec
      .given([...refundInFlight, refundDeferred])
      .when(answered(later, refundId))
      .then([TransferStatusResumed.make({ transferId, refundId, at: later })])
    const now = plus(later, hours(1))
    spec
      .given([...refundInFlight, refundDeferred, TransferStatusResumed.make({ transferId, refundId, at: later })])
      .when(unavailable(now, 0, refundId))
      .then([
        TransferStatusDeferred.make({
          transferId,
          refundId,
          failures: 1,
          firstFailedAt: now,
          retryAt: plus(now, 15_000),
          reason: outage,
          at: now,
        }),
      ])
  })
  it("its refund's credit answered without an outage: nothing changes", () => {
    spec.given(refundInFlight).when(answered(later, refundId)).thenNothingHappens()
  })
  it("a refund completed: a status outage or answer about it changes nothing", () => {
    const completed = TransferRefundCompleted.make({
      transferId,
      refundId,
      amount: Money.make(2_500, "USD"),
      totalRefunded: Money.make(2_500, "USD"),
      isRefunded: false,
      at: later,
    })
    spec
      .given([...refundInFlight, completed])
      .when(unavailable(plus(later, 1_000), 0, refundId))
      .thenNothingHappens()
    spec
      .given([
        ...refundInFlight,
        TransferStatusDeferred.make({
          transferId,
          refundId,
          failures: 1,
          firstFailedAt: at,
          retryAt: later,
          reason: outage,
          at,
        }),
        completed,
      ])
      .when(answered(plus(later, 1_000), refundId))
      .thenNothingHappens()
  })
  it("a refund not originated yet: a status outage changes nothing", () => {
    spec
      .given([initiated, originated, settled, refundRequested])
      .when(unavailable(later, 0, refundId))
      .thenNothingHappens()
  })
})

describe("a Failed transfer", () => {
  it("a status outage changes nothing", () => {
    const failed = TransferFailed.make({
      transferId,
      reason: "Insufficient funds",
      returnCode: "R01",
      at,
    })
    spec.given([initiated, originated, failed]).when(unavailable(later)).thenNothingHappens()
  })
})
