import { assert, describe, it } from "@effect/vitest"
import { DateTime, Schema } from "effect"
import fc from "fast-check"
import * as CharityTransaction from "../../src/cards-and-charity/CharityTransaction.ts"
import type * as CalendarDate from "../../src/kernel/CalendarDate.ts"
import { fold } from "../../src/kernel/Decider.ts"
import type {
  BankAccountId,
  CompanyId,
  PartnerId,
  RegistrationId,
  TransferId,
  VerificationId,
} from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as AuthorizationEvidence from "../../src/payments/AuthorizationEvidence.ts"
import { DeciderSpecification, PropertyParams } from "../../src/testing/index.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(2026112621)

const spec = DeciderSpecification.forAggregate(CharityTransaction.aggregate)

const charityTransactionId = "cb8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a60" as CharityTransaction.CharityTransactionId
const partnerId = "1b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a61" as PartnerId
const verificationId = "db8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a62" as VerificationId
const companyId = "2b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a62" as CompanyId
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const usd = (minorUnits: number) => Money.make(minorUnits, "USD")

const create = (
  changes: Partial<CharityTransaction.CreateAnonymousCharityTransaction> = {},
): CharityTransaction.CreateAnonymousCharityTransaction => ({
  _tag: "CreateAnonymousCharityTransaction",
  charityTransactionId,
  partnerId,
  verificationId,
  companyId,
  amount: usd(10_000),
  isRecurring: false,
  payerCoversFee: true,
  at,
  ...changes,
})
const created = (payerCoversFee: boolean) =>
  CharityTransaction.AnonymousCharityTransactionCreated.make({
    charityTransactionId,
    partnerId,
    verificationId,
    companyId,
    amount: usd(10_000),
    isRecurring: false,
    payerCoversFee,
    fee: usd(100),
    payerCharged: payerCoversFee ? usd(10_100) : usd(10_000),
    charityReceives: payerCoversFee ? usd(10_000) : usd(9_900),
    at,
  })

describe("the charity fee", () => {
  it("is 1% of the donation, rounded half up to a whole cent", () => {
    assert.deepStrictEqual(CharityTransaction.computeFee(usd(10_000)), usd(100))
    assert.deepStrictEqual(CharityTransaction.computeFee(usd(149)), usd(1)) // 1.49 cents
    assert.deepStrictEqual(CharityTransaction.computeFee(usd(150)), usd(2)) // 1.5 cents
    assert.deepStrictEqual(CharityTransaction.computeFee(usd(49)), usd(0)) // 0.49 cent
    assert.deepStrictEqual(CharityTransaction.computeFee(Money.make(250, "JPY")), Money.make(3, "JPY")) // 2.5 yen
  })
  it("is exact for the largest amounts", () => {
    assert.deepStrictEqual(CharityTransaction.computeFee(usd(Money.maxMinorUnits)), usd(Money.maxMinorUnits / 100))
    assert.deepStrictEqual(
      CharityTransaction.computeFee(usd(9_999_999_999_999), { basisPoints: 9_999, fixedMinorUnits: 0 }),
      usd(9_998_999_999_999),
    )
  })
})

describe("a charity transaction under a negotiated fee schedule", () => {
  it("keeps the aggregate's stream name and stores its events at version 1", () => {
    const negotiated = CharityTransaction.makeAggregate({ basisPoints: 50, fixedMinorUnits: 0 })
    assert.strictEqual(negotiated.name, "CharityTransaction")
    assert.strictEqual(negotiated.name, CharityTransaction.aggregate.name)
    assert.strictEqual(negotiated.eventVersion("AnonymousCharityTransactionCreated"), 1)
  })
})

