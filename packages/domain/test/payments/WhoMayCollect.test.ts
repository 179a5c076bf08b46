/**
 * Who may collect, as a property of the whole domain (issue 24 §5): whatever
 * a partner and a payer do (payment requests accepted by the payer, autopay
 * collected by the service, payment plans collected by the scheduler, a
 * recurring charity gift given and collected again a month later), no
 * transfer ever leaves an unverified payer or reaches an unverified company;
 * and between a Verified company and a Verified payer every one of these
 * collections starts its transfer. The rules themselves are specified with
 * each decider (PaymentRequest, Transfer, PaymentPlan, Consent) and tabled in
 * packages/domain/docs/WhoMayCollect.md.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer } from "effect"
import fc from "fast-check"
import * as Charity from "../../src/cards-and-charity/Charity.ts"
import * as Companies from "../../src/companies/Companies.ts"
import * as EventPipeline from "../../src/composition/EventPipeline.ts"
import * as BankAccounts from "../../src/customers/BankAccounts.ts"
import * as Customer from "../../src/customers/Customer.ts"
import * as CommandHandler from "../../src/infrastructure/CommandHandler.ts"
import { IdGenerator } from "../../src/infrastructure/IdGenerator.ts"
import { ReadModelStore } from "../../src/infrastructure/ReadModel.ts"
import { UnitOfWork } from "../../src/infrastructure/UnitOfWork.ts"
import * as CalendarDate from "../../src/kernel/CalendarDate.ts"
import type { BankAccountId, CompanyId, PartnerId, RegistrationId, VerificationId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as AutoCollection from "../../src/payments/AutoCollection.ts"
import * as Payments from "../../src/payments/Payments.ts"
import * as Transfers from "../../src/payments/Transfers.ts"
import * as TransfersProjection from "../../src/payments/TransfersProjection.ts"
import * as WhoMayCollect from "../../src/payments/WhoMayCollect.ts"
import * as Consents from "../../src/plans/Consents.ts"
import * as PaymentPlans from "../../src/plans/PaymentPlans.ts"
import { Fixtures, PropertyParams } from "../../src/testing/index.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(24_05)

const partnerId = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b" as PartnerId
const companyId = "c0c0c0c0-0000-4000-8000-0000000000c1" as CompanyId
const payer = "7e57ab1e-0000-4000-8000-00000000c0de" as RegistrationId
const checking = "8b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a69" as BankAccountId

const layer = () =>
  Layer.mergeAll(
    EventPipeline.layerMemory(),
    UnitOfWork.layerMemory,
    IdGenerator.layerRandom,
    Transfers.eSignatureSandbox,
  )

type Collection = "Request" | "AutoPay" | "Plan" | "RecurringGift"

/** The transfers one collection starts between verified parties (a recurring gift: its first and its second month). */
const transfersOf = (collection: Collection): number => (collection === "RecurringGift" ? 2 : 1)

/** A company whose KYB ended (or not yet) with `status`. */
const company = Effect.fnUntraced(function* (status: WhoMayCollect.CompanyStatus) {
  yield* Fixtures.registerCompany(partnerId, companyId, "Acme Coffee", { locations: 0 })
  if (status === "Suspended") {
    yield* Companies.completeKyb(companyId, "Verified")
    yield* Companies.suspend(companyId)
  } else if (status !== "Unverified") yield* Companies.completeKyb(companyId, status)
})

/**
 * The payer with KYC `kyc`: from Pending on, with the checking account linked (in the verification's
 * session) and designated for autopay; a Rejected payer linked it while Pending, then was rejected.
 */
