/**
 * Executable specification of the auto-collection use cases
 * (`AutoCollection.due` / `collect`): the payer's designated account (the
 * default account, else the account of their most recent acceptance), the
 * transfer a collection starts, the debit a debit-authorization collection
 * authorizes, and the requests left Pending (skipped once).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as Companies from "../../src/companies/Companies.ts"
import * as EventPipeline from "../../src/composition/EventPipeline.ts"
import * as BankAccounts from "../../src/customers/BankAccounts.ts"
import * as CommandHandler from "../../src/infrastructure/CommandHandler.ts"
import { IdGenerator } from "../../src/infrastructure/IdGenerator.ts"
import { MemoryOutbox } from "../../src/infrastructure/Outbox.ts"
import { UnitOfWork } from "../../src/infrastructure/UnitOfWork.ts"
import type { CalendarDate } from "../../src/kernel/CalendarDate.ts"
import type { BankAccountId, CompanyId, PartnerId, RegistrationId } from "../../src/kernel/Ids.ts"
import * as AutoCollection from "../../src/payments/AutoCollection.ts"
import * as DebitAuth from "../../src/payments/DebitAuth.ts"
import * as DebitAuths from "../../src/payments/DebitAuths.ts"
import * as Payments from "../../src/payments/Payments.ts"
import * as Transfers from "../../src/payments/Transfers.ts"
import { Fixtures } from "../../src/testing/index.ts"

const partnerId = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b" as PartnerId
const payer = "7e57ab1e-0000-4000-8000-00000000c0de" as RegistrationId
const checking = "8b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a69" as BankAccountId
const savings = "8b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6a" as BankAccountId
const today = "2026-03-01" as CalendarDate

const layer = () =>
  Layer.mergeAll(
    EventPipeline.layerMemory(),
    UnitOfWork.layerMemory,
    IdGenerator.layerRandom,
    Transfers.eSignatureSandbox,
  )

/** A company, and a payer with a checking and a savings account linked. */
const seed = Effect.gen(function* () {
  yield* TestClock.setTime(Date.parse("2026-03-01T10:00:00.000Z"))
  const company = yield* Companies.register(
    partnerId,
    Fixtures.companyRegistrationBody({
      companyReferenceId: "auto-1",
      websiteUrl: undefined,
      employees: [],
      locations: [],
    }),
  )
  yield* Fixtures.verifyCompany(company.companyId)
  yield* Fixtures.registerVerifiedCustomer(partnerId, payer, checking)
  yield* Fixtures.linkBankAccounts(payer, [
    { bankAccountId: checking, name: "Everyday Checking", mask: "6789", type: "checking" },
    { bankAccountId: savings, name: "Rainy Day Savings", mask: "1111", type: "savings" },
  ])
  return company.companyId as CompanyId
})

const request = (companyId: CompanyId, overrides: Partial<Payments.CreateInput> = {}) =>
  Payments.create({
    partnerId,
    companyId,
    payerRegistrationId: payer,
    amount: { value: 42.5, currencyCode: "USD" },
    description: "Lawn care",
    dueDate: today,
    enableAutoPay: true,
    autoPayLimit: { value: 50, currencyCode: "USD" },
    ...overrides,
  }).pipe(Effect.map((created) => created.paymentRequestId))

const dueIds = Effect.map(AutoCollection.due(today), (due) => due.map((d) => d.paymentRequestId))

