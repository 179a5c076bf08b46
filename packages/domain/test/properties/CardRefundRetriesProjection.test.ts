/**
 * The `card_refund_retries` read model (`CardRefundRetriesProjection`) agrees
 * with a card refund's events for any history: listed from when it was asked
 * for, while it is Pending and the processor has neither accepted it nor
 * been asked for it too many times; gone once decided, accepted or given up.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import fc from "fast-check"
import * as CardRefundAttempts from "../../src/cards-and-charity/CardRefundAttempts.ts"
import * as CardRefundRetriesProjection from "../../src/cards-and-charity/CardRefundRetriesProjection.ts"
import * as CardRefunds from "../../src/cards-and-charity/CardRefunds.ts"
import type { CardPaymentId, CompanyId, PartnerId } from "../../src/kernel/Ids.ts"
import type { RefundId } from "../../src/payments/TransferEvents.ts"
import { PropertyParams } from "../../src/testing/index.ts"
import { documentOfLog, instant, iso, type Recorded, usd } from "./RandomHistory.ts"

const seeded = PropertyParams.propertyParams(140)

const refundId = "7f2e3f40-5b6c-4d7e-8f90-1a2b3c4d5ea1" as RefundId
const cardPaymentId = "7f2e3f40-5b6c-4d7e-8f90-1a2b3c4d5ea2" as CardPaymentId
const partnerId = "7f2e3f40-5b6c-4d7e-8f90-1a2b3c4d5ea3" as PartnerId
const payment: CardRefunds.RefundedPayment = {
  cardPaymentId,
  partnerId,
  companyId: "7f2e3f40-5b6c-4d7e-8f90-1a2b3c4d5ea4" as CompanyId,
  amount: usd(5_000),
  processorReference: "pi_1",
}

type Step = "Request" | "Completed" | "Failed" | "Unreachable" | "Submitted"

const step: fc.Arbitrary<Step> = fc.constantFrom("Request", "Completed", "Failed", "Unreachable", "Submitted")

/** Runs the steps on the two deciders; the log of their events, the refund's status, the attempts' state. */
const run = (steps: ReadonlyArray<Step>) => {
  let refunds = CardRefunds.initialState
  let attempts = CardRefundAttempts.initialState
  const log: Array<Recorded> = []
  steps.forEach((kind, n) => {
    const at = instant(n)
    if (kind === "Request" || kind === "Completed" || kind === "Failed") {
      const command: CardRefunds.Command =
        kind === "Request"
          ? { _tag: "RefundCardPayment", payment, refundId, amount: usd(1_000), at }
          : {
              _tag: "RecordCardRefundOutcome",
              refundId,
              outcome: kind === "Completed" ? { _tag: "Completed" } : { _tag: "Failed", reason: "expired_card" },
              at,
            }
      const decision = CardRefunds.decide(command, refunds)
      if (Result.isFailure(decision)) return
      for (const event of decision.success) {
        refunds = CardRefunds.evolve(refunds, event)
        log.push({ streamType: "CardRefunds", streamId: cardPaymentId, event })
      }
      return
    }
    // The processor is asked only for a refund that was asked for.
    if (refunds._tag === "Initial") return
    const decision = CardRefundAttempts.decide(
      {
        _tag: "RecordCardRefundAttempt",
        refundId,
        cardPaymentId,
        answer: kind === "Submitted" ? { _tag: "Submitted" } : { _tag: "Unreachable", reason: "timeout" },
        at,
      },
      attempts,
    )
    if (Result.isFailure(decision)) return
    for (const event of decision.success) {
      attempts = CardRefundAttempts.evolve(attempts, event)
      log.push({ streamType: "CardRefundAttempts", streamId: refundId, event })
    }
  })
  const status = refunds._tag === "Initial" ? undefined : refunds.refunds[0]?.status
  return { log, status, attempts }
}

describe("the card refund retries work list, after any history of one refund", () => {
  it("lists the refund exactly while it is Pending and the processor neither accepted it nor was given up on", () =>
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), (steps) => {
        const { log, status, attempts } = run(steps)
        const listed = documentOfLog(CardRefundRetriesProjection.projection, refundId, log)
        const requested = log.find((recorded) => (recorded.event as { _tag: string })._tag === "CardRefundRequested")
          ?.event as CardRefunds.CardRefundRequested | undefined
        const expected =
          status === "Pending" && attempts.done === undefined && requested !== undefined
            ? { refundId, cardPaymentId, partnerId, requestedAt: iso(requested.at) }
            : undefined
        assert.deepStrictEqual(listed, expected)
        if (listed !== undefined)
          assert.deepStrictEqual(CardRefundRetriesProjection.projection.index(listed), {
            partnerId: CardRefundRetriesProjection.workTenant,
            keys: {},
            sortKey: listed.requestedAt,
          })
      }),
      seeded(),
    ))
})