const payerWith = Effect.fnUntraced(function* (kyc: WhoMayCollect.KycStatus) {
  yield* Fixtures.registerCustomer(partnerId, payer)
  if (kyc === "NotStarted") return
  if (kyc === "Verified") yield* Fixtures.verifyCustomer(payer)
  yield* Fixtures.linkBankAccount(payer, checking)
  yield* BankAccounts.setDefault(partnerId, payer, checking)
  if (kyc === "Rejected")
    yield* CommandHandler.handle(Customer.aggregate, payer, {
      _tag: "RecordKycResult",
      outcome: "Rejected",
      referenceId: "7b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a68",
      at: yield* DateTime.now,
    })
})

const usd = (value: number) => ({ value, currencyCode: "USD" as const })

/** One collection tried as the partner, the payer and the service's workers would; refusals are expected. */
const attempt = Effect.fnUntraced(function* (collection: Collection) {
  const today = CalendarDate.fromEpochMillis(DateTime.toEpochMillis(yield* DateTime.now))
  const base = { partnerId, companyId, payerRegistrationId: payer, description: "Cleaning", dueDate: today }
  switch (collection) {
    case "Request": {
      const { paymentRequestId } = yield* Payments.create({ ...base, amount: usd(40) })
      yield* Payments.accept({
        partnerId,
        registrationId: payer,
        paymentRequestId,
        bankAccountId: checking,
        acceptDebitAuth: false,
        transferDescription: "",
      })
      return
    }
    case "AutoPay": {
      const { paymentRequestId } = yield* Payments.create({
        ...base,
        amount: usd(19.99),
        enableAutoPay: true,
        autoPayLimit: usd(50),
      })
      yield* AutoCollection.collect(paymentRequestId, today)
      return
    }
    case "Plan": {
      const plan = yield* PaymentPlans.create({
        partnerId,
        companyId,
        payerRegistrationId: payer,
        amount: Money.make(2_500, "USD"),
        frequency: "Weekly",
        recurrenceInterval: 1,
        startDate: today,
        numberOfPayments: 2,
      })
      yield* Consents.accept({ partnerId, registrationId: payer }, plan.consentId, checking)
      yield* PaymentPlans.activate(partnerId, plan.paymentPlanId)
      yield* PaymentPlans.collectDue(plan.paymentPlanId, today)
      return
    }
    case "RecurringGift": {
      const gift = yield* Charity.createAnonymous({
        partnerId,
        donor: payer,
        verificationId: "7b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a68" as VerificationId,
        companyId,
        amount: usd(10),
        isRecurring: true,
        payerCoversFee: true,
      })
      yield* Charity.collectDue(gift.charityTransactionId, CalendarDate.addMonths(today, 1))
      return
    }
  }
})

const world = fc.record({
  companyStatus: fc.constantFrom<WhoMayCollect.CompanyStatus>("Unverified", "Verified", "Rejected"),
  payerKyc: fc.constantFrom<WhoMayCollect.KycStatus>("NotStarted", "Pending", "Verified", "Rejected"),
  collections: fc.array(fc.constantFrom<Collection>("Request", "AutoPay", "Plan", "RecurringGift"), {
    minLength: 1,
    maxLength: 4,
  }),
})

describe("who may collect", () => {
  it("no transfer ever leaves an unverified payer or reaches an unverified company; verified parties collect", () =>
    fc.assert(
      fc.asyncProperty(world, ({ companyStatus, payerKyc, collections }) =>
        Effect.runPromise(
          Effect.gen(function* () {
            yield* company(companyStatus)
            yield* payerWith(payerKyc)
            for (const collection of collections) yield* Effect.ignore(attempt(collection))
            const store = yield* ReadModelStore
            const transfers = yield* store.find(TransfersProjection.collection, { partnerId, limit: 100 })
            const mayCollect = WhoMayCollect.mayCollect({ companyStatus, payerKyc })
            assert.strictEqual(
              transfers.items.length,
              mayCollect ? collections.reduce((sum, collection) => sum + transfersOf(collection), 0) : 0,
            )
          }).pipe(Effect.provide(layer())),
        ),
      ),
      seeded({ numRuns: 60 }),
    ))
})
