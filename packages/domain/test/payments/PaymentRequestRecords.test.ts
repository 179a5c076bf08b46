/**
 * Executable specification of what a PaymentRequest's acceptance and card payment record beside the
 * payment itself: the payer's authorization evidence (a manual acceptance through a request, an autopay
 * collection under the payer's designation, a card payment authorized through a request or after 3-D
 * Secure), and the card payment's availability date, platform fee and its schedule.
 */
import { describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import * as AuthorizationEvidence from "../../src/payments/AuthorizationEvidence.ts"
import * as PaymentRequest from "../../src/payments/PaymentRequest.ts"
import {
  PaymentRequestAccepted,
  PaymentRequestCreated,
  PaymentRequestPaidByCard,
} from "../../src/payments/PaymentRequestEvents.ts"
import { DeciderSpecification } from "../../src/testing/index.ts"
import {
  acceptByHand,
  acceptedAutomatically,
  acceptedByHand,
  collect,
  created,
  onDueDate,
  paidByCard,
  payWithCard,
  usd,
} from "../fixtures/PaymentRequestFixtures.ts"

const spec = DeciderSpecification.forAggregate(PaymentRequest.aggregate)

const client = { ipAddress: "2001:db8::7", userAgent: "payer-app/3.1" }

describe("a Pending request accepted by its payer through a request", () => {
  it("records the payer's authorization of the debit: when, the client, the acceptance's text", () => {
    spec
      .given([created])
      .when({ ...acceptByHand, client })
      .then([
        PaymentRequestAccepted.make({
          ...acceptedByHand,
          authorization: AuthorizationEvidence.evidenceOf("PaymentAcceptance", client, onDueDate),
        }),
      ])
  })
  it("accepted without a request (no client) records no authorization", () => {
    spec.given([created]).when(acceptByHand).then([acceptedByHand])
  })
})

const designation = AuthorizationEvidence.evidenceOf("Autopay", client, DateTime.makeUnsafe("2026-02-01T09:00:00.000Z"))

describe("a due autopay request collected under the payer's recorded designation", () => {
  it("carries the designation as its acceptance's authorization", () => {
    spec
      .given([PaymentRequestCreated.make({ ...created, autoPayLimit: usd(50_000) })])
      .when(collect({ autopayAuthorization: designation }))
      .then([PaymentRequestAccepted.make({ ...acceptedAutomatically("AutoPay"), authorization: designation })])
  })
})

describe("a due request collected under a debit authorization", () => {
  it("does not carry the autopay designation (the debit authorization is the payer's consent)", () => {
    spec
      .given([PaymentRequestCreated.make({ ...created, debitAuthLimit: usd(50_000) })])
      .when(collect({ autopayAuthorization: designation, debitAuth: { active: true, limit: usd(50_000) } }))
      .then([acceptedAutomatically("DebitAuth")])
  })
})

const availableAt = DateTime.makeUnsafe("2026-03-17T00:00:00.000Z")
const cardSchedule = { rail: "Card", percentageBasisPoints: 290, fixed: usd(30) } as const

describe("a Pending request paid by card, with the processor's availability date", () => {
  it("records when the money becomes available to the company", () => {
    spec
      .given([created])
      .when(payWithCard({ availableAt }))
      .then([PaymentRequestPaidByCard.make({ ...paidByCard, availableAt })])
  })
})

describe("a Pending request paid by card under the partner's card fee schedule", () => {
  it("records the platform's fee and the schedule that produced it", () => {
    spec
      .given([created])
      .when(payWithCard({ platformFee: usd(320), feeSchedule: cardSchedule }))
      .then([PaymentRequestPaidByCard.make({ ...paidByCard, platformFee: usd(320), feeSchedule: cardSchedule })])
  })
  it("records a fee given without its schedule alone", () => {
    spec
      .given([created])
      .when(payWithCard({ platformFee: usd(1) }))
      .then([PaymentRequestPaidByCard.make({ ...paidByCard, platformFee: usd(1) })])
  })
  it("records neither a fee of zero nor its schedule", () => {
    spec
      .given([created])
      .when(payWithCard({ platformFee: usd(0), feeSchedule: cardSchedule }))
      .then([paidByCard])
  })
})

describe("a Pending request paid by card after 3-D Secure (no request to take evidence from)", () => {
  it("records the evidence taken when the payer paid", () => {
    const authorization = AuthorizationEvidence.evidenceOf(
      "CardPayment",
      client,
      DateTime.makeUnsafe("2026-03-14T18:00:00.000Z"),
    )
    spec
      .given([created])
      .when(payWithCard({ authorization }))
      .then([PaymentRequestPaidByCard.make({ ...paidByCard, authorization })])
  })
  it("through a request, records the evidence of that request rather than an earlier one", () => {
    const earlier = AuthorizationEvidence.evidenceOf(
      "CardPayment",
      { ipAddress: "203.0.113.1", userAgent: "old/1.0" },
      DateTime.makeUnsafe("2026-03-14T18:00:00.000Z"),
    )
    spec
      .given([created])
      .when(payWithCard({ client, authorization: earlier }))
      .then([
        PaymentRequestPaidByCard.make({
          ...paidByCard,
          authorization: AuthorizationEvidence.evidenceOf("CardPayment", client, onDueDate),
        }),
      ])
  })
})
