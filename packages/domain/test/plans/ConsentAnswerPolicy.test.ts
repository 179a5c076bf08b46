/** Policy: a consent's answer reaches its plan (given the consent's events, when one is recorded, then the plan's command). */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import type {
  BankAccountId,
  CompanyId,
  ConsentId,
  PartnerId,
  PaymentPlanId,
  RegistrationId,
} from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import { policy } from "../../src/plans/ConsentAnswerPolicy.ts"
import type { ConsentEvent } from "../../src/plans/ConsentEvents.ts"
import { PolicySpecification } from "../../src/testing/index.ts"

const spec = PolicySpecification.forPolicy(policy)

const consentId = "0c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a60" as ConsentId
const paymentPlanId = "1c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a61" as PaymentPlanId
const ids = {
  consentId,
  paymentPlanId,
  partnerId: "2c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a62" as PartnerId,
  companyId: "3c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a63" as CompanyId,
  payerRegistrationId: "4c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a64" as RegistrationId,
}
const bankAccountId = "5c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a66" as BankAccountId
const at = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")

const requested: ConsentEvent = {
  _tag: "ConsentRequested",
  ...ids,
  amount: Money.make(2_500, "USD"),
  frequency: "Monthly",
  at: DateTime.makeUnsafe("2026-03-01T10:00:00.000Z"),
}
const accepted: ConsentEvent = { _tag: "ConsentAccepted", ...ids, bankAccountId, at }
const declined: ConsentEvent = { _tag: "ConsentDeclined", ...ids, at }
const revoked: ConsentEvent = { _tag: "ConsentRevoked", ...ids, bankAccountId, at }

describe("a consent's answer reaches its plan", () => {
  it("a consent request tells the plan nothing (the plan was created with its consent Pending)", () => {
    spec.given([]).when(requested).thenNothingIsIssued()
  })

  it("an accepted consent makes its plan record the acceptance", () => {
    spec
      .given([requested])
      .when(accepted)
      .then({ id: paymentPlanId, command: { _tag: "RecordConsentAccepted", paymentPlanId, consentId, at } })
  })

  it("a declined consent withdraws it from its plan as Declined", () => {
    spec
      .given([requested])
      .when(declined)
      .then({
        id: paymentPlanId,
        command: { _tag: "RecordConsentWithdrawn", paymentPlanId, consentId, withdrawal: "Declined", at },
      })
  })

  it("a revoked consent withdraws it from its plan as Revoked", () => {
    spec
      .given([requested, accepted])
      .when(revoked)
      .then({
        id: paymentPlanId,
        command: { _tag: "RecordConsentWithdrawn", paymentPlanId, consentId, withdrawal: "Revoked", at },
      })
  })

  it("a consent revoked after an unauthorized return passes its return code to the plan", () => {
    spec
      .given([requested, accepted])
      .when({ ...revoked, returnCode: "R10" })
      .then({
        id: paymentPlanId,
        command: {
          _tag: "RecordConsentWithdrawn",
          paymentPlanId,
          consentId,
          withdrawal: "Revoked",
          returnCode: "R10",
          at,
        },
      })
  })
})

describe("events the policy is not subscribed to", () => {
  it("a consent request issues nothing to the plan", () => {
    assert.isUndefined(policy.react(requested, undefined as never))
  })
})