describe("a new anonymous charity transaction", () => {
  it("when the payer covers the fee, the payer is charged donation + fee and the charity receives the donation", () => {
    spec
      .given([])
      .when(create())
      .then([created(true)])
  })
  it("otherwise the payer is charged the donation and the charity receives donation - fee", () => {
    spec
      .given([])
      .when(create({ payerCoversFee: false }))
      .then([created(false)])
  })
  it("a fraction of a minor unit is refused on the amount", () => {
    spec
      .given([])
      .when(create({ amount: { minorUnits: 1.5, currency: "USD" } }))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "amount", message: "must be a whole number of minor units of a supported currency" }],
      })
  })
  it("a charge of exactly the largest amount is accepted", () => {
    spec
      .given([])
      .when(create({ amount: usd(Money.maxMinorUnits), payerCoversFee: false }))
      .thenState((state) =>
        assert.deepStrictEqual(state._tag === "Created" ? state.payerCharged : undefined, usd(Money.maxMinorUnits)),
      )
  })
  it("a donation whose charge would exceed the largest amount once the fee is added is refused", () => {
    spec
      .given([])
      .when(create({ amount: usd(Money.maxMinorUnits), payerCoversFee: true }))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "amount", message: "is too large once the fee is added" }],
      })
  })
  it("a zero donation is refused", () => {
    spec
      .given([])
      .when(create({ amount: usd(0) }))
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "amount", message: "must be greater than zero" }] })
  })
  it("a donation the fee would swallow entirely is refused (with a fixed fee of 30 cents)", () => {
    const withFixedFee = DeciderSpecification.forAggregate(
      CharityTransaction.makeAggregate({ basisPoints: 100, fixedMinorUnits: 30 }),
    )
    withFixedFee
      .given([])
      .when(create({ amount: usd(30), payerCoversFee: false }))
      .thenFails({
        _tag: "RuleViolated",
        code: "AMOUNT_BELOW_FEE",
        reason: "a donation of 0.30 USD leaves nothing after the fee of 0.30",
      })
    withFixedFee
      .given([])
      .when(create({ amount: usd(30), payerCoversFee: true }))
      .thenState((state) => assert.deepStrictEqual(state._tag === "Created" ? state.payerCharged : undefined, usd(60)))
  })
  it("the smallest donation, 1 cent, is accepted with the default 1% fee (rounded to 0)", () => {
    spec
      .given([])
      .when(create({ amount: usd(1), payerCoversFee: false }))
      .thenState((state) =>
        assert.deepStrictEqual(state._tag === "Created" ? state.charityReceives : undefined, usd(1)),
      )
  })
})

describe("an existing anonymous charity transaction", () => {
  it("the same request again changes nothing", () => {
    spec
      .given([created(true)])
      .when(create())
      .thenNothingHappens()
  })
  it("a different request with the same id is refused as AlreadyExists, whichever term differs", () => {
    const other = "9b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a69"
    for (const changes of [
      { isRecurring: true },
      { payerCoversFee: false },
      { amount: usd(10_001) },
      { companyId: other as CompanyId },
      { verificationId: other as VerificationId },
      { partnerId: other as PartnerId },
      { charityTransactionId: other as CharityTransaction.CharityTransactionId },
    ])
      spec
        .given([created(true)])
        .when(create(changes))
        .thenFails({ _tag: "AlreadyExists", entity: "CharityTransaction" })
  })
})

// ---------------------------------------------------------------------------
// Recurring gifts

const payerRegistrationId = "3b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a63" as RegistrationId
const bankAccountId = "4b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a64" as BankAccountId
const firstTransfer = "5b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a65" as TransferId
const nextTransfer = "6b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a66" as TransferId
const day = (text: string) => text as CalendarDate.CalendarDate
const verified = { companyStatus: "Verified", payerKyc: "Verified" } as const

/** A recurring gift created on 2026-03-01 (`at`), collected from the donor's account. */
const recurringCreated = CharityTransaction.AnonymousCharityTransactionCreated.make({
  ...created(true),
  isRecurring: true,
  transferId: firstTransfer,
  payerRegistrationId,
  bankAccountId,
})
const collectOn = (
  today: string,
  changes: Partial<CharityTransaction.CollectRecurringGift> = {},
): CharityTransaction.CollectRecurringGift => ({
  _tag: "CollectRecurringGift",
  charityTransactionId,
  transferId: nextTransfer,
  today: day(today),
  bankAccountLinked: true,
  parties: verified,
  at,
  ...changes,
})
const collected = (dueDate: string, collectionNumber: number) =>
  CharityTransaction.RecurringCharityGiftCollected.make({
    charityTransactionId,
    dueDate: day(dueDate),
    collectionNumber,
    transferId: nextTransfer,
    at,
  })
const stopped = (reason: CharityTransaction.RecurringGiftStopReason) =>
  CharityTransaction.RecurringCharityGiftStopped.make({ charityTransactionId, reason, at })
const cancelBy = (by: CharityTransaction.CancelRecurringGift["by"]): CharityTransaction.CancelRecurringGift => ({
  _tag: "CancelRecurringGift",
  charityTransactionId,
  by,
  at,
})

