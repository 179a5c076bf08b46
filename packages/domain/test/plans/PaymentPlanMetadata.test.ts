/**
 * Executable specification of a payment plan's metadata (`SetPaymentPlanMetadata`, a command of the
 * PaymentPlan aggregate): replaced whole in any status, the same metadata again records nothing, refused
 * when it breaks the metadata rules, and for another partner's plan or a plan that does not exist.
 */
import { describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import type { CalendarDate } from "../../src/kernel/CalendarDate.ts"
import type { CompanyId, ConsentId, PartnerId, PaymentPlanId, RegistrationId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as PaymentPlan from "../../src/plans/PaymentPlan.ts"
import type { PaymentPlanEvent } from "../../src/plans/PaymentPlanEvents.ts"
import { DeciderSpecification } from "../../src/testing/index.ts"

const spec = DeciderSpecification.forAggregate(PaymentPlan.aggregate)

const paymentPlanId = "0e8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a60" as PaymentPlanId
const partnerId = "2e8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a63" as PartnerId
const otherPartnerId = "2e8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6f" as PartnerId
const companyId = "3e8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a64" as CompanyId
const planIds = { paymentPlanId, partnerId, companyId }
const later = DateTime.makeUnsafe("2026-01-20T09:00:00.000Z")

const created: PaymentPlanEvent = {
  _tag: "PaymentPlanCreated",
  ...planIds,
  consentId: "1e8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a61" as ConsentId,
  payerRegistrationId: "4e8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a65" as RegistrationId,
  amount: Money.make(4_999, "USD"),
  frequency: "Monthly",
  recurrenceInterval: 1,
  startDate: "2026-01-15" as CalendarDate,
  numberOfPayments: 3,
  metadata: { subscriptionRef: "sub_1" },
  at: DateTime.makeUnsafe("2026-01-10T09:00:00.000Z"),
}
const cancelled: PaymentPlanEvent = {
  _tag: "PaymentPlanCancelled",
  ...planIds,
  reason: "CancelledByCompany",
  at: DateTime.makeUnsafe("2026-01-12T09:00:00.000Z"),
}

const setMetadata = (
  metadata: Record<string, string>,
  overrides: Partial<PaymentPlan.SetPaymentPlanMetadata> = {},
): PaymentPlan.SetPaymentPlanMetadata => ({
  _tag: "SetPaymentPlanMetadata",
  paymentPlanId,
  partnerId,
  metadata,
  at: later,
  ...overrides,
})

const metadataSet = (metadata: Record<string, string>): PaymentPlanEvent => ({
  _tag: "PaymentPlanMetadataSet",
  ...planIds,
  metadata,
  at: later,
})

describe("no payment plan yet", () => {
  it("is not found", () => {
    spec
      .given([])
      .when(setMetadata({ a: "b" }))
      .thenFails({ _tag: "NotFound" })
  })
})

describe("a Draft plan created with metadata", () => {
  it("replaces the metadata whole", () => {
    spec
      .given([created])
      .when(setMetadata({ region: "west" }))
      .then([metadataSet({ region: "west" })])
  })

  it("records nothing when the same metadata is set again", () => {
    spec
      .given([created])
      .when(setMetadata({ subscriptionRef: "sub_1" }))
      .thenNothingHappens()
  })

  it("refuses metadata that breaks the rules", () => {
    spec
      .given([created])
      .when(setMetadata({ ["k".repeat(41)]: "v" }))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: `metadata.${"k".repeat(41)}`, message: "must be a key of 1 to 40 characters" }],
      })
  })

  it("is not found by another partner", () => {
    spec
      .given([created])
      .when(setMetadata({ a: "b" }, { partnerId: otherPartnerId }))
      .thenFails({ _tag: "NotFound" })
  })
})

describe("a Cancelled plan", () => {
  it("still takes the partner's metadata (the partner's data, not the plan's business)", () => {
    spec
      .given([created, cancelled])
      .when(setMetadata({}))
      .then([metadataSet({})])
  })
})

describe("a plan whose metadata was replaced", () => {
  it("compares a new value with the replaced metadata, not the one of creation", () => {
    spec
      .given([created, metadataSet({ region: "west" })])
      .when(setMetadata({ region: "west" }))
      .thenNothingHappens()
  })
})
