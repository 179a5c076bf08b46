/**
 * The `sandbox_card_disputes` read model (`SandboxDisputesProjection`) agrees
 * with the events of a card payment and its disputes, for any history: a
 * company's card payment (in the app or on a terminal) made with the card
 * ending in 0259 is listed to be disputed from when it was paid; once the
 * sandbox's dispute of it opened, listed to be lost from when it opened; gone
 * when that dispute changes status or is decided. Other cards, terminal
 * payments for no company and disputes other than the sandbox's change
 * nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import fc from "fast-check"
import * as SandboxDisputesProjection from "../../src/cards-and-charity/SandboxDisputesProjection.ts"
import { PropertyParams } from "../../src/testing/index.ts"
import { documentOfLog, instant, type Recorded, usd, uuid } from "./RandomHistory.ts"

const seeded = PropertyParams.propertyParams(38)

/** A history of one card payment, in domain words. */
interface Story {
  readonly cardPaymentId: string
  readonly partnerId: string
  readonly companyId: string
  readonly paymentRequestId: string
  readonly inApp: boolean
  /** A terminal payment's company is named (absent: a merchant outside the service). */
  readonly forCompany: boolean
  readonly last4: string
  /** Dispute events, in order: by the sandbox's dispute or another one. */
  readonly disputes: ReadonlyArray<{
    readonly sandbox: boolean
    readonly event: "Opened" | "StatusChanged" | "Closed"
  }>
}

const story: fc.Arbitrary<Story> = fc.record({
  cardPaymentId: uuid,
  partnerId: uuid,
  companyId: uuid,
  paymentRequestId: uuid,
  inApp: fc.boolean(),
  forCompany: fc.boolean(),
  last4: fc.constantFrom(SandboxDisputesProjection.disputedLast4, "4242"),
  disputes: fc.array(
    fc.record({
      sandbox: fc.boolean(),
      event: fc.constantFrom("Opened" as const, "StatusChanged" as const, "Closed" as const),
    }),
    { maxLength: 4 },
  ),
})

/** The events of the story as the streams record them (a dispute opens once, then changes, then closes). */
const logOf = (s: Story): ReadonlyArray<Recorded & { readonly at: DateTime.Utc }> => {
  const paid = instant(0)
  const payment = s.inApp
    ? {
        streamType: "PaymentRequest" as const,
        streamId: s.paymentRequestId,
        event: {
          _tag: "PaymentRequestPaidByCard",
          paymentRequestId: s.paymentRequestId,
          registrationId: s.partnerId,
          cardPaymentId: s.cardPaymentId,
          paymentMethodId: "pm_1",
          brand: "visa",
          last4: s.last4,
          processorReference: "ch_1",
          status: "Paid",
          at: paid,
        },
        at: paid,
      }
    : {
        streamType: "CardPayment" as const,
        streamId: s.cardPaymentId,
        event: {
          _tag: "CardPaymentRegistered",
          cardPaymentId: s.cardPaymentId,
          partnerId: s.partnerId,
          merchantId: s.companyId,
          amount: usd(7_000),
          last4: s.last4,
          brand: "visa",
          externalReference: "term-1",
          ...(s.forCompany ? { companyId: s.companyId } : {}),
          at: paid,
        },
        at: paid,
      }
  const opened = new Set<boolean>()
  const closed = new Set<boolean>()
  const disputes = s.disputes.flatMap(({ sandbox, event }, n) => {
    if (closed.has(sandbox) || (event !== "Opened") !== opened.has(sandbox)) return []
    if (event === "Opened") opened.add(sandbox)
    if (event === "Closed") closed.add(sandbox)
    const disputeId = sandbox ? SandboxDisputesProjection.sandboxDisputeId(s.cardPaymentId) : `dp_${n}`
    const at = instant(n + 1)
    const dispute = {
      disputeId,
      payment: {
        cardPaymentId: s.cardPaymentId,
        ...(s.inApp ? { paymentRequestId: s.paymentRequestId } : {}),
        partnerId: s.partnerId,
        companyId: s.companyId,
      },
      amount: usd(7_000),
      fee: usd(1_500),
      reason: "fraudulent",
    }
    const recorded =
      event === "Closed"
        ? { _tag: "CardDisputeClosed", dispute, outcome: "Lost", at }
        : { _tag: `CardDispute${event}`, dispute, status: "NeedsResponse", at }
    return [{ streamType: "CardDispute" as const, streamId: disputeId, event: recorded, at }]
  })
  return [payment, ...disputes]
}

/** What the work list should say of the story. */
const expected = (s: Story): SandboxDisputesProjection.SandboxDisputeDocument | undefined => {
  const sandbox = logOf(s).filter(
    (recorded) => recorded.streamType === "CardDispute" && recorded.streamId.startsWith("dp_sandbox_"),
  )
  // The sandbox's dispute is listed by its own events (the worker opens it only for a listed payment).
  if (sandbox.length > 1) return undefined
  if (sandbox.length === 1)
    return {
      cardPaymentId: s.cardPaymentId,
      step: "Lose",
      partnerId: s.partnerId,
      disputeId: SandboxDisputesProjection.sandboxDisputeId(s.cardPaymentId),
      dueFrom: DateTime.formatIso(sandbox[0]!.at),
    }
  if (s.last4 !== SandboxDisputesProjection.disputedLast4 || (!s.inApp && !s.forCompany)) return undefined
  return {
    cardPaymentId: s.cardPaymentId,
    step: "Dispute",
    ...(s.inApp ? { paymentRequestId: s.paymentRequestId } : { partnerId: s.partnerId }),
    dueFrom: DateTime.formatIso(instant(0)),
  }
}

describe("the sandbox's dispute work list, after any history of a card payment", () => {
  it("lists a company's 0259 payment to dispute, its sandbox dispute to lose, and nothing once decided", () => {
    fc.assert(
      fc.property(story, (s) => {
        assert.deepStrictEqual(
          documentOfLog(SandboxDisputesProjection.projection, s.cardPaymentId, logOf(s)),
          expected(s),
        )
      }),
      seeded(),
    )
  })

  it("is the system tenant's, by step, in the order the steps fall due", () => {
    const doc: SandboxDisputesProjection.SandboxDisputeDocument = {
      cardPaymentId: "cp",
      step: "Lose",
      dueFrom: "2026-03-01T10:00:00.000Z",
    }
    assert.deepStrictEqual(SandboxDisputesProjection.projection.index(doc), {
      partnerId: "00000000-0000-0000-0000-000000000000",
      keys: { step: "Lose" },
      sortKey: "2026-03-01T10:00:00.000Z",
    })
  })
})
