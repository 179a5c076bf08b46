/**
 * Executable specification of a payment request's metadata (`SetPaymentRequestMetadata`, and the metadata
 * given on create): the partner's own data, replaced whole in any status, the same metadata again records
 * nothing, refused when it breaks the metadata rules, and for another partner's request or a request that
 * does not exist.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import type { PartnerId } from "../../src/kernel/Ids.ts"
import * as PaymentRequest from "../../src/payments/PaymentRequest.ts"
import { PaymentRequestCreated, PaymentRequestMetadataSet } from "../../src/payments/PaymentRequestEvents.ts"
import { DeciderSpecification } from "../../src/testing/index.ts"
import * as PaymentRequestFixtures from "../fixtures/PaymentRequestFixtures.ts"

const spec = DeciderSpecification.forAggregate(PaymentRequest.aggregate)

const later = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")
const otherPartnerId = PaymentRequestFixtures.id(60) as PartnerId
const tooLongKey = "k".repeat(41)

const setMetadata = (
  metadata: Record<string, string>,
  overrides: Partial<PaymentRequest.SetPaymentRequestMetadata> = {},
): PaymentRequest.SetPaymentRequestMetadata => ({
  _tag: "SetPaymentRequestMetadata",
  paymentRequestId: PaymentRequestFixtures.paymentRequestId,
  partnerId: PaymentRequestFixtures.partnerId,
  metadata,
  at: later,
  ...overrides,
})
const metadataSet = (metadata: Record<string, string>) =>
  PaymentRequestMetadataSet.make({ paymentRequestId: PaymentRequestFixtures.paymentRequestId, metadata, at: later })

describe("no payment request yet", () => {
  it("setting metadata is refused: the request is not found", () => {
    spec
      .given([])
      .when(setMetadata({ a: "b" }))
      .thenFails({ _tag: "NotFound" })
  })
  it("a metadata event without a request leaves the state unchanged (there is no request to hold it)", () => {
    spec.given([]).ignores(metadataSet({ a: "b" }))
  })
  it("created with metadata: the creation records it", () => {
    spec
      .given([])
      .when({ ...PaymentRequestFixtures.create, metadata: { invoice: "42" } })
      .then([PaymentRequestCreated.make({ ...PaymentRequestFixtures.created, metadata: { invoice: "42" } })])
  })
  it("created with metadata that breaks the rules: refused, naming the metadata key", () => {
    const failure = spec
      .given([])
      .when({ ...PaymentRequestFixtures.create, metadata: { [tooLongKey]: "v" } })
      .thenFails({ _tag: "ValidationFailed" }) as { readonly issues: ReadonlyArray<{ readonly field: string }> }
    assert.deepStrictEqual(
      failure.issues.map((issue) => issue.field),
      [`metadata.${tooLongKey}`],
    )
  })
})

describe("a Pending payment request", () => {
  it("metadata set: recorded, replacing the request's metadata whole", () => {
    spec
      .given([PaymentRequestFixtures.created])
      .when(setMetadata({ region: "west" }))
      .then([metadataSet({ region: "west" })])
  })
  it("the same metadata set again: nothing recorded", () => {
    spec
      .given([PaymentRequestFixtures.created, metadataSet({ region: "west" })])
      .when(setMetadata({ region: "west" }))
      .thenNothingHappens()
  })
  it("no metadata set on a request without metadata: nothing recorded", () => {
    spec.given([PaymentRequestFixtures.created]).when(setMetadata({})).thenNothingHappens()
  })
  it("metadata that breaks the rules: refused, naming the metadata key", () => {
    const failure = spec
      .given([PaymentRequestFixtures.created])
      .when(setMetadata({ [tooLongKey]: "v" }))
      .thenFails({ _tag: "ValidationFailed" }) as { readonly issues: ReadonlyArray<{ readonly field: string }> }
    assert.deepStrictEqual(
      failure.issues.map((issue) => issue.field),
      [`metadata.${tooLongKey}`],
    )
  })
  it("another partner's metadata: refused as not found", () => {
    spec
      .given([PaymentRequestFixtures.created])
      .when(setMetadata({ a: "b" }, { partnerId: otherPartnerId }))
      .thenFails({ _tag: "NotFound" })
  })
})