describe("an autopay request due today", () => {
  it.effect("is listed as due, and collected from the payer's default account: Accepted, its transfer started", () =>
    Effect.gen(function* () {
      const companyId = yield* seed
      yield* BankAccounts.setDefault(partnerId, payer, savings)
      const id = yield* request(companyId)
      assert.deepStrictEqual(yield* dueIds, [id])
      const outcome = yield* AutoCollection.collect(id)
      assert.strictEqual(outcome._tag, "Collected")
      const doc = yield* Payments.get(partnerId, id)
      assert.strictEqual(doc.status, "Accepted")
      assert.strictEqual(doc.collectedBy, "AutoPay")
      assert.strictEqual(doc.bankAccountId, savings)
      assert.strictEqual(doc.accountNumberMasked, "****1111")
      const transfer = yield* Transfers.get({ _tag: "Partner", partnerId } as never, doc.transferId!)
      assert.strictEqual(transfer.status, "Pending")
      assert.deepStrictEqual(transfer.amount, { minorUnits: 4250, currency: "USD" })
      assert.deepStrictEqual(yield* dueIds, [])
      const outbox = yield* MemoryOutbox
      assert.deepStrictEqual(
        outbox.recorded
          .filter((n) => n.eventType === "PAYMENT_REQUEST_STATUS_CHANGED")
          .map((n) => (n.data as { Status: string }).Status),
        ["Pending", "Accepted"],
      )
      assert.strictEqual((yield* AutoCollection.collect(id))._tag, "NothingToDo")
    }).pipe(Effect.provide(layer())),
  )

  it.effect(
    "designated through a request, carries the payer's autopay evidence as its acceptance's authorization",
    () =>
      Effect.gen(function* () {
        const companyId = yield* seed
        const client = { ipAddress: "203.0.113.50", userAgent: "payer-app/2.0" }
        yield* BankAccounts.setDefault(partnerId, payer, savings, client)
        const designation = yield* BankAccounts.getDefault(partnerId, payer)
        assert.deepInclude(designation.authorization, { ...client, textVersion: "autopay/2026-11-28" })
        const id = yield* request(companyId)
        yield* AutoCollection.collect(id)
        assert.deepStrictEqual((yield* Payments.get(partnerId, id)).authorization, designation.authorization)
        // Unlinking the account ends the designation and its evidence.
        yield* BankAccounts.remove(partnerId, payer, savings)
        assert.deepStrictEqual(yield* BankAccounts.getDefault(partnerId, payer), { account: undefined })
      }).pipe(Effect.provide(layer())),
  )

  it.effect("without a default account, is collected from the account of the payer's most recent acceptance", () =>
    Effect.gen(function* () {
      const companyId = yield* seed
      const manual = yield* request(companyId, { enableAutoPay: undefined, autoPayLimit: undefined })
      yield* Payments.accept({
        partnerId,
        registrationId: payer,
        paymentRequestId: manual,
        bankAccountId: savings,
        acceptDebitAuth: false,
        transferDescription: "",
      })
      const id = yield* request(companyId)
      yield* AutoCollection.collect(id)
      assert.strictEqual((yield* Payments.get(partnerId, id)).bankAccountId, savings)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("without a designated account, is skipped once and stays Pending, off the due list", () =>
    Effect.gen(function* () {
      const companyId = yield* seed
      const id = yield* request(companyId)
      const outcome = yield* AutoCollection.collect(id)
      assert.deepStrictEqual(outcome, { _tag: "Skipped", paymentRequestId: id, reason: "NoDesignatedAccount" })
      const doc = yield* Payments.get(partnerId, id)
      assert.strictEqual(doc.status, "Pending")
      assert.strictEqual(doc.autoCollectionSkipped, "NoDesignatedAccount")
      assert.deepStrictEqual(yield* dueIds, [])
    }).pipe(Effect.provide(layer())),
  )

  it.effect("an unlinked default account no longer designates anything", () =>
    Effect.gen(function* () {
      const companyId = yield* seed
      yield* BankAccounts.setDefault(partnerId, payer, checking)
      yield* BankAccounts.remove(partnerId, payer, checking)
      assert.isUndefined((yield* BankAccounts.getDefault(partnerId, payer)).account)
      const id = yield* request(companyId)
      assert.strictEqual((yield* AutoCollection.collect(id))._tag, "Skipped")
    }).pipe(Effect.provide(layer())),
  )
})

describe("an autopay request due later", () => {
  it.effect("is not listed as due today and collecting it does nothing", () =>
    Effect.gen(function* () {
      const companyId = yield* seed
      yield* BankAccounts.setDefault(partnerId, payer, checking)
      const id = yield* request(companyId, { dueDate: "2026-03-02" as CalendarDate })
      assert.deepStrictEqual(yield* dueIds, [])
      assert.strictEqual((yield* AutoCollection.collect(id))._tag, "NothingToDo")
      assert.strictEqual((yield* Payments.get(partnerId, id)).status, "Pending")
    }).pipe(Effect.provide(layer())),
  )
})

describe("a debit-authorization request due today", () => {
  it.effect("is collected when the payer's Active authorization covers it, and the debit is authorized on it", () =>
    Effect.gen(function* () {
      const companyId = yield* seed
      yield* BankAccounts.setDefault(partnerId, payer, checking)
      const authorization = yield* DebitAuths.set({
        partnerId,
        registrationId: payer,
        companyId,
        limit: { value: 100, currencyCode: "USD" },
      })
      const id = yield* request(companyId, {
        enableAutoPay: undefined,
        autoPayLimit: undefined,
        enableDebitAuth: true,
        debitAuthLimit: { value: 50, currencyCode: "USD" },
      })
      const outcome = yield* AutoCollection.collect(id)
      assert.strictEqual(outcome._tag, "Collected")
      const doc = yield* Payments.get(partnerId, id)
      assert.strictEqual(doc.collectedBy, "DebitAuth")
      assert.isTrue(doc.debitAuthAccepted)
      const { state } = yield* CommandHandler.load(DebitAuth.aggregate, authorization.debitAuthId)
      assert.isTrue(state._tag === "Active" && state.authorizedDebits[id] !== undefined)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("without an authorization for the company, is skipped (NoDebitAuthorization)", () =>
    Effect.gen(function* () {
      const companyId = yield* seed
      yield* BankAccounts.setDefault(partnerId, payer, checking)
      const id = yield* request(companyId, {
        enableAutoPay: undefined,
        autoPayLimit: undefined,
        enableDebitAuth: true,
        debitAuthLimit: { value: 50, currencyCode: "USD" },
      })
      const outcome = yield* AutoCollection.collect(id)
      assert.deepStrictEqual(outcome, { _tag: "Skipped", paymentRequestId: id, reason: "NoDebitAuthorization" })
    }).pipe(Effect.provide(layer())),
  )
})