describe("a new recurring gift", () => {
  it("records the donor and the account it is collected from", () => {
    spec
      .given([])
      .when(create({ isRecurring: true, transferId: firstTransfer, payerRegistrationId, bankAccountId }))
      .then([recurringCreated])
  })
  it("is Active, first collected on its creation day, next due the same day next month", () => {
    ;((state: CharityTransaction.State) =>
      assert.deepStrictEqual(state._tag === "Created" ? state.recurrence : undefined, {
        status: "Active",
        startDate: day("2026-03-01"),
        lastDueDate: day("2026-03-01"),
        collections: 1,
        nextDueDate: day("2026-04-01"),
      }))(fold(CharityTransaction.aggregate, [recurringCreated]))
  })
  it("a recurring gift that names no account, or no donor, has no schedule (it cannot be collected again)", () => {
    const { bankAccountId: _b, ...noAccount } = recurringCreated
    const { payerRegistrationId: _p, ...noDonor } = recurringCreated
    for (const event of [noAccount, noDonor]) {
      const state = fold(CharityTransaction.aggregate, [event])
      assert.isUndefined(state._tag === "Created" ? state.recurrence : "?")
    }
  })
  it("a one-time gift has no schedule at all", () => {
    assert.notProperty(fold(CharityTransaction.aggregate, [created(true)]), "recurrence")
  })
  it("a gift recorded before recurring gifts were collected (no account) has no schedule", () => {
    const { payerRegistrationId: _p, bankAccountId: _b, ...older } = recurringCreated
    const state = fold(CharityTransaction.aggregate, [older])
    assert.isUndefined(state._tag === "Created" ? state.recurrence : "?")
  })
})

describe("an Active recurring gift", () => {
  it("is collected again on its next due date, as collection 2", () => {
    spec
      .given([recurringCreated])
      .when(collectOn("2026-04-01"))
      .then([collected("2026-04-01", 2)])
  })
  it("is not collected before its next due date", () => {
    spec.given([recurringCreated]).when(collectOn("2026-03-31")).thenNothingHappens()
  })
  it("a due date already collected is not collected twice", () => {
    spec
      .given([recurringCreated, collected("2026-04-01", 2)])
      .when(collectOn("2026-04-20"))
      .thenNothingHappens()
  })
  it("missed due dates are not made up: one collection, for the latest due date", () => {
    spec
      .given([recurringCreated])
      .when(collectOn("2026-06-10"))
      .then([collected("2026-06-01", 2)])
  })
  it("stops when the donor unlinked the account it is collected from", () => {
    spec
      .given([recurringCreated])
      .when(collectOn("2026-04-01", { bankAccountLinked: false }))
      .then([stopped("BankAccountUnlinked")])
  })
  it("stops when the charity may no longer collect, or the donor no longer pay (who may collect)", () => {
    spec
      .given([recurringCreated])
      .when(collectOn("2026-04-01", { parties: { companyStatus: "Rejected", payerKyc: "Verified" } }))
      .then([stopped("CompanyNotVerified")])
    spec
      .given([recurringCreated])
      .when(collectOn("2026-04-01", { parties: { companyStatus: "Verified", payerKyc: "Rejected" } }))
      .then([stopped("PayerNotVerified")])
  })
  it("is stopped by the partner's or the donor's cancellation", () => {
    spec
      .given([recurringCreated])
      .when(cancelBy("Partner"))
      .then([stopped("CancelledByPartner")])
    spec
      .given([recurringCreated])
      .when(cancelBy("Donor"))
      .then([stopped("CancelledByDonor")])
  })
  it("is stopped by an unauthorized return of a collection, saying so", () => {
    spec
      .given([recurringCreated])
      .when(cancelBy("UnauthorizedReturn"))
      .then([stopped("UnauthorizedReturn")])
  })
  it("after a collection, the next due date is a month after it (clamped to the month's end)", () => {
    const state = fold(CharityTransaction.aggregate, [recurringCreated, collected("2026-04-01", 2)])
    assert.deepStrictEqual(
      state._tag === "Created" && state.recurrence?.status === "Active" ? state.recurrence.nextDueDate : undefined,
      day("2026-05-01"),
    )
  })
})

describe("a stopped recurring gift", () => {
  it("is never collected again", () => {
    spec
      .given([recurringCreated, stopped("CancelledByPartner")])
      .when(collectOn("2026-04-01"))
      .thenNothingHappens()
  })
  it("cancelling it again changes nothing", () => {
    spec
      .given([recurringCreated, stopped("CancelledByDonor")])
      .when(cancelBy("Partner"))
      .thenNothingHappens()
  })
  it("an unauthorized return of a collection changes nothing more", () => {
    spec
      .given([recurringCreated, stopped("CancelledByDonor")])
      .when(cancelBy("UnauthorizedReturn"))
      .thenNothingHappens()
  })
  it("ignores a collection or a second stop recorded after it", () => {
    spec.given([recurringCreated, stopped("CancelledByPartner")]).ignores(collected("2026-04-01", 2))
    spec.given([recurringCreated, stopped("CancelledByPartner")]).ignores(stopped("BankAccountUnlinked"))
  })
})

