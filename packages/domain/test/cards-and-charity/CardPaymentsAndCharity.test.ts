/**
 * Registering external card payments (POST /cardpayment, v0.4.8/v0.4.10) and
 * anonymous charity transactions through their use cases.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import * as CardDisputes from "../../src/cards-and-charity/CardDisputes.ts"
import * as CardPayments from "../../src/cards-and-charity/CardPayments.ts"
import * as Charity from "../../src/cards-and-charity/Charity.ts"
import * as EventPipeline from "../../src/composition/EventPipeline.ts"
import * as BankAccounts from "../../src/customers/BankAccounts.ts"
import * as CustomerProviderSandboxes from "../../src/customers/CustomerProviderSandboxes.ts"
import * as CustomerProviders from "../../src/customers/CustomerProviders.ts"
import { EventStore } from "../../src/infrastructure/EventStore.ts"
import { IdGenerator } from "../../src/infrastructure/IdGenerator.ts"
import { MemoryOutbox } from "../../src/infrastructure/Outbox.ts"
import type { Policies } from "../../src/infrastructure/Policy.ts"
import * as Providers from "../../src/infrastructure/Providers.ts"
import type { ReadModelStore } from "../../src/infrastructure/ReadModel.ts"
import { UnitOfWork } from "../../src/infrastructure/UnitOfWork.ts"
import type * as CalendarDate from "../../src/kernel/CalendarDate.ts"
import { NotFound } from "../../src/kernel/DomainError.ts"
import * as Ids from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as Transfers from "../../src/payments/Transfers.ts"
import * as Payouts from "../../src/payouts/Payouts.ts"
import { Fixtures } from "../../src/testing/index.ts"

const partnerId = Ids.PartnerId.make("0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b")
const otherPartnerId = Ids.PartnerId.make("1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f")
const merchantId = Ids.MerchantId.make("a0000000-0000-4000-8000-000000000001")
const charity = Ids.CompanyId.make("c0000000-0000-4000-8000-000000000001")
// The donor is the partner's customer verified under this id (Fixtures.registerVerifiedCustomer's).
const verificationId = Ids.VerificationId.make(Fixtures.kycReferenceId)
const donor = Ids.RegistrationId.make("d0000000-0000-4000-8000-000000000001")
const donorAccount = Ids.BankAccountId.make("ba000000-0000-4000-8000-000000000001")

const domain = () =>
  Layer.mergeAll(
    EventPipeline.layerMemory(),
    UnitOfWork.layerMemory,
    IdGenerator.layerRandom,
    CustomerProviderSandboxes.layerCardProcessorSandbox,
  )

const scenario = <A, E>(
  body: Effect.Effect<
    A,
    E,
    EventStore | ReadModelStore | IdGenerator | UnitOfWork | Policies | CustomerProviders.CardProcessor | MemoryOutbox
  >,
) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(Date.parse("2026-03-02T10:00:00Z"))
    yield* Fixtures.registerVerifiedCompany(partnerId, charity, "Helping Hands")
    yield* Fixtures.registerVerifiedCustomer(partnerId, donor, donorAccount)
    return yield* body
  }).pipe(Effect.provide(domain()))

const allEventTypes = Effect.gen(function* () {
  const store = yield* EventStore
  const events = yield* store.readAll({ after: 0, limit: 1000 })
  const setUp = [
    "CompanyRegistered",
    "CompanyVerified",
    "CustomerRegistered",
    "KycStarted",
    "KycVerified",
    "BankAccountsLinked",
  ]
  return events.map((e) => e.eventType).filter((t) => !setUp.includes(t))
})

const payment = (overrides: Partial<CardPayments.RegisterInput> = {}): CardPayments.RegisterInput => ({
  partnerId,
  merchantId,
  amount: { value: 12.34, currencyCode: "USD" },
  last4: "4242",
  brand: "visa",
  externalReference: "terminal-txn-0001",
  ...overrides,
})

const fieldsOf = (error: { readonly _tag: string }) =>
  error._tag === "ValidationFailed"
    ? (error as unknown as { issues: Array<{ field: string }> }).issues.map((i) => i.field)
    : []

describe("registering an external card payment", () => {
  it.effect("for a merchant id that is one of the partner's Verified companies: credits its balance at once", () =>
    scenario(
      Effect.gen(function* () {
        yield* CardPayments.register(payment({ merchantId: charity as string as Ids.MerchantId }))
        const balance = yield* Payouts.balance(partnerId, charity, "USD")
        assert.deepStrictEqual(balance.available, { minorUnits: 1234, currency: "USD" })
      }),
    ),
  )

  it.effect("its money is pending until the processor's availability date, then available", () =>
    scenario(
      Effect.gen(function* () {
        yield* CardPayments.register(payment({ merchantId: charity as string as Ids.MerchantId })).pipe(
          Effect.provideService(
            CustomerProviders.CardProcessor,
            CustomerProviderSandboxes.makeCardProcessorSandbox({ availableAfterMillis: 86_400_000 }),
          ),
        )
        const before = yield* Payouts.balance(partnerId, charity, "USD")
        assert.deepStrictEqual([before.available.minorUnits, before.pending.minorUnits], [0, 1234])
        yield* TestClock.adjust("1 day")
        const after = yield* Payouts.balance(partnerId, charity, "USD")
        assert.deepStrictEqual([after.available.minorUnits, after.pending.minorUnits], [1234, 0])
      }),
    ),
  )

  it.effect("for a company not Verified: 422 COMPANY_NOT_VERIFIED, nothing recorded, the processor not asked", () =>
    scenario(
      Effect.gen(function* () {
        const unverified = Ids.CompanyId.make("c0000000-0000-4000-8000-000000000003")
        yield* Fixtures.registerCompany(partnerId, unverified, "Not Yet Inc")
        const error = yield* Effect.flip(
          CardPayments.register(payment({ merchantId: unverified as string as Ids.MerchantId })),
        )
        assert.deepInclude(error, { _tag: "RuleViolated", code: "COMPANY_NOT_VERIFIED" })
        assert.notInclude(yield* allEventTypes, "CardPaymentRegistered")
      }),
    ),
  )

  it.effect("records it and answers its id with status Registered", () =>
    scenario(
      Effect.gen(function* () {
        const registered = yield* CardPayments.register(payment())
        assert.strictEqual(registered.status, "Registered")
        assert.match(registered.cardPaymentId, /^[0-9a-f-]{36}$/)
        assert.deepStrictEqual(yield* allEventTypes, ["NaturalKeyClaimed", "CardPaymentRegistered"])
      }),
    ),
  )

  it.effect("goes through the card processor first: its reference is recorded with the payment", () =>
    scenario(
      Effect.gen(function* () {
        const registered = yield* CardPayments.register(payment())
        const store = yield* EventStore
        const events = yield* store.readAll({ after: 0, limit: 1000 })
        const recorded = events.find((e) => e.eventType === "CardPaymentRegistered")
        assert.deepInclude(recorded?.data as object, {
          cardPaymentId: registered.cardPaymentId,
          processorReference: "cp_sandbox_a0000000_terminal-txn-0001",
        })
      }),
    ),
  )

  it.effect("a card the processor declines is refused (CARD_DECLINED) and nothing is recorded", () =>
    scenario(
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          CardPayments.register(payment({ last4: CustomerProviderSandboxes.declinedCardLast4 })),
        )
        assert.deepStrictEqual(
          [error._tag, error._tag === "RuleViolated" ? error.code : ""],
          ["RuleViolated", "CARD_DECLINED"],
        )
        assert.deepStrictEqual(yield* allEventTypes, [])
      }),
    ),
  )

  it.effect("a service without a card processor refuses it (FEATURE_NOT_AVAILABLE) and records nothing", () =>
    scenario(
      Effect.gen(function* () {
        const absent = () => Effect.fail(new Providers.FeatureNotAvailable({ capability: "card processor" }))
        const error = yield* Effect.flip(
          CardPayments.register(payment()).pipe(
            Effect.provideService(CustomerProviders.CardProcessor, {
              setupCard: absent,
              listCardMethods: absent,
              registerCardPayment: absent,
            }),
          ),
        )
        assert.deepStrictEqual(
          [error._tag, error._tag === "RuleViolated" ? error.code : "", error.message],
          [
            "RuleViolated",
            "FEATURE_NOT_AVAILABLE",
            "card processor is not available on this service (no provider is configured)",
          ],
        )
        assert.deepStrictEqual(yield* allEventTypes, [])
      }),
    ),
  )

  it.effect("a retry (same merchant, external reference and details) answers the same id and records nothing", () =>
    scenario(
      Effect.gen(function* () {
        const first = yield* CardPayments.register(payment())
        const retry = yield* CardPayments.register(payment())
        assert.deepStrictEqual(retry, first)
        assert.deepStrictEqual(yield* allEventTypes, ["NaturalKeyClaimed", "CardPaymentRegistered"])
      }),
    ),
  )

  it.effect("the same external reference with other details is refused as AlreadyExists", () =>
    scenario(
      Effect.gen(function* () {
        yield* CardPayments.register(payment())
        const error = yield* Effect.flip(CardPayments.register(payment({ amount: { value: 99, currencyCode: "USD" } })))
        assert.strictEqual(error._tag, "AlreadyExists")
      }),
    ),
  )

  it.effect("the same external reference at another merchant, or another partner, is another payment", () =>
    scenario(
      Effect.gen(function* () {
        const first = yield* CardPayments.register(payment())
        const otherMerchant = yield* CardPayments.register(
          payment({ merchantId: Ids.MerchantId.make("a0000000-0000-4000-8000-000000000002") }),
        )
        const otherPartner = yield* CardPayments.register(payment({ partnerId: otherPartnerId }))
        assert.strictEqual(new Set([first, otherMerchant, otherPartner].map((p) => p.cardPaymentId)).size, 3)
      }),
    ),
  )

  it.effect("bad fields are all named: amount, last4, brand", () =>
    scenario(
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          CardPayments.register(
            payment({ amount: { value: 0, currencyCode: "USD" }, last4: "4242424242424242", brand: "" }),
          ),
        )
        assert.deepStrictEqual(fieldsOf(error), ["amount", "last4", "brand"])
        const precise = yield* Effect.flip(
          CardPayments.register(payment({ amount: { value: 1.005, currencyCode: "USD" } })),
        )
        assert.deepStrictEqual(fieldsOf(precise), ["amount.value"])
      }),
    ),
  )
})

describe("an anonymous charity transaction", () => {
  const donation = (overrides: Partial<Charity.CreateAnonymousInput> = {}): Charity.CreateAnonymousInput => ({
    partnerId,
    verificationId,
    companyId: charity,
    amount: { value: 100, currencyCode: "USD" },
    isRecurring: false,
    payerCoversFee: true,
    ...overrides,
  })

  it.effect("when the payer covers the fee, the payer is charged amount + 1% and the charity receives the amount", () =>
    scenario(
      Effect.gen(function* () {
        const created = yield* Charity.createAnonymous(donation())
        assert.deepStrictEqual(created.fee, { minorUnits: 100, currency: "USD" })
        assert.deepStrictEqual(created.payerCharged, { minorUnits: 10100, currency: "USD" })
        assert.deepStrictEqual(created.charityReceives, { minorUnits: 10000, currency: "USD" })
        assert.deepStrictEqual(yield* allEventTypes, ["AnonymousCharityTransactionCreated", "TransferInitiated"])
      }),
    ),
  )

  it.effect(
    "moves the money: a Pending transfer of what the donor is charged, from the donor's account to the charity",
    () =>
      scenario(
        Effect.gen(function* () {
          const created = yield* Charity.createAnonymous(donation())
          const transfer = yield* Transfers.get({ _tag: "Partner", partnerId }, created.transferId)
          assert.deepInclude(transfer, {
            status: "Pending",
            amount: { minorUnits: 10100, currency: "USD" },
            senderName: "Grace Hopper",
            senderAccountMasked: "****6789",
            recipientName: "Helping Hands",
            charityTransactionId: created.charityTransactionId,
          })
          // The donor reads it too.
          const asDonor = yield* Transfers.get(
            { _tag: "Customer", partnerId, registrationId: donor },
            created.transferId,
          )
          assert.strictEqual(asDonor.transferId, created.transferId)
        }),
      ),
  )

  it.effect("a customer gives from their own account, whatever verification id they send", () =>
    scenario(
      Effect.gen(function* () {
        const created = yield* Charity.createAnonymous(
          donation({ donor, verificationId: Ids.VerificationId.make("e0000000-0000-4000-8000-000000000009") }),
        )
        const transfer = yield* Transfers.get(
          { _tag: "Customer", partnerId, registrationId: donor },
          created.transferId,
        )
        assert.strictEqual(transfer.status, "Pending")
      }),
    ),
  )

  it.effect(
    "a verification id that is none of the partner's customers is not found (Customer); nothing is recorded",
    () =>
      scenario(
        Effect.gen(function* () {
          const error = yield* Effect.flip(
            Charity.createAnonymous(
              donation({ verificationId: Ids.VerificationId.make("e0000000-0000-4000-8000-000000000009") }),
            ),
          )
          assert.deepStrictEqual(error, new NotFound({ entity: "Customer" }))
          assert.deepStrictEqual(yield* allEventTypes, [])
        }),
      ),
  )

  it.effect("a charity whose KYB is not Verified collects nothing (COMPANY_NOT_VERIFIED); nothing is recorded", () =>
    scenario(
      Effect.gen(function* () {
        const unverified = Ids.CompanyId.make("c0000000-0000-4000-8000-000000000002")
        yield* Fixtures.registerCompany(partnerId, unverified, "Slow Charity")
        const error = yield* Effect.flip(Charity.createAnonymous(donation({ companyId: unverified })))
        assert.deepStrictEqual(
          [error._tag, error._tag === "RuleViolated" ? error.code : ""],
          ["RuleViolated", "COMPANY_NOT_VERIFIED"],
        )
        assert.deepStrictEqual(yield* allEventTypes, [])
      }),
    ),
  )

  it.effect("a donor whose KYC is not Verified gives nothing (CUSTOMER_NOT_VERIFIED)", () =>
    scenario(
      Effect.gen(function* () {
        const pending = Ids.RegistrationId.make("d0000000-0000-4000-8000-000000000002")
        yield* Fixtures.registerCustomer(partnerId, pending, "+14155550166")
        yield* Fixtures.linkBankAccount(pending, Ids.BankAccountId.make("ba000000-0000-4000-8000-000000000002"))
        const error = yield* Effect.flip(Charity.createAnonymous(donation({ donor: pending })))
        assert.deepStrictEqual(
          [error._tag, error._tag === "RuleViolated" ? error.code : ""],
          ["RuleViolated", "CUSTOMER_NOT_VERIFIED"],
        )
      }),
    ),
  )

  it.effect("otherwise the fee comes out of the donation", () =>
    scenario(
      Effect.gen(function* () {
        const created = yield* Charity.createAnonymous(donation({ payerCoversFee: false }))
        assert.deepStrictEqual(created.payerCharged, { minorUnits: 10000, currency: "USD" })
        assert.deepStrictEqual(created.charityReceives, { minorUnits: 9900, currency: "USD" })
      }),
    ),
  )

  it.effect("each call records a new donation", () =>
    scenario(
      Effect.gen(function* () {
        const a = yield* Charity.createAnonymous(donation())
        const b = yield* Charity.createAnonymous(donation())
        assert.notStrictEqual(a.charityTransactionId, b.charityTransactionId)
      }),
    ),
  )

  it.effect("a charity of another partner is not found, and nothing is recorded", () =>
    scenario(
      Effect.gen(function* () {
        const error = yield* Effect.flip(Charity.createAnonymous(donation({ partnerId: otherPartnerId })))
        assert.strictEqual(error._tag, "NotFound")
        assert.deepStrictEqual(yield* allEventTypes, [])
      }),
    ),
  )

  it.effect("a zero or negative amount is refused on the amount", () =>
    scenario(
      Effect.gen(function* () {
        const zero = yield* Effect.flip(
          Charity.createAnonymous(donation({ amount: { value: 0, currencyCode: "USD" } })),
        )
        assert.deepStrictEqual(fieldsOf(zero), ["amount"])
        const negative = yield* Effect.flip(
          Charity.createAnonymous(donation({ amount: { value: -1, currencyCode: "USD" } })),
        )
        assert.deepStrictEqual(fieldsOf(negative), ["amount.value"])
      }),
    ),
  )
})

describe("a recurring charity gift", () => {
  const recurring = (overrides: Partial<Charity.CreateAnonymousInput> = {}): Charity.CreateAnonymousInput => ({
    partnerId,
    verificationId,
    companyId: charity,
    amount: { value: 25, currencyCode: "USD" },
    isRecurring: true,
    payerCoversFee: false,
    ...overrides,
  })
  const day = (text: string) => text as CalendarDate.CalendarDate

  it.effect("is due a month after its creation (2026-03-02), then collected once with a new transfer", () =>
    scenario(
      Effect.gen(function* () {
        const created = yield* Charity.createAnonymous(recurring())
        assert.deepStrictEqual(yield* Charity.dueGifts(day("2026-04-01")), [])
        const due = yield* Charity.dueGifts(day("2026-04-02"))
        assert.deepStrictEqual(due, [
          { charityTransactionId: created.charityTransactionId, partnerId, nextDueDate: day("2026-04-02") },
        ])
        const outcome = yield* Charity.collectDue(created.charityTransactionId, day("2026-04-02"))
        assert.isTrue(Option.isSome(outcome) && outcome.value._tag === "Collected")
        if (Option.isNone(outcome) || outcome.value._tag !== "Collected") return
        assert.strictEqual(outcome.value.collectionNumber, 2)
        const transfer = yield* Transfers.get({ _tag: "Partner", partnerId }, outcome.value.transferId)
        assert.deepInclude(transfer, {
          status: "Pending",
          amount: { minorUnits: 2500, currency: "USD" },
          charityTransactionId: created.charityTransactionId,
        })
        // Exactly once: the same due date again records nothing; the next one is a month later.
        assert.isTrue(Option.isNone(yield* Charity.collectDue(created.charityTransactionId, day("2026-04-30"))))
        assert.deepStrictEqual(
          (yield* Charity.dueGifts(day("2026-05-02"))).map((gift) => gift.nextDueDate),
          [day("2026-05-02")],
        )
      }),
    ),
  )

  it.effect("stops when the donor unlinks the account it is collected from (no transfer)", () =>
    scenario(
      Effect.gen(function* () {
        const created = yield* Charity.createAnonymous(recurring())
        yield* BankAccounts.remove(partnerId, donor, donorAccount)
        const outcome = yield* Charity.collectDue(created.charityTransactionId, day("2026-04-02"))
        assert.deepStrictEqual(Option.getOrUndefined(outcome), {
          _tag: "Stopped",
          charityTransactionId: created.charityTransactionId,
          reason: "BankAccountUnlinked",
        })
        assert.deepStrictEqual(yield* Charity.dueGifts(day("2026-12-31")), [])
        const view = yield* Charity.gift({ partnerId, charityTransactionId: created.charityTransactionId })
        assert.deepInclude(view.recurrence, { status: "Stopped", stopReason: "BankAccountUnlinked" })
      }),
    ),
  )

  it.effect("the partner or the donor cancels it; another partner or another donor does not find it", () =>
    scenario(
      Effect.gen(function* () {
        const created = yield* Charity.createAnonymous(recurring())
        const query = { partnerId, charityTransactionId: created.charityTransactionId }
        const otherDonor = Ids.RegistrationId.make("d0000000-0000-4000-8000-000000000009")
        const notFound = yield* Effect.flip(Charity.cancelRecurring({ ...query, donor: otherDonor }))
        assert.strictEqual(notFound._tag, "NotFound")
        const otherPartner = yield* Effect.flip(Charity.cancelRecurring({ ...query, partnerId: otherPartnerId }))
        assert.strictEqual(otherPartner._tag, "NotFound")
        const cancelled = yield* Charity.cancelRecurring({ ...query, donor })
        assert.deepInclude(cancelled.recurrence, { status: "Stopped", stopReason: "CancelledByDonor" })
        assert.isTrue(Option.isNone(yield* Charity.collectDue(created.charityTransactionId, day("2026-04-02"))))
        assert.deepStrictEqual(yield* Charity.dueGifts(day("2026-12-31")), [])
      }),
    ),
  )

  it.effect("a one-time gift cannot be cancelled (IllegalTransition) and is never due", () =>
    scenario(
      Effect.gen(function* () {
        const created = yield* Charity.createAnonymous(recurring({ isRecurring: false }))
        const error = yield* Effect.flip(
          Charity.cancelRecurring({ partnerId, charityTransactionId: created.charityTransactionId }),
        )
        assert.strictEqual(error._tag, "IllegalTransition")
        assert.deepStrictEqual(yield* Charity.dueGifts(day("2026-12-31")), [])
      }),
    ),
  )
})

describe("a dispute of a company's terminal card payment (the processor's notifications)", () => {
  const disputeId = "dp_1MtJUT2eZvKYlo2CNaw2HvEv"
  const companyPayment = Effect.gen(function* () {
    const registered = yield* CardPayments.register(payment({ merchantId: charity as string as Ids.MerchantId }))
    return { _tag: "CardPayment" as const, cardPaymentId: registered.cardPaymentId }
  })
  const openOn = (ref: CardDisputes.PaymentRef) =>
    Effect.flatMap(DateTime.now, (at) =>
      CardDisputes.open({
        disputeId,
        payment: ref,
        amount: Money.make(1_234, "USD"),
        fee: Money.make(1_500, "USD"),
        reason: "fraudulent",
        status: "NeedsResponse",
        at,
      }),
    )
  const available = Effect.map(Payouts.balance(partnerId, charity, "USD"), (balance) => balance.available.minorUnits)
  const disputeWebhooks = Effect.gen(function* () {
    const outbox = yield* MemoryOutbox
    return outbox.recorded
      .filter((notification) => notification.eventType === "CARD_DISPUTE_STATUS_CHANGED")
      .map((notification) => notification.data as Record<string, unknown>)
  })

  it.effect("opened: its amount and the dispute fee leave the company's balance at once, with one webhook", () =>
    scenario(
      Effect.gen(function* () {
        const ref = yield* companyPayment
        yield* openOn(ref)
        yield* openOn(ref)
        assert.strictEqual(yield* available, 1_234 - 1_234 - 1_500)
        const webhooks = yield* disputeWebhooks
        assert.deepStrictEqual(webhooks, [
          {
            CardPaymentId: ref.cardPaymentId,
            DisputeId: disputeId,
            Amount: { value: 12.34, currencyCode: "USD" },
            Reason: "fraudulent",
            Status: "NeedsResponse",
            Timestamp: "2026-03-02T10:00:00.000Z",
          },
        ])
      }),
    ),
  )

  it.effect("won: the amount and the fee come back (Won announced)", () =>
    scenario(
      Effect.gen(function* () {
        yield* openOn(yield* companyPayment)
        yield* CardDisputes.close(disputeId, "Won", yield* DateTime.now)
        assert.strictEqual(yield* available, 1_234)
        assert.deepStrictEqual(
          (yield* disputeWebhooks).map((webhook) => webhook.Status),
          ["NeedsResponse", "Won"],
        )
      }),
    ),
  )

  it.effect("lost: the amount and the fee stay taken", () =>
    scenario(
      Effect.gen(function* () {
        yield* openOn(yield* companyPayment)
        yield* CardDisputes.close(disputeId, "Lost", yield* DateTime.now)
        assert.strictEqual(yield* available, -1_500)
      }),
    ),
  )

  it.effect("a payment for a merchant outside the service has no balance to take from: NotFound", () =>
    scenario(
      Effect.gen(function* () {
        const registered = yield* CardPayments.register(payment())
        const error = yield* Effect.flip(openOn({ _tag: "CardPayment", cardPaymentId: registered.cardPaymentId }))
        assert.deepInclude(error, { _tag: "NotFound", entity: "CardPayment" })
      }),
    ),
  )
})
