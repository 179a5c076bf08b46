/**
 * The webhooks of the whole life (issue 26): each state change a partner acts on announces one
 * notification to its partner, with the ids, the new status and the instant; the other events of the
 * same streams announce nothing. The notification's id is the event's (de-duplication on retries).
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import * as CardPaymentWebhook from "../../src/cards-and-charity/CardPaymentWebhook.ts"
import * as Webhooks from "../../src/composition/Webhooks.ts"
import * as CustomerWebhooks from "../../src/customers/CustomerWebhooks.ts"
import type { Webhook } from "../../src/infrastructure/Outbox.ts"
import { ReadModelStore } from "../../src/infrastructure/ReadModel.ts"
import type { AnyWebhookRule } from "../../src/infrastructure/WebhookRule.ts"
import * as DebitAuthWebhook from "../../src/payments/DebitAuthWebhook.ts"
import * as ConsentStatusWebhook from "../../src/plans/ConsentStatusWebhook.ts"
import * as PaymentPlanStatusWebhook from "../../src/plans/PaymentPlanStatusWebhook.ts"

const at = DateTime.makeUnsafe("2026-11-23T09:15:00.000Z")
const partnerId = "0d8a2c4e-6b8d-4f0a-9c2e-4a6c8e0b2d4f"
const ids = {
  consentId: "6b8d0f2a-4c6e-4a8b-9d1f-3a5c7e9b1d3f",
  paymentPlanId: "3a7c9e1f-5b2d-4e8a-8f6c-0d2e4a6c8e1b",
  companyId: "5d1e7a3c-2b4f-4c8d-9e6a-7f0b1c2d3e4f",
  payerRegistrationId: "7e57ab1e-4c2d-4e8f-9a0b-1c2d3e4f5a6b",
}

let position = 0
/** What `rule` announces for one event of `streamType`. */
const announced = (rule: AnyWebhookRule, streamType: string, event: Record<string, unknown>) =>
  Effect.runSync(
    rule
      .webhooks({
        streamType,
        event,
        eventId: `3f1c2b1e-8a3d-4c2e-9f5a-${String(position + 1).padStart(12, "0")}`,
        streamId: "s",
        streamVersion: 1,
        globalPosition: ++position,
        recordedAt: at,
        metadata: {},
      })
      .pipe(Effect.provide(ReadModelStore.layerMemory)) as Effect.Effect<ReadonlyArray<Webhook>>,
  )

const one = (rule: AnyWebhookRule, streamType: string, event: Record<string, unknown>) => {
  const found = announced(rule, streamType, event)
  assert.lengthOf(found, 1)
  assert.strictEqual(found[0]!.partnerId, partnerId)
  assert.strictEqual(found[0]!.position, position)
  return found[0]!
}

describe("a consent", () => {
  const consent = { ...ids, partnerId, at }
  for (const [tag, status] of [
    ["ConsentAccepted", "Accepted"],
    ["ConsentDeclined", "Declined"],
    ["ConsentRevoked", "Revoked"],
  ] as const) {
    it(`${tag} announces CONSENT_STATUS_CHANGED ${status}`, () => {
      const notification = one(ConsentStatusWebhook.rule, "Consent", { _tag: tag, ...consent })
      assert.strictEqual(notification.eventType, "CONSENT_STATUS_CHANGED")
      assert.deepStrictEqual(notification.data, {
        ConsentId: ids.consentId,
        PaymentPlanId: ids.paymentPlanId,
        CompanyId: ids.companyId,
        PayerRegistrationId: ids.payerRegistrationId,
        Status: status,
        Timestamp: "2026-11-23T09:15:00.000Z",
      })
    })
  }

  it("requested announces nothing (the partner asked for it)", () => {
    assert.deepStrictEqual(
      announced(ConsentStatusWebhook.rule, "Consent", { _tag: "ConsentRequested", ...consent }),
      [],
    )
  })
})