describe("a one-time gift", () => {
  it("cannot be cancelled (409): it is collected once", () => {
    spec
      .given([created(true)])
      .when(cancelBy("Partner"))
      .thenFails({
        _tag: "IllegalTransition",
        entity: "CharityTransaction",
        state: "OneTime",
        command: "CancelRecurringGift",
        reason: "only a recurring gift can be cancelled: a one-time gift is collected once",
      })
  })
  it("an unauthorized return of it leaves nothing to stop: nothing happens (not a refusal)", () => {
    spec
      .given([created(true)])
      .when(cancelBy("UnauthorizedReturn"))
      .thenNothingHappens()
  })
  it("ignores a collection or a stop recorded for it", () => {
    spec.given([created(true)]).ignores(collected("2026-04-01", 2))
    spec.given([created(true)]).ignores(stopped("CancelledByPartner"))
  })
  it("is never collected again", () => {
    spec
      .given([created(true)])
      .when(collectOn("2026-04-01"))
      .thenNothingHappens()
  })
  it("ignores a second creation", () => {
    spec.given([created(true)]).ignores(recurringCreated)
  })
})

describe("no gift yet", () => {
  it("cannot be cancelled", () => {
    spec.given([]).when(cancelBy("Donor")).thenFails({ _tag: "IllegalTransition", state: "Initial" })
  })
  it("an unauthorized return leaves nothing to stop: nothing happens", () => {
    spec.given([]).when(cancelBy("UnauthorizedReturn")).thenNothingHappens()
  })
  it("is not collected", () => {
    spec.given([]).when(collectOn("2026-04-01")).thenNothingHappens()
  })
})

describe("properties of charity transactions", () => {
  it("payer charged - charity receives = fee; the fee is within half a minor unit of the exact percentage", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Money.maxMinorUnits / 2 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 5_000 }),
        (minorUnits, payerCoversFee, basisPoints) => {
          const amount = usd(minorUnits)
          const { fee, payerCharged, charityReceives } = CharityTransaction.split(amount, payerCoversFee, {
            basisPoints,
            fixedMinorUnits: 0,
          })
          assert.strictEqual(payerCharged.minorUnits - charityReceives.minorUnits, fee.minorUnits)
          assert.isTrue(Number.isInteger(fee.minorUnits) && fee.minorUnits >= 0)
          // fee * 10000 - amount * bp is in (-5000, 5000]: rounded half up, in exact integers
          const error = BigInt(fee.minorUnits) * 10_000n - BigInt(minorUnits) * BigInt(basisPoints)
          assert.isTrue(
            error > -5_000n && error <= 5_000n,
            `fee ${fee.minorUnits} for ${minorUnits} at ${basisPoints}bp`,
          )
          assert.strictEqual(payerCoversFee ? charityReceives.minorUnits : payerCharged.minorUnits, minorUnits)
        },
      ),
      seeded({ numRuns: 300 }),
    )
  })

  it("replaying the stored (JSON-encoded) event reproduces the state", () => {
    const encode = Schema.encodeSync(CharityTransaction.aggregate.events)
    const decode = Schema.decodeUnknownSync(CharityTransaction.aggregate.events)
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.boolean(),
        fc.boolean(),
        (minorUnits, isRecurring, payerCoversFee) => {
          const decision = CharityTransaction.decide(
            create({ amount: usd(minorUnits), isRecurring, payerCoversFee }),
            CharityTransaction.initialState,
          )
          if (decision._tag === "Failure") return
          const state = fold(CharityTransaction.aggregate, decision.success)
          const replayed = fold(
            CharityTransaction.aggregate,
            decision.success.map((event) => decode(JSON.parse(JSON.stringify(encode(event))))),
          )
          assert.deepStrictEqual(replayed, state)
        },
      ),
      seeded({ numRuns: 200 }),
    )
  })
})

describe("a gift given through a request", () => {
  const client = { ipAddress: "203.0.113.9", userAgent: "donor-app/1.0" }

  it("records the donor's one-time authorization, with the one-time gift's text", () => {
    spec
      .given([])
      .when(create({ client }))
      .then([
        CharityTransaction.AnonymousCharityTransactionCreated.make({
          ...created(true),
          authorization: {
            acceptedAt: at,
            ...client,
            text: AuthorizationEvidence.defaultTexts.CharityGift.text,
            textVersion: "charity-gift/2026-11-28",
          },
        }),
      ])
  })

  it("records the recurring gift's text for a recurring gift, kept in the state", () => {
    const decided = CharityTransaction.aggregate.decide(
      create({ client, isRecurring: true }),
      CharityTransaction.initialState,
    )
    assert.strictEqual(decided._tag, "Success")
    const state = fold(CharityTransaction.aggregate, decided._tag === "Success" ? decided.success : [])
    assert.strictEqual(
      state._tag === "Created" && state.authorization?.textVersion,
      "recurring-charity-gift/2026-11-28",
    )
  })

  it("records nothing without a request (no client)", () => {
    spec
      .given([])
      .when(create())
      .then([created(true)])
  })
})
