/**
 * Executable specification of what a PaymentRequest's acceptance and card payment record beside the
 * payment itself: the payer's authorization evidence (a manual acceptance through a request, an autopay
 * collection under the payer's designation, a card payment authorized through a request or after 3-D
 * Secure), and the card payment's availability date, platform fee and its schedule.
 */
import { describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import type { CardPaymentId } from "../../src/kernel/Ids.ts"
import * as AuthorizationEvidence from "../../src/payments/AuthorizationEvidence.ts"
import * as PaymentRequest from "../../src/payments/PaymentRequest.ts"
import {
  PaymentRequestAccepted,
  PaymentRequestCreated,
  PaymentRequestPaidByCard,
} from "../../src/payments/PaymentRequestEvents.ts"
import { DeciderSpecification } from "../../src/testing/index.ts"
import {
  bankAccountId,
  created,
  dueDate,
  id,
  payer,
  paymentRequestId,
  transferId,
  usd,
} from "../fixtures/PaymentRequestFixtures.ts"

const spec = DeciderSpecification.forAggregate(PaymentRequest.aggregate)

const onDueDate = DateTime.makeUnsafe("2026-03-15T00:00:05.000Z")
const client = { ipAddress: "2001:db8::7", userAgent: "payer-app/3.1" }

const accept: PaymentRequest.AcceptPaymentRequest = {
  _tag: "AcceptPaymentRequest",
  paymentRequestId,
  registrationId: payer,
  payerKyc: "Verified",
  bankAccountId,
  accountNumberMasked: "****6789",
  acceptDebitAuth: false,
  transferDescription: "",
  transferId,
  at: onDueDate,
}
const accepted = PaymentRequestAccepted.make({
  paymentRequestId,
  registrationId: payer,
  bankAccountId,
  accountNumberMasked: "****6789",
  debitAuthAccepted: false,
  transferId,
  transferDescription: "Invoice 42: cleaning",
  at: onDueDate,
})

describe("a Pending request accepted by its payer through a request", () => {
  it("records the payer's authorization of the debit: when, the client, the acceptance's text", () => {
    spec
      .given([created])
      .when({ ...accept, client })
      .then([
        PaymentRequestAccepted.make({
          ...accepted,
          authorization: AuthorizationEvidence.evidenceOf("PaymentAcceptance", client, onDueDate),
        }),
      ])
  })
  it("accepted without a request (no client) records no authorization", () => {
    spec.given([created]).when(accept).then([accepted])
  })
})

const designation = AuthorizationEvidence.evidenceOf("Autopay", client, DateTime.makeUnsafe("2026-02-01T09:00:00.000Z"))

const collect: PaymentRequest.TryAutoCollection = {
  _tag: "TryAutoCollection",
  paymentRequestId,
  today: dueDate,
  account: { bankAccountId, accountNumberMasked: "****6789" },
  parties: { companyStatus: "Verified", payerKyc: "Verified" },
  autopayAuthorization: designation,
  transferId,
  at: onDueDate,
}

describe("a due autopay request collected under the payer's recorded designation", () => {
  it("carries the designation as its acceptance's authorization", () => {
    spec
      .given([PaymentRequestCreated.make({ ...created, autoPayLimit: usd(50_000) })])
      .when(collect)
      .then([PaymentRequestAccepted.make({ ...accepted, collectedBy: "AutoPay", authorization: designation })])
  })
})

describe("a due request collected under a debit authorization", () => {
  it("does not carry the autopay designation (the debit authorization is the payer's consent)", () => {
    spec
      .given([PaymentRequestCreated.make({ ...created, debitAuthLimit: usd(50_000) })])
      .when({ ...collect, debitAuth: { active: true, limit: usd(50_000) } })
      .then([PaymentRequestAccepted.make({ ...accepted, debitAuthAccepted: true, collectedBy: "DebitAuth" })])
  })
})

const cardPaymentId = id(11) as CardPaymentId
const payWithCard: PaymentRequest.PayWithCard = {
  _tag: "PayWithCard",
  paymentRequestId,
  registrationId: payer,
  payerKyc: "Verified",
  cardPaymentId,
  paymentMethodId: "card_1",
  brand: "visa",
  last4: "4242",
  processorReference: "ch_1",
  at: onDueDate,
}
const paidByCard = PaymentRequestPaidByCard.make({
  paymentRequestId,
  registrationId: payer,
  cardPaymentId,
  paymentMethodId: "card_1",
  brand: "visa",
  last4: "4242",
  processorReference: "ch_1",
  at: onDueDate,
})
const availableAt = DateTime.makeUnsafe("2026-03-17T00:00:00.000Z")
const cardSchedule = { rail: "Card", percentageBasisPoints: 290, fixed: usd(30) } as const

describe("a Pending request paid by card, with the processor's availability date", () => {
  it("records when the money becomes available to the company", () => {
    spec
      .given([created])
      .when({ ...payWithCard, availableAt })
      .then([PaymentRequestPaidByCard.make({ ...paidByCard, availableAt })])
  })
})

describe("a Pending request paid by card under the partner's card fee schedule", () => {
  it("records the platform's fee and the schedule that produced it", () => {
    spec
      .given([created])
      .when({ ...payWithCard, platformFee: usd(320), feeSchedule: cardSchedule })
      .then([PaymentRequestPaidByCard.make({ ...paidByCard, platformFee: usd(320), feeSchedule: cardSchedule })])
  })
  it("records a fee given without its schedule alone", () => {
    spec
      .given([created])
      .when({ ...payWithCard, platformFee: usd(1) })
      .then([PaymentRequestPaidByCard.make({ ...paidByCard, platformFee: usd(1) })])
  })
  it("records neither a fee of zero nor its schedule", () => {
    spec
      .given([created])
      .when({ ...payWithCard, platformFee: usd(0), feeSchedule: cardSchedule })
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
      .when({ ...payWithCard, authorization })
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
      .when({ ...payWithCard, client, authorization: earlier })
      .then([
        PaymentRequestPaidByCard.make({
          ...paidByCard,
          authorization: AuthorizationEvidence.evidenceOf("CardPayment", client, onDueDate),
        }),
      ])
  })
})