describe("a payment plan", () => {
  const plan = { paymentPlanId: ids.paymentPlanId, partnerId, companyId: ids.companyId, at }
  for (const [tag, status] of [
    ["PaymentPlanActivated", "Active"],
    ["PaymentPlanResumed", "Active"],
    ["PaymentPlanPaused", "Paused"],
    ["PaymentPlanCompleted", "Completed"],
  ] as const) {
    it(`${tag} announces PAYMENT_PLAN_STATUS_CHANGED ${status}`, () => {
      const notification = one(PaymentPlanStatusWebhook.rule, "PaymentPlan", { _tag: tag, ...plan })
      assert.strictEqual(notification.eventType, "PAYMENT_PLAN_STATUS_CHANGED")
      assert.deepStrictEqual(notification.data, {
        PaymentPlanId: ids.paymentPlanId,
        CompanyId: ids.companyId,
        Status: status,
        // The plan's metadata, from its read model ({} when none: no plan is stored here).
        Metadata: {},
        Timestamp: "2026-11-23T09:15:00.000Z",
      })
    })
  }

  it("cancelled announces Cancelled with its reason", () => {
    const notification = one(PaymentPlanStatusWebhook.rule, "PaymentPlan", {
      _tag: "PaymentPlanCancelled",
      ...plan,
      reason: "ConsentRevoked",
    })
    assert.deepInclude(notification.data, { Status: "Cancelled", Reason: "ConsentRevoked" })
  })

  it("its instalments and consent answers announce nothing here (their own webhooks)", () => {
    for (const tag of ["InstalmentCollected", "InstalmentSettled", "PaymentPlanConsentAccepted", "PaymentPlanCreated"])
      assert.deepStrictEqual(announced(PaymentPlanStatusWebhook.rule, "PaymentPlan", { _tag: tag, ...plan }), [])
  })
})

describe("a customer", () => {
  const customer = { registrationId: ids.payerRegistrationId, partnerId, at }
  it("whose KYC is Verified or Rejected announces CUSTOMER_VERIFICATION_STATUS_CHANGED", () => {
    for (const [tag, status] of [
      ["KycVerified", "Verified"],
      ["KycRejected", "Rejected"],
    ] as const) {
      const notification = one(CustomerWebhooks.verificationRule, "Customer", { _tag: tag, ...customer })
      assert.strictEqual(notification.eventType, "CUSTOMER_VERIFICATION_STATUS_CHANGED")
      assert.deepStrictEqual(notification.data, {
        RegistrationId: ids.payerRegistrationId,
        Status: status,
        Timestamp: "2026-11-23T09:15:00.000Z",
      })
    }
  })

  it("linking accounts announces BANK_ACCOUNT_LINKED with their ids and masks only", () => {
    const bankAccountId = "2c4e6a8b-0d1f-4a3c-8e5b-7d9f1b3d5f7a"
    const notification = one(CustomerWebhooks.linkedRule, "Customer", {
      _tag: "BankAccountsLinked",
      ...customer,
      accounts: [{ bankAccountId, institutionId: "ins_1", name: "Everyday Checking", mask: "6789", type: "checking" }],
    })
    assert.strictEqual(notification.eventType, "BANK_ACCOUNT_LINKED")
    assert.deepStrictEqual(notification.data, {
      RegistrationId: ids.payerRegistrationId,
      Accounts: [{ BankAccountId: bankAccountId, Mask: "6789" }],
      Timestamp: "2026-11-23T09:15:00.000Z",
    })
  })

  it("removing an account announces BANK_ACCOUNT_REMOVED", () => {
    const bankAccountId = "2c4e6a8b-0d1f-4a3c-8e5b-7d9f1b3d5f7a"
    const notification = one(CustomerWebhooks.removedRule, "Customer", {
      _tag: "BankAccountUnlinked",
      ...customer,
      bankAccountId,
    })
    assert.strictEqual(notification.eventType, "BANK_ACCOUNT_REMOVED")
    assert.deepInclude(notification.data, { BankAccountId: bankAccountId })
  })

  it("the bank-link provider asking for a new link announces BANK_ACCOUNT_RELINK_REQUIRED with the accounts", () => {
    const bankAccountIds = ["2c4e6a8b-0d1f-4a3c-8e5b-7d9f1b3d5f7a"]
    const notification = one(CustomerWebhooks.relinkRule, "BankLinkItem", {
      _tag: "BankLinkRepairRequested",
      ...customer,
      itemId: "item-1",
      bankAccountIds,
      reason: "ITEM_LOGIN_REQUIRED",
    })
    assert.strictEqual(notification.eventType, "BANK_ACCOUNT_RELINK_REQUIRED")
    assert.deepStrictEqual(notification.data, {
      RegistrationId: ids.payerRegistrationId,
      BankAccountIds: bankAccountIds,
      Reason: "ITEM_LOGIN_REQUIRED",
      Timestamp: "2026-11-23T09:15:00.000Z",
    })
    const connected = { _tag: "BankLinkItemConnected", ...customer, itemId: "item-1", accounts: [] }
    assert.deepStrictEqual(announced(CustomerWebhooks.relinkRule, "BankLinkItem", connected), [])
  })

  it("its other events announce nothing", () => {
    for (const rule of [CustomerWebhooks.verificationRule, CustomerWebhooks.linkedRule, CustomerWebhooks.removedRule])
      assert.deepStrictEqual(announced(rule, "Customer", { _tag: "KycStarted", ...customer }), [])
  })
})

describe("a debit authorization", () => {
  const parties = {
    debitAuthId: "1d3f5b7c-9e1a-4c3e-8a5c-7e9b1d3f5a7c",
    partnerId,
    companyId: ids.companyId,
    registrationId: ids.payerRegistrationId,
    at,
  }
  const limit = { minorUnits: 75000, currency: "USD" }

  it("set announces DEBIT_AUTHORIZATION_CHANGED Set, enabled, with its limit", () => {
    const notification = one(DebitAuthWebhook.rule, "DebitAuth", { _tag: "DebitAuthSet", ...parties, limit })
    assert.strictEqual(notification.eventType, "DEBIT_AUTHORIZATION_CHANGED")
    assert.deepInclude(notification.data, { Change: "Set", Enabled: true, Limit: { value: 750, currencyCode: "USD" } })
  })

  it("disabled and enabled announce the change and whether debits are authorized", () => {
    assert.deepInclude(one(DebitAuthWebhook.rule, "DebitAuth", { _tag: "DebitAuthDisabled", ...parties }).data, {
      Change: "Disabled",
      Enabled: false,
    })
    assert.deepInclude(one(DebitAuthWebhook.rule, "DebitAuth", { _tag: "DebitAuthEnabled", ...parties }).data, {
      Change: "Enabled",
      Enabled: true,
    })
  })

  it("a debit made under it announces nothing here (the payment request's webhook does)", () => {
    assert.deepStrictEqual(
      announced(DebitAuthWebhook.rule, "DebitAuth", { _tag: "DebitAuthorized", ...parties, limit, amount: limit }),
      [],
    )
  })
})

describe("a card payment", () => {
  it("registered announces CARD_PAYMENT_RECORDED with its amount and card", () => {
    const notification = one(CardPaymentWebhook.rule, "CardPayment", {
      _tag: "CardPaymentRegistered",
      cardPaymentId: "9a1c3e5f-7b9d-4f1a-8c3e-5a7c9e1b3d5f",
      partnerId,
      merchantId: "4f6a8c0e-2b4d-4f6a-9c8e-0a2c4e6b8d0f",
      amount: { minorUnits: 1850, currency: "USD" },
      last4: "4242",
      brand: "visa",
      externalReference: "terminal-7:000142",
      at,
    })
    assert.strictEqual(notification.eventType, "CARD_PAYMENT_RECORDED")
    assert.deepInclude(notification.data, { Amount: { value: 18.5, currencyCode: "USD" }, Last4: "4242" })
  })
})

describe("the registry", () => {
  it("holds every rule, so every one of these webhooks is sent", () => {
    for (const rule of [
      ConsentStatusWebhook.rule,
      PaymentPlanStatusWebhook.rule,
      CustomerWebhooks.verificationRule,
      CustomerWebhooks.linkedRule,
      CustomerWebhooks.removedRule,
      CustomerWebhooks.relinkRule,
      DebitAuthWebhook.rule,
      CardPaymentWebhook.rule,
    ])
      assert.include(Webhooks.rules, rule)
  })
})
