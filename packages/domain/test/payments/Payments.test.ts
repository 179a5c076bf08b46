/**
 * Executable specification of the payment use cases: a partner creates,
 * reads, lists and cancels payment requests; the payer accepts one with a
 * linked bank account, which starts its transfer; the bank settles or fails
 * the transfer, which makes the request Paid or Failed; the partner refunds a
 * settled transfer, reads the transaction report; the payer applies for
 * reimbursement. Every status change is a PAYMENT_REQUEST_STATUS_CHANGED
 * notification in the outbox, in the same unit of work as the change.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import * as Companies from "../../src/companies/Companies.ts"
import * as EventPipeline from "../../src/composition/EventPipeline.ts"
import * as Customer from "../../src/customers/Customer.ts"
import { IdGenerator } from "../../src/infrastructure/IdGenerator.ts"
import { MemoryOutbox } from "../../src/infrastructure/Outbox.ts"
import { ProviderUnavailable } from "../../src/infrastructure/Providers.ts"
import { ReadModelStore } from "../../src/infrastructure/ReadModel.ts"
import { UnitOfWork } from "../../src/infrastructure/UnitOfWork.ts"
import type { CalendarDate } from "../../src/kernel/CalendarDate.ts"
import { NotFound, ValidationFailed } from "../../src/kernel/DomainError.ts"
import type { BankAccountId, CompanyId, PartnerId, RegistrationId, TransferId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as DebitAuths from "../../src/payments/DebitAuths.ts"
import * as MoneyMovement from "../../src/payments/MoneyMovement.ts"
import * as MoneyMovements from "../../src/payments/MoneyMovements.ts"
import * as PaymentRequestsProjection from "../../src/payments/PaymentRequestsProjection.ts"
import * as Payments from "../../src/payments/Payments.ts"
import * as RailCapabilities from "../../src/payments/RailCapabilities.ts"
import type { RefundId, ReimbursementProviderId } from "../../src/payments/TransferEvents.ts"
import * as Transfers from "../../src/payments/Transfers.ts"
import * as TransfersProjection from "../../src/payments/TransfersProjection.ts"
import { Fixtures, PropertyParams } from "../../src/testing/index.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(2026112634)

const partnerId = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b" as PartnerId
const otherPartnerId = "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f" as PartnerId
const payer = "7e57ab1e-0000-4000-8000-00000000c0de" as RegistrationId
const stranger = "7e57ab1e-0000-4000-8000-00000000c0df" as RegistrationId
const checking = "8b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a69" as BankAccountId
const unlinked = "8b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6a" as BankAccountId
const providerId = "5a5a5a5a-0000-4000-8000-000000000001" as ReimbursementProviderId

export const layer = () =>
  Layer.mergeAll(
    EventPipeline.layerMemory(),
    UnitOfWork.layerMemory,
    IdGenerator.layerRandom,
    Transfers.eSignatureSandbox,
  )

const march2026 = TestClock.setTime(Date.parse("2026-03-01T10:00:00.000Z"))

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const reason = exit.cause.reasons[0]
  if (reason?._tag !== "Fail") throw new Error(`expected a typed failure, got ${String(exit.cause)}`)
  return reason.error
}

const companyBody = (companyReferenceId: string) =>
  Fixtures.companyRegistrationBody({ companyReferenceId, websiteUrl: undefined, employees: [], locations: [] })

/** Registers a company of `partner`, Verified unless told otherwise (only a Verified company collects), and returns its id. */
export const seedCompany = Effect.fnUntraced(function* (
  partner: PartnerId,
  reference = "acme-001",
  status: "Verified" | "Unverified" = "Verified",
) {
  const { companyId } = yield* Companies.register(partner, companyBody(reference))
  if (status === "Verified") yield* Fixtures.verifyCompany(companyId)
  return companyId
})

/** Registers a verified customer of `partner` with the checking account ****6789 linked. */
export const seedCustomer = (partner: PartnerId, registrationId: RegistrationId) =>
  Fixtures.registerVerifiedCustomer(partner, registrationId, checking)

const createInput = (companyId: CompanyId, overrides: Partial<Payments.CreateInput> = {}): Payments.CreateInput => ({
  partnerId,
  companyId,
  payerRegistrationId: payer,
  amount: { value: 125.5, currencyCode: "USD" },
  description: "Invoice 42: cleaning",
  dueDate: "2026-03-15" as CalendarDate,
  attachmentUrl: "https://files.example.com/invoices/invoice-42.pdf",
  ...overrides,
})

const acceptInput = (
  paymentRequestId: string,
  overrides: Partial<Payments.AcceptInput> = {},
): Payments.AcceptInput => ({
  partnerId,
  registrationId: payer,
  paymentRequestId,
  bankAccountId: checking,
  acceptDebitAuth: false,
  transferDescription: "",
  ...overrides,
})

/** A company, a payer and one Pending request. */
const pending = Effect.gen(function* () {
  yield* march2026
  const companyId = yield* seedCompany(partnerId)
  yield* seedCustomer(partnerId, payer)
  const { paymentRequestId } = yield* Payments.create(createInput(companyId))
  return { companyId, paymentRequestId }
})

/** ... accepted by the payer. */
const accepted = Effect.gen(function* () {
  const { companyId, paymentRequestId } = yield* pending
  yield* Payments.accept(acceptInput(paymentRequestId))
  const doc = yield* Payments.get(partnerId, paymentRequestId)
  return { companyId, paymentRequestId, transferId: doc.transferId as TransferId }
})

/** ... whose transfer settled. */
const paid = Effect.gen(function* () {
  const ids = yield* accepted
  yield* TestClock.adjust("1 day")
  yield* Payments.settleTransfer(ids.transferId)
  return ids
})

const notifications = Effect.gen(function* () {
  const outbox = yield* MemoryOutbox
  return outbox.recorded.filter((n) => n.eventType === "PAYMENT_REQUEST_STATUS_CHANGED")
})

describe("creating a payment request", () => {
  it.effect("returns its id and Pending; the request reads back with its details and history", () =>
    Effect.gen(function* () {
      const { companyId, paymentRequestId } = yield* pending
      const doc = yield* Payments.get(partnerId, paymentRequestId)
      assert.strictEqual(doc.status, "Pending")
      assert.strictEqual(doc.companyId, companyId)
      assert.deepStrictEqual(doc.amount, { minorUnits: 12550, currency: "USD" })
      assert.strictEqual(doc.dueDate, "2026-03-15")
      assert.deepStrictEqual(doc.statusHistory, [{ status: "Pending", timestamp: "2026-03-01T10:00:00.000Z" }])
      assert.deepStrictEqual(doc.refundedAmount, { minorUnits: 0, currency: "USD" })
      assert.isFalse(doc.enableAutoPay)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("the company can be named by the partner's reference instead of its id", () =>
    Effect.gen(function* () {
      yield* march2026
      const companyId = yield* seedCompany(partnerId, "ref-77")
      yield* seedCustomer(partnerId, payer)
      const { paymentRequestId } = yield* Payments.create(
        createInput(companyId, { companyId: undefined, companyReferenceId: "ref-77" }),
      )
      assert.strictEqual((yield* Payments.get(partnerId, paymentRequestId)).companyId, companyId)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("naming both or neither of companyId and companyReferenceId is refused, both fields named", () =>
    Effect.gen(function* () {
      yield* march2026
      const companyId = yield* seedCompany(partnerId)
      const both = failureOf(
        yield* Effect.exit(Payments.create(createInput(companyId, { companyReferenceId: "acme-001" }))),
      )
      const neither = failureOf(yield* Effect.exit(Payments.create(createInput(companyId, { companyId: undefined }))))
      for (const error of [both, neither]) {
        assert.strictEqual(error._tag, "ValidationFailed")
        if (error._tag === "ValidationFailed")
          assert.deepStrictEqual(
            error.issues.map((i) => i.field),
            ["companyId", "companyReferenceId"],
          )
      }
    }).pipe(Effect.provide(layer())),
  )

  it.effect("autopay and a debit authorization together are refused with both flags named", () =>
    Effect.gen(function* () {
      yield* march2026
      const companyId = yield* seedCompany(partnerId)
      yield* seedCustomer(partnerId, payer)
      const error = failureOf(
        yield* Effect.exit(
          Payments.create(
            createInput(companyId, {
              enableAutoPay: true,
              autoPayLimit: { value: 500, currencyCode: "USD" },
              enableDebitAuth: true,
              debitAuthLimit: { value: 500, currencyCode: "USD" },
            }),
          ),
        ),
      )
      assert.strictEqual(error._tag, "ValidationFailed")
      if (error._tag === "ValidationFailed") {
        const fields = error.issues.map((i) => i.field)
        assert.include(fields, "enableAutoPay")
        assert.include(fields, "enableDebitAuth")
      }
    }).pipe(Effect.provide(layer())),
  )

  it.effect("an amount with too many decimals is refused on amount.value", () =>
    Effect.gen(function* () {
      yield* march2026
      const companyId = yield* seedCompany(partnerId)
      const error = failureOf(
        yield* Effect.exit(Payments.create(createInput(companyId, { amount: { value: 1.005, currencyCode: "USD" } }))),
      )
      assert.deepStrictEqual(error._tag === "ValidationFailed" ? error.issues.map((i) => i.field) : [], [
        "amount.value",
      ])
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a company whose business verification was Rejected cannot receive a payment request", () =>
    Effect.gen(function* () {
      yield* march2026
      const companyId = yield* seedCompany(partnerId, "acme-001", "Unverified")
      yield* seedCustomer(partnerId, payer)
      yield* Companies.completeKyb(companyId, "Rejected", "sanctions list")
      const error = failureOf(yield* Effect.exit(Payments.create(createInput(companyId))))
      assert.strictEqual(error._tag, "RuleViolated")
      if (error._tag === "RuleViolated") assert.strictEqual(error.code, "COMPANY_REJECTED")
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a company whose business verification has not completed cannot receive one (COMPANY_NOT_VERIFIED)", () =>
    Effect.gen(function* () {
      yield* march2026
      const companyId = yield* seedCompany(partnerId, "acme-001", "Unverified")
      yield* seedCustomer(partnerId, payer)
      const error = failureOf(yield* Effect.exit(Payments.create(createInput(companyId))))
      assert.deepStrictEqual(
        [error._tag, error._tag === "RuleViolated" ? error.code : ""],
        ["RuleViolated", "COMPANY_NOT_VERIFIED"],
      )
      const store = yield* ReadModelStore
      const created = yield* store.find(PaymentRequestsProjection.collection, { partnerId, keys: {}, limit: 10 })
      assert.deepStrictEqual(created.items, [])
    }).pipe(Effect.provide(layer())),
  )

  it.effect("another partner's company, or an unknown one, is NotFound", () =>
    Effect.gen(function* () {
      yield* march2026
      const companyId = yield* seedCompany(otherPartnerId)
      const error = failureOf(yield* Effect.exit(Payments.create(createInput(companyId))))
      assert.deepStrictEqual([error._tag, error._tag === "NotFound" ? error.entity : ""], ["NotFound", "Company"])
      const unknown = failureOf(
        yield* Effect.exit(Payments.create(createInput("9f9f9f9f-0000-4000-8000-000000000000" as CompanyId))),
      )
      assert.strictEqual(unknown._tag, "NotFound")
    }).pipe(Effect.provide(layer())),
  )

  it.effect(
    "a payer that is not the partner's customer is not found, alike for another partner's and an unknown one",
    () =>
      Effect.gen(function* () {
        yield* march2026
        const companyId = yield* seedCompany(partnerId)
        yield* seedCustomer(otherPartnerId, stranger)
        const unknown = "7e57ab1e-0000-4000-8000-0000000000ff" as RegistrationId
        const refusals = []
        for (const payerRegistrationId of [stranger, unknown])
          refusals.push(failureOf(yield* Effect.exit(Payments.create(createInput(companyId, { payerRegistrationId })))))
        assert.deepStrictEqual(refusals, [new NotFound({ entity: "Customer" }), new NotFound({ entity: "Customer" })])
        const store = yield* ReadModelStore
        const created = yield* store.find(PaymentRequestsProjection.collection, { partnerId, keys: {}, limit: 10 })
        assert.deepStrictEqual(created.items, [])
      }).pipe(Effect.provide(layer())),
  )
})

/** Three requests of one company and payer, created on 1, 2 and 3 March 2026; the first is cancelled. */
const threeRequests = Effect.gen(function* () {
  yield* march2026
  const companyId = yield* seedCompany(partnerId)
  yield* seedCustomer(partnerId, payer)
  const ids: Array<string> = []
  for (let i = 0; i < 3; i++) {
    ids.push((yield* Payments.create(createInput(companyId))).paymentRequestId)
    yield* TestClock.adjust("1 day")
  }
  yield* Payments.cancel(partnerId, ids[0]!)
  return { companyId, ids }
})

describe("reading and listing payment requests", () => {
  it.effect("another partner's request is NotFound", () =>
    Effect.gen(function* () {
      const { paymentRequestId } = yield* pending
      const error = failureOf(yield* Effect.exit(Payments.get(otherPartnerId, paymentRequestId)))
      assert.strictEqual(error._tag, "NotFound")
    }).pipe(Effect.provide(layer())),
  )

  it.effect("history lists the partner's requests newest first", () =>
    Effect.gen(function* () {
      const { ids } = yield* threeRequests
      const all = yield* Payments.history({ partnerId, limit: 10 })
      assert.deepStrictEqual(
        all.data.map((d) => d.paymentRequestId),
        [...ids].reverse(),
      )
      assert.isFalse(all.hasMore)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("history pages by cursor: a full page says hasMore, the next starts after its last request", () =>
    Effect.gen(function* () {
      const { ids } = yield* threeRequests
      const first = yield* Payments.history({ partnerId, limit: 2 })
      assert.isTrue(first.hasMore)
      const second = yield* Payments.history({ partnerId, limit: 2, startingAfter: first.data[1]!.paymentRequestId })
      assert.deepStrictEqual(
        second.data.map((d) => d.paymentRequestId),
        [ids[0]],
      )
    }).pipe(Effect.provide(layer())),
  )

  it.effect("history filters by status", () =>
    Effect.gen(function* () {
      const { ids } = yield* threeRequests
      const cancelled = yield* Payments.history({ partnerId, status: "Cancelled", limit: 10 })
      assert.deepStrictEqual(
        cancelled.data.map((d) => d.paymentRequestId),
        [ids[0]],
      )
    }).pipe(Effect.provide(layer())),
  )

  it.effect("history filters by creation date, from and to inclusive", () =>
    Effect.gen(function* () {
      const { ids } = yield* threeRequests
      const onDay2 = yield* Payments.history({
        partnerId,
        from: "2026-03-02" as CalendarDate,
        to: "2026-03-02" as CalendarDate,
        limit: 10,
      })
      assert.deepStrictEqual(
        onDay2.data.map((d) => d.paymentRequestId),
        [ids[1]],
      )
    }).pipe(Effect.provide(layer())),
  )

  it.effect("history filters by company and payer: a payer without requests lists none", () =>
    Effect.gen(function* () {
      const { companyId } = yield* threeRequests
      assert.strictEqual(
        (yield* Payments.history({ partnerId, companyId, payerRegistrationId: payer, limit: 10 })).data.length,
        3,
      )
      assert.strictEqual(
        (yield* Payments.history({ partnerId, payerRegistrationId: stranger, limit: 10 })).data.length,
        0,
      )
    }).pipe(Effect.provide(layer())),
  )

  it.effect("history never lists another partner's requests", () =>
    Effect.gen(function* () {
      yield* threeRequests
      assert.strictEqual((yield* Payments.history({ partnerId: otherPartnerId, limit: 10 })).data.length, 0)
    }).pipe(Effect.provide(layer())),
  )
})

describe("the payment history query", () => {
  it.effect("a range whose from is after its to is refused on from, and an equal from and to is a valid day", () =>
    Effect.gen(function* () {
      const error = failureOf(
        yield* Effect.exit(
          Payments.history({
            partnerId,
            limit: 10,
            from: "2026-03-02" as CalendarDate,
            to: "2026-03-01" as CalendarDate,
          }),
        ),
      )
      assert.strictEqual(error._tag, "ValidationFailed")
      if (error._tag === "ValidationFailed")
        assert.deepStrictEqual(
          error.issues.map((issue) => issue.field),
          ["from"],
        )
      const oneDay = yield* Payments.history({
        partnerId,
        limit: 10,
        from: "2026-03-01" as CalendarDate,
        to: "2026-03-01" as CalendarDate,
      })
      assert.deepStrictEqual(oneDay.data, [])
    }).pipe(Effect.provide(layer())),
  )
})

describe("cancelling a payment request", () => {
  it.effect("a Pending request becomes Cancelled; cancelling again changes nothing", () =>
    Effect.gen(function* () {
      const { paymentRequestId } = yield* pending
      yield* Payments.cancel(partnerId, paymentRequestId)
      yield* Payments.cancel(partnerId, paymentRequestId)
      const doc = yield* Payments.get(partnerId, paymentRequestId)
      assert.strictEqual(doc.status, "Cancelled")
      assert.deepStrictEqual(
        doc.statusHistory.map((s) => s.status),
        ["Pending", "Cancelled"],
      )
      assert.deepStrictEqual(
        (yield* notifications).map((n) => n.data.Status),
        ["Pending", "Cancelled"],
      )
    }).pipe(Effect.provide(layer())),
  )

  it.effect("after acceptance it is an IllegalTransition; another partner gets NotFound", () =>
    Effect.gen(function* () {
      const { paymentRequestId } = yield* accepted
      assert.strictEqual(
        failureOf(yield* Effect.exit(Payments.cancel(partnerId, paymentRequestId)))._tag,
        "IllegalTransition",
      )
      assert.strictEqual(
        failureOf(yield* Effect.exit(Payments.cancel(otherPartnerId, paymentRequestId)))._tag,
        "NotFound",
      )
    }).pipe(Effect.provide(layer())),
  )
})

describe("the sender's name of a transfer", () => {
  const customer = (personalData: Customer.RegisteredCustomer["personalData"]): Customer.RegisteredCustomer => ({
    _tag: "Registered",
    registrationId: payer,
    partnerId,
    phoneNumber: "+14155550123",
    kycStatus: personalData === null ? "NotStarted" : "Verified",
    kycReferenceId: null,
    personalData,
    linkSessions: [],
    bankAccounts: [],
    notificationPreferences: Customer.defaultNotificationPreferences,
    pushTokens: [],
    cardPaymentMethods: [],
  })
  const verified = {
    profileName: "",
    firstName: "Grace",
    lastName: "Hopper",
    birthDate: "1906-12-09" as CalendarDate,
    ssnLastFourDigits: "6789",
    emailAddress: "grace@example.com",
    phoneNumber: "+14155550123",
  }

  it("is the verified name, else the account's name, else Customer", () => {
    assert.strictEqual(Payments.senderNameOf(customer(verified), "Checking"), "Grace Hopper")
    assert.strictEqual(Payments.senderNameOf(customer(null), "Checking"), "Checking")
    assert.strictEqual(Payments.senderNameOf(customer(null), " "), "Customer")
  })

  it("is '[erased]' once the payer's name is erased (never '[erased] [erased]')", () => {
    const erased = { ...verified, firstName: "[erased]", lastName: "[erased]" }
    assert.strictEqual(Payments.senderNameOf(customer(erased), "[erased]"), "[erased]")
    assert.strictEqual(Payments.senderNameOf(customer(erased), "Checking"), "[erased]")
  })
})

describe("accepting a payment request", () => {
  it.effect("the payer's acceptance makes it Accepted and initiates its transfer with masked accounts", () =>
    Effect.gen(function* () {
      const { companyId, paymentRequestId, transferId } = yield* accepted
      const doc = yield* Payments.get(partnerId, paymentRequestId)
      assert.strictEqual(doc.status, "Accepted")
      assert.strictEqual(doc.accountNumberMasked, "****6789")
      const transfer = yield* Transfers.get({ _tag: "Partner", partnerId }, transferId)
      assert.strictEqual(transfer.status, "Pending")
      assert.strictEqual(transfer.companyId, companyId)
      assert.strictEqual(transfer.paymentRequestId, paymentRequestId)
      // The payer is named on the transfer: the data subject of its sender's name (sealed at rest for them).
      assert.strictEqual(transfer.payerRegistrationId, payer)
      assert.strictEqual(transfer.senderName, "Grace Hopper")
      assert.strictEqual(transfer.recipientName, "Acme Coffee")
      assert.strictEqual(transfer.senderAccountMasked, "****6789")
      // The company has no payout account yet: the transfer names none (the wire says so in words).
      assert.strictEqual(transfer.recipientAccountMasked, undefined)
      assert.strictEqual(Transfers.viewOf(transfer).recipientAccount, Transfers.noPayoutAccountYet)
      assert.strictEqual(transfer.description, "Invoice 42: cleaning")
      assert.deepStrictEqual(transfer.recipientAddress, {
        streetNumberAndName: "100 Main St",
        apartmentNumber: "Suite 200",
        city: "San Francisco",
        zipCode: "94105",
        state: "CA",
        country: "US",
      })
      assert.strictEqual(transfer.attachments.length, 1)
      assert.strictEqual(transfer.attachments[0]!.name, "invoice-42.pdf")
      assert.strictEqual(transfer.attachments[0]!.contentType, "application/pdf")
      const accept = (yield* notifications)[1]!
      assert.strictEqual(accept.partnerId, partnerId)
      assert.deepStrictEqual(Object.keys(accept.data).sort(), [
        "AccountNumberMasked",
        "Metadata",
        "PaymentRequestId",
        "Status",
        "Timestamp",
      ])
      assert.strictEqual(accept.data.AccountNumberMasked, "****6789")
    }).pipe(Effect.provide(layer())),
  )

  it.effect("the transfer of an invoice records the invoice, which reading the transfer shows", () =>
    Effect.gen(function* () {
      yield* march2026
      const companyId = yield* seedCompany(partnerId)
      yield* seedCustomer(partnerId, payer)
      const lineItems = [
        { description: "Cleaning", quantity: 2, unitAmount: { value: 62.75, currencyCode: "USD" as const } },
      ]
      const { paymentRequestId } = yield* Payments.create(
        createInput(companyId, { invoiceNumber: "INV-42", lineItems }),
      )
      yield* Payments.accept(acceptInput(paymentRequestId))
      const transferId = (yield* Payments.get(partnerId, paymentRequestId)).transferId as TransferId
      const transfer = yield* Transfers.get({ _tag: "Partner", partnerId }, transferId)
      const invoice = {
        invoiceNumber: "INV-42",
        lineItems: [
          { description: "Cleaning", quantity: 2, unitAmount: { minorUnits: 6_275, currency: "USD" as const } },
        ],
      }
      assert.deepStrictEqual(transfer.invoice, invoice)
      assert.deepStrictEqual(yield* Payments.invoiceOf(partnerId, transfer), invoice)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("the transfer of a request without an invoice records an empty one and shows none", () =>
    Effect.gen(function* () {
      const { transferId } = yield* accepted
      const transfer = yield* Transfers.get({ _tag: "Partner", partnerId }, transferId)
      assert.deepStrictEqual(transfer.invoice, {})
      assert.isUndefined(yield* Payments.invoiceOf(partnerId, transfer))
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a transfer recorded without its invoice (before transfers recorded it) shows its request's", () =>
    Effect.gen(function* () {
      yield* march2026
      const companyId = yield* seedCompany(partnerId)
      yield* seedCustomer(partnerId, payer)
      const { paymentRequestId } = yield* Payments.create(createInput(companyId, { invoiceNumber: "INV-7" }))
      assert.deepStrictEqual(yield* Payments.invoiceOf(partnerId, { paymentRequestId }), { invoiceNumber: "INV-7" })
      assert.isUndefined(yield* Payments.invoiceOf(otherPartnerId, { paymentRequestId }))
    }).pipe(Effect.provide(layer())),
  )

  it.effect("repeating the acceptance changes nothing and starts no second transfer", () =>
    Effect.gen(function* () {
      const { paymentRequestId } = yield* accepted
      const again = yield* Payments.accept(acceptInput(paymentRequestId))
      assert.strictEqual(again.status, "Accepted")
      const store = yield* ReadModelStore
      const transfers = yield* store.find(TransfersProjection.collection, { partnerId, limit: 10 })
      assert.strictEqual(transfers.items.length, 1)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("someone other than the payer, or another partner's customer, gets NotFound", () =>
    Effect.gen(function* () {
      const { paymentRequestId } = yield* pending
      yield* seedCustomer(partnerId, stranger)
      const byStranger = yield* Effect.exit(
        Payments.accept(acceptInput(paymentRequestId, { registrationId: stranger })),
      )
      assert.strictEqual(failureOf(byStranger)._tag, "NotFound")
      const otherTenant = yield* Effect.exit(
        Payments.accept(acceptInput(paymentRequestId, { partnerId: otherPartnerId })),
      )
      assert.strictEqual(failureOf(otherTenant)._tag, "NotFound")
    }).pipe(Effect.provide(layer())),
  )

  it.effect("an account not linked to the payer is refused with BANK_ACCOUNT_NOT_LINKED", () =>
    Effect.gen(function* () {
      const { paymentRequestId } = yield* pending
      const error = failureOf(
        yield* Effect.exit(Payments.accept(acceptInput(paymentRequestId, { bankAccountId: unlinked }))),
      )
      assert.deepStrictEqual(
        [error._tag, error._tag === "RuleViolated" ? error.code : ""],
        ["RuleViolated", "BANK_ACCOUNT_NOT_LINKED"],
      )
      assert.strictEqual((yield* Payments.get(partnerId, paymentRequestId)).status, "Pending")
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a payer whose identity is not verified cannot accept (CUSTOMER_NOT_VERIFIED); no transfer starts", () =>
    Effect.gen(function* () {
      yield* march2026
      const companyId = yield* seedCompany(partnerId)
      // Linked in the session of a verification that is still Pending.
      yield* Fixtures.registerCustomer(partnerId, payer)
      yield* Fixtures.linkBankAccount(payer, checking)
      const { paymentRequestId } = yield* Payments.create(createInput(companyId))
      const error = failureOf(yield* Effect.exit(Payments.accept(acceptInput(paymentRequestId))))
      assert.deepStrictEqual(
        [error._tag, error._tag === "RuleViolated" ? error.code : ""],
        ["RuleViolated", "CUSTOMER_NOT_VERIFIED"],
      )
      assert.strictEqual((yield* Payments.get(partnerId, paymentRequestId)).status, "Pending")
      const store = yield* ReadModelStore
      const transfers = yield* store.find(TransfersProjection.collection, { partnerId, limit: 10 })
      assert.deepStrictEqual(transfers.items, [])
    }).pipe(Effect.provide(layer())),
  )

  it.effect("accepting with acceptDebitAuth grants the payer's debit authorization up to the request's ceiling", () =>
    Effect.gen(function* () {
      yield* march2026
      const companyId = yield* seedCompany(partnerId)
      yield* seedCustomer(partnerId, payer)
      const offer = (value: number) =>
        Payments.create(
          createInput(companyId, {
            enableDebitAuth: true,
            debitAuthLimit: { value, currencyCode: "USD" },
            attachmentUrl: undefined,
          }),
        )
      const first = yield* offer(300)
      yield* Payments.accept(acceptInput(first.paymentRequestId, { acceptDebitAuth: true }))
      const granted = yield* DebitAuths.forUser(partnerId, payer, companyId)
      assert.deepInclude(granted, { enabled: true, status: "Active", limit: { minorUnits: 30_000, currency: "USD" } })
      // A later acceptance of another offer sets its ceiling on the same authorization.
      const second = yield* offer(500)
      yield* Payments.accept(acceptInput(second.paymentRequestId, { acceptDebitAuth: true }))
      const updated = yield* DebitAuths.forUser(partnerId, payer, companyId)
      assert.deepStrictEqual(
        [updated.debitAuthId, updated.limit],
        [granted.debitAuthId, { minorUnits: 50_000, currency: "USD" }],
      )
    }).pipe(Effect.provide(layer())),
  )

  it.effect("accepting without acceptDebitAuth grants no debit authorization", () =>
    Effect.gen(function* () {
      const { companyId, paymentRequestId } = yield* pending
      yield* Payments.accept(acceptInput(paymentRequestId))
      const none = yield* Effect.exit(DebitAuths.forUser(partnerId, payer, companyId))
      assert.deepStrictEqual(failureOf(none), new NotFound({ entity: "DebitAuth" }))
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a cancelled request cannot be accepted", () =>
    Effect.gen(function* () {
      const { paymentRequestId } = yield* pending
      yield* Payments.cancel(partnerId, paymentRequestId)
      const error = failureOf(yield* Effect.exit(Payments.accept(acceptInput(paymentRequestId))))
      assert.strictEqual(error._tag, "IllegalTransition")
    }).pipe(Effect.provide(layer())),
  )
})

describe("settlement", () => {
  it.effect("a settled transfer makes the request Paid; a failed one makes it Failed; each is notified", () =>
    Effect.gen(function* () {
      const { paymentRequestId, transferId } = yield* paid
      assert.strictEqual((yield* Payments.get(partnerId, paymentRequestId)).status, "Paid")
      assert.strictEqual((yield* Transfers.get({ _tag: "Partner", partnerId }, transferId)).status, "Settled")
      assert.deepStrictEqual(
        (yield* notifications).map((n) => n.data.Status),
        ["Pending", "Accepted", "Paid"],
      )
      // settling again changes nothing
      yield* Payments.settleTransfer(transferId)
      assert.strictEqual((yield* notifications).length, 3)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a failed transfer makes the request Failed with its return code", () =>
    Effect.gen(function* () {
      const { paymentRequestId, transferId } = yield* accepted
      yield* Payments.failTransfer(transferId, "R01", "insufficient funds")
      const doc = yield* Payments.get(partnerId, paymentRequestId)
      assert.deepStrictEqual([doc.status, doc.returnCode], ["Failed", "R01"])
      assert.deepStrictEqual(
        (yield* notifications).map((n) => n.data.Status),
        ["Pending", "Accepted", "Failed"],
      )
    }).pipe(Effect.provide(layer())),
  )
})

describe("refunds", () => {
  it.effect("a partial refund keeps the request Paid; refunding the rest makes it Refunded", () =>
    Effect.gen(function* () {
      const { paymentRequestId, transferId } = yield* paid
      const first = yield* Transfers.refund({ partnerId, transferId, amount: { value: 25.5, currencyCode: "USD" } })
      assert.deepStrictEqual([first.status, first.refundedAmount.minorUnits], ["Pending", 0])
      yield* completeRefund(transferId, first.refundId)
      assert.strictEqual((yield* Payments.get(partnerId, paymentRequestId)).status, "Paid")
      const rest = yield* Transfers.refund({ partnerId, transferId })
      assert.deepStrictEqual(rest.amount, { minorUnits: 10000, currency: "USD" })
      assert.isFalse((yield* Transfers.get({ _tag: "Partner", partnerId }, transferId)).isRefunded)
      yield* completeRefund(transferId, rest.refundId)
      const doc = yield* Payments.get(partnerId, paymentRequestId)
      assert.deepStrictEqual([doc.status, doc.refundedAmount.minorUnits], ["Refunded", 12550])
      assert.isTrue((yield* Transfers.get({ _tag: "Partner", partnerId }, transferId)).isRefunded)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("refunding more than was paid is a RuleViolated; before settlement an IllegalTransition", () =>
    Effect.gen(function* () {
      const { transferId } = yield* accepted
      const early = failureOf(yield* Effect.exit(Transfers.refund({ partnerId, transferId })))
      assert.strictEqual(early._tag, "IllegalTransition")
      yield* Payments.settleTransfer(transferId)
      const over = failureOf(
        yield* Effect.exit(Transfers.refund({ partnerId, transferId, amount: { value: 200, currencyCode: "USD" } })),
      )
      assert.strictEqual(over._tag, "RuleViolated")
      const other = failureOf(yield* Effect.exit(Transfers.refund({ partnerId: otherPartnerId, transferId })))
      assert.strictEqual(other._tag, "NotFound")
    }).pipe(Effect.provide(layer())),
  )
})

describe("reading transfers", () => {
  it.effect("the payer may read their transfer; another customer and another partner get NotFound", () =>
    Effect.gen(function* () {
      const { transferId } = yield* accepted
      const mine = yield* Transfers.get({ _tag: "Customer", partnerId, registrationId: payer }, transferId)
      assert.strictEqual(mine.transferId, transferId)
      const theirs = yield* Effect.exit(
        Transfers.get({ _tag: "Customer", partnerId, registrationId: stranger }, transferId),
      )
      assert.strictEqual(failureOf(theirs)._tag, "NotFound")
      const otherTenant = yield* Effect.exit(Transfers.get({ _tag: "Partner", partnerId: otherPartnerId }, transferId))
      assert.strictEqual(failureOf(otherTenant)._tag, "NotFound")
    }).pipe(Effect.provide(layer())),
  )
})

/** The refund's credit settles (the money-movement poller's outcome). */
const completeRefund = (transferId: TransferId, refundId: string) =>
  MoneyMovements.recordOutcomes([
    { movement: { _tag: "Credit", transferId, refundId: refundId as RefundId }, outcome: { _tag: "Settled" } },
  ])

describe("returns and refunds moving money", () => {
  it.effect("a return after settlement makes the request Returned, with the code and its reason everywhere", () =>
    Effect.gen(function* () {
      const { paymentRequestId, transferId } = yield* paid
      yield* MoneyMovements.recordOutcomes([
        { movement: { _tag: "Debit", transferId }, outcome: { _tag: "Returned", returnCode: "R10" } },
      ])
      const reason = "Customer advises originator is not known and/or not authorized to debit the account"
      const request = yield* Payments.get(partnerId, paymentRequestId)
      assert.deepStrictEqual([request.status, request.returnCode, request.returnReason], ["Returned", "R10", reason])
      const transfer = Transfers.viewOf(yield* Transfers.get({ _tag: "Partner", partnerId }, transferId))
      assert.deepStrictEqual([transfer.status, transfer.returnCode, transfer.returnReason], ["Returned", "R10", reason])
      const last = (yield* notifications).at(-1)?.data
      assert.deepStrictEqual([last?.Status, last?.ReturnCode, last?.ReturnReason], ["Returned", "R10", reason])
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a failure before settlement carries its code and reason on the request and the transfer", () =>
    Effect.gen(function* () {
      const { paymentRequestId, transferId } = yield* accepted
      yield* MoneyMovements.recordOutcomes([
        { movement: { _tag: "Debit", transferId }, outcome: { _tag: "Failed", returnCode: "R03" } },
      ])
      const request = yield* Payments.get(partnerId, paymentRequestId)
      assert.deepStrictEqual(
        [request.status, request.returnCode, request.returnReason],
        ["Failed", "R03", "No account / unable to locate account"],
      )
      const data = (yield* notifications).at(-1)?.data
      assert.deepStrictEqual([data?.ReturnCode, data?.ReturnReason], ["R03", "No account / unable to locate account"])
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a paid request without a return shows no return code", () =>
    Effect.gen(function* () {
      const { paymentRequestId, transferId } = yield* paid
      const request = yield* Payments.get(partnerId, paymentRequestId)
      assert.isUndefined(request.returnCode)
      assert.isUndefined(Transfers.viewOf(yield* Transfers.get({ _tag: "Partner", partnerId }, transferId)).returnCode)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a refund announces REFUND_STATUS_CHANGED Pending, then Completed", () =>
    Effect.gen(function* () {
      const { transferId } = yield* paid
      const refund = yield* Transfers.refund({ partnerId, transferId, amount: { value: 25.5, currencyCode: "USD" } })
      yield* completeRefund(transferId, refund.refundId)
      const outbox = yield* MemoryOutbox
      const sent = outbox.recorded.filter((n) => n.eventType === "REFUND_STATUS_CHANGED").map((n) => n.data)
      assert.deepStrictEqual(
        sent.map((data) => [data.RefundId, data.TransferId, data.Amount, data.Status]),
        [
          [refund.refundId, transferId, { value: 25.5, currencyCode: "USD" }, "Pending"],
          [refund.refundId, transferId, { value: 25.5, currencyCode: "USD" }, "Completed"],
        ],
      )
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a refund's credit that comes back announces REFUND_STATUS_CHANGED Failed, with its code and reason", () =>
    Effect.gen(function* () {
      const { transferId } = yield* paid
      const refund = yield* Transfers.refund({ partnerId, transferId })
      yield* MoneyMovements.recordOutcomes([
        {
          movement: { _tag: "Credit", transferId, refundId: refund.refundId as RefundId },
          outcome: { _tag: "Failed", returnCode: "R03" },
        },
      ])
      const outbox = yield* MemoryOutbox
      const failed = outbox.recorded.filter((n) => n.eventType === "REFUND_STATUS_CHANGED").at(-1)?.data
      assert.deepStrictEqual(
        [failed?.Status, failed?.ReturnCode, failed?.ReturnReason, failed?.FailureReason],
        ["Failed", "R03", "No account / unable to locate account", undefined],
      )
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a returned transfer cannot be refunded", () =>
    Effect.gen(function* () {
      const { transferId } = yield* paid
      yield* MoneyMovements.recordOutcomes([
        { movement: { _tag: "Debit", transferId }, outcome: { _tag: "Returned", returnCode: "R10" } },
      ])
      const refused = failureOf(yield* Effect.exit(Transfers.refund({ partnerId, transferId })))
      assert.strictEqual(refused._tag, "IllegalTransition")
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a failed refund frees its amount for another refund", () =>
    Effect.gen(function* () {
      const { transferId } = yield* paid
      const first = yield* Transfers.refund({ partnerId, transferId })
      const over = failureOf(
        yield* Effect.exit(Transfers.refund({ partnerId, transferId, amount: { value: 1, currencyCode: "USD" } })),
      )
      assert.strictEqual(over._tag, "RuleViolated")
      yield* MoneyMovements.recordOutcomes([
        {
          movement: { _tag: "Credit", transferId, refundId: first.refundId },
          outcome: { _tag: "Failed", returnCode: "R03" },
        },
      ])
      const again = yield* Transfers.refund({ partnerId, transferId })
      assert.deepStrictEqual([again.status, again.amount.minorUnits], ["Pending", 12550])
    }).pipe(Effect.provide(layer())),
  )

  it.effect("concurrent refunds never exceed the amount: the transfer's stream version refuses the later one", () =>
    Effect.gen(function* () {
      const { transferId } = yield* paid
      const attempts = yield* Effect.forEach(
        [1, 2, 3, 4],
        () => Effect.exit(Transfers.refund({ partnerId, transferId, amount: { value: 50, currencyCode: "USD" } })),
        { concurrency: "unbounded" },
      )
      const accepted = attempts.filter(Exit.isSuccess)
      assert.strictEqual(accepted.length, 2)
      const doc = yield* Transfers.get({ _tag: "Partner", partnerId }, transferId)
      const held = (doc.refunds ?? []).reduce((sum, refund) => sum + refund.amount.minorUnits, 0)
      assert.strictEqual(held, 10000)
    }).pipe(Effect.provide(layer())),
  )
})

describe("the transaction report", () => {
  it.effect("totals settled transfers of the window per currency, net of refunds", () =>
    Effect.gen(function* () {
      const { transferId, companyId } = yield* paid
      const refund = yield* Transfers.refund({ partnerId, transferId, amount: { value: 10, currencyCode: "USD" } })
      yield* completeRefund(transferId, refund.refundId)
      // a second request, accepted but never settled, is left out
      const { paymentRequestId } = yield* Payments.create(createInput(companyId))
      yield* Payments.accept(acceptInput(paymentRequestId))
      const report = yield* Transfers.report({
        partnerId,
        from: "2026-03-01" as CalendarDate,
        to: "2026-03-31" as CalendarDate,
        limit: 20,
      })
      assert.deepStrictEqual(report.currencyTotals, [
        {
          currencyCode: "USD",
          count: 1,
          totalAmount: { minorUnits: 12550, currency: "USD" },
          refundedAmount: { minorUnits: 1000, currency: "USD" },
          netAmount: { minorUnits: 11550, currency: "USD" },
        },
      ])
      assert.deepStrictEqual(
        report.items.map((i) => i.transferId),
        [transferId],
      )
      const empty = yield* Transfers.report({
        partnerId,
        from: "2026-04-01" as CalendarDate,
        to: "2026-04-30" as CalendarDate,
        limit: 20,
      })
      assert.deepStrictEqual(empty.currencyTotals, [])
      const reversed = yield* Effect.exit(
        Transfers.report({
          partnerId,
          from: "2026-04-01" as CalendarDate,
          to: "2026-03-01" as CalendarDate,
          limit: 20,
        }),
      )
      assert.strictEqual(failureOf(reversed)._tag, "ValidationFailed")
    }).pipe(Effect.provide(layer())),
  )
})

describe("reimbursement", () => {
  it.effect("the payer of a settled transfer gets a sandbox signing URL; a repeat returns the same URL", () =>
    Effect.gen(function* () {
      const { transferId } = yield* paid
      const input = { partnerId, registrationId: payer, transferId, providerId }
      const { signingUrl } = yield* Transfers.createReimbursement(input)
      assert.strictEqual(signingUrl, `https://sandbox.partnerpay.dev/sign/rb-${transferId}-${providerId}`)
      assert.strictEqual((yield* Transfers.createReimbursement(input)).signingUrl, signingUrl)
      assert.isTrue((yield* Transfers.get({ _tag: "Partner", partnerId }, transferId)).appliedForReimbursement)
      // once applied, the transfer can no longer be refunded
      assert.strictEqual(
        failureOf(yield* Effect.exit(Transfers.refund({ partnerId, transferId })))._tag,
        "IllegalTransition",
      )
    }).pipe(Effect.provide(layer())),
  )

  it.effect("completes once the payer signed the envelope (Completed): the transfer reads isReimbursed", () =>
    Effect.gen(function* () {
      const { transferId } = yield* paid
      yield* Transfers.createReimbursement({ partnerId, registrationId: payer, transferId, providerId })
      const read = () => Transfers.get({ _tag: "Partner", partnerId }, transferId)
      // The sandbox payer signs an hour after the envelope was sent: until then it is Sent.
      assert.deepStrictEqual(yield* Transfers.checkReimbursement(transferId), { reimbursed: false })
      assert.isFalse((yield* read()).isReimbursed)
      yield* TestClock.adjust("1 hour")
      assert.deepStrictEqual(yield* Transfers.checkReimbursement(transferId), { reimbursed: true })
      assert.deepInclude(yield* read(), { appliedForReimbursement: true, isReimbursed: true })
      // Nothing left to ask: a repeat asks nothing and changes nothing.
      assert.deepStrictEqual(yield* Transfers.checkReimbursement(transferId), { reimbursed: false })
      assert.isTrue((yield* read()).isReimbursed)
    }).pipe(
      Effect.provide(Transfers.eSignatureSandboxWith({ completeAfterMillis: 3_600_000 })),
      Effect.provide(layer()),
    ),
  )

  it.effect("a declined or voided envelope leaves the reimbursement applied, not reimbursed", () =>
    Effect.gen(function* () {
      const { transferId } = yield* paid
      yield* Transfers.createReimbursement({ partnerId, registrationId: payer, transferId, providerId })
      for (const status of ["Sent", "Declined", "Voided"] as const)
        assert.deepStrictEqual(yield* Transfers.recordEnvelopeStatus(transferId, status), { reimbursed: false })
      assert.deepInclude(yield* Transfers.get({ _tag: "Partner", partnerId }, transferId), {
        appliedForReimbursement: true,
        isReimbursed: false,
      })
    }).pipe(Effect.provide(layer())),
  )

  it.effect("before settlement it is an IllegalTransition; another customer gets NotFound", () =>
    Effect.gen(function* () {
      const { transferId } = yield* accepted
      const early = yield* Effect.exit(
        Transfers.createReimbursement({ partnerId, registrationId: payer, transferId, providerId }),
      )
      assert.strictEqual(failureOf(early)._tag, "IllegalTransition")
      const stranger_ = yield* Effect.exit(
        Transfers.createReimbursement({ partnerId, registrationId: stranger, transferId, providerId }),
      )
      assert.strictEqual(failureOf(stranger_)._tag, "NotFound")
    }).pipe(Effect.provide(layer())),
  )
})

describe("read models and the log", () => {
  type Step = "create" | "accept" | "cancel" | "settle" | "fail" | "refund"
  const steps = fc.array(fc.constantFrom<Step>("create", "accept", "cancel", "settle", "fail", "refund"), {
    maxLength: 12,
  })

  it("rebuilding payment_requests and transfers from the log equals the live read models, whatever happened", async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (history) => {
        const program = Effect.gen(function* () {
          yield* march2026
          const companyId = yield* seedCompany(partnerId)
          yield* seedCustomer(partnerId, payer)
          const requests: Array<string> = []
          for (const step of history) {
            const last = requests[requests.length - 1]
            const doc = last === undefined ? undefined : yield* Payments.get(partnerId, last)
            const transferId = doc?.transferId as TransferId | undefined
            const attempt = ((): Effect.Effect<unknown, unknown, Payments.Requirements> => {
              switch (step) {
                case "create":
                  return Effect.map(Payments.create(createInput(companyId)), (r) => {
                    requests.push(r.paymentRequestId)
                  })
                case "accept":
                  return last === undefined ? Effect.void : Payments.accept(acceptInput(last))
                case "cancel":
                  return last === undefined ? Effect.void : Payments.cancel(partnerId, last)
                case "settle":
                  return transferId === undefined ? Effect.void : Payments.settleTransfer(transferId)
                case "fail":
                  return transferId === undefined ? Effect.void : Payments.failTransfer(transferId, "R01")
                case "refund":
                  return transferId === undefined
                    ? Effect.void
                    : Transfers.refund({ partnerId, transferId, amount: { value: 50, currencyCode: "USD" } })
              }
            })()
            yield* Effect.exit(attempt)
            yield* TestClock.adjust("1 hour")
          }
          const store = yield* ReadModelStore
          const snapshot = Effect.gen(function* () {
            const requestsPage = yield* store.find(PaymentRequestsProjection.collection, { partnerId, limit: 100 })
            const transfersPage = yield* store.find(TransfersProjection.collection, { partnerId, limit: 100 })
            return [requestsPage.items, transfersPage.items]
          })
          const live = yield* snapshot
          yield* EventPipeline.rebuild([PaymentRequestsProjection.projection, TransfersProjection.projection])
          const rebuilt = yield* snapshot
          assert.deepStrictEqual(rebuilt, live)
          // every status in every request's history was notified exactly once
          const outbox = yield* notifications
          const historyCount = (live[0] ?? []).reduce(
            (n, item) => n + (item.data as { statusHistory: ReadonlyArray<unknown> }).statusHistory.length,
            0,
          )
          assert.strictEqual(outbox.length, historyCount)
        }).pipe(Effect.provide(layer()))
        await Effect.runPromise(program.pipe(Effect.provide(TestClock.layer())))
      }),
      seeded({ numRuns: 25 }),
    )
  })
})

// ---------------------------------------------------------------------------
// The money-movement port: origination and outcomes (MoneyMovements)

/** A scripted provider: what it was asked, and its answers per movement id. */
const scriptedProvider = () => {
  const asked: Array<{ readonly operation: string; readonly key: string }> = []
  const refusals = new Map<string, MoneyMovement.MovementRefused | ProviderUnavailable>()
  const outcomes = new Map<string, MoneyMovement.MovementOutcome>()
  /** Movement ids whose status question finds the rail unavailable. */
  const statusDown = new Set<string>()
  const originate = (kind: MoneyMovement.MovementKind) => (request: { readonly idempotencyKey: string }) => {
    asked.push({ operation: kind, key: request.idempotencyKey })
    const refusal = refusals.get(request.idempotencyKey)
    return refusal === undefined
      ? Effect.succeed({ kind, id: request.idempotencyKey, providerReference: `ref-${request.idempotencyKey}` })
      : Effect.fail(refusal)
  }
  const service = MoneyMovement.MoneyMovement.of({
    originateDebit: originate("Debit"),
    originateCredit: originate("Credit"),
    originatePayout: originate("Payout"),
    status: (reference) => {
      asked.push({ operation: "status", key: reference.id })
      return statusDown.has(reference.id)
        ? Effect.fail(new ProviderUnavailable({ provider: "bank", reason: "Dwolla answered 503" }))
        : Effect.succeed(outcomes.get(reference.id) ?? { status: "Pending" })
    },
  })
  return { asked, refusals, outcomes, statusDown, layer: Layer.succeed(MoneyMovement.MoneyMovement, service) }
}

const transferDoc = (transferId: TransferId) => Transfers.get({ _tag: "Partner", partnerId }, transferId)

describe("money movement: origination", () => {
  it.effect("a pending transfer is originated as a debit keyed by its id, and its reference recorded once", () => {
    const provider = scriptedProvider()
    return Effect.gen(function* () {
      const { transferId } = yield* accepted
      const results = yield* MoneyMovements.originate([{ _tag: "Debit", transferId }])
      assert.deepStrictEqual(
        results.map((result) => result._tag),
        ["Recorded"],
      )
      assert.deepStrictEqual(provider.asked, [{ operation: "Debit", key: transferId }])
      assert.strictEqual((yield* transferDoc(transferId)).providerReference, `ref-${transferId}`)
      // Again (another instance, or a retry): the transfer is originated already, the provider is not asked.
      yield* MoneyMovements.originate([{ _tag: "Debit", transferId }])
      assert.strictEqual(provider.asked.length, 1)
    }).pipe(Effect.provide(Layer.merge(layer(), provider.layer)))
  })

  it.effect("a refusal with an ACH return code fails the transfer with it", () => {
    const provider = scriptedProvider()
    return Effect.gen(function* () {
      const { paymentRequestId, transferId } = yield* accepted
      provider.refusals.set(
        transferId,
        new MoneyMovement.MovementRefused({ code: "R02", reason: "funding source removed" }),
      )
      yield* MoneyMovements.originate([{ _tag: "Debit", transferId }])
      const request = yield* Payments.get(partnerId, paymentRequestId)
      assert.deepStrictEqual(
        [request.status, request.returnCode, request.returnReason],
        ["Failed", "R02", "Account closed"],
      )
    }).pipe(Effect.provide(Layer.merge(layer(), provider.layer)))
  })

  it.effect("a refusal without an ACH code fails the transfer at once: no return code, the rail's words", () => {
    const provider = scriptedProvider()
    return Effect.gen(function* () {
      const { paymentRequestId, transferId } = yield* accepted
      provider.refusals.set(
        transferId,
        new MoneyMovement.MovementRefused({ code: "ValidationError", reason: "Receiver exceeds weekly limit." }),
      )
      yield* MoneyMovements.originate([{ _tag: "Debit", transferId }])
      const request = yield* Payments.get(partnerId, paymentRequestId)
      assert.deepStrictEqual(
        [request.status, request.returnCode, request.failureReason, request.returnReason],
        ["Failed", null, "Receiver exceeds weekly limit.", undefined],
      )
      const transfer = Transfers.viewOf(yield* transferDoc(transferId))
      assert.deepInclude(transfer, {
        status: "Failed",
        returnCode: null,
        failureReason: "Receiver exceeds weekly limit.",
      })
      const outbox = yield* MemoryOutbox
      const hook = outbox.recorded.find(
        (n) => n.eventType === "PAYMENT_REQUEST_STATUS_CHANGED" && n.data.Status === "Failed",
      )
      assert.deepInclude(hook?.data, { ReturnCode: null, FailureReason: "Receiver exceeds weekly limit." })
      // Never asked again: the transfer ended.
      yield* MoneyMovements.originate([{ _tag: "Debit", transferId }])
      assert.strictEqual(provider.asked.length, 1)
    }).pipe(Effect.provide(Layer.merge(layer(), provider.layer)))
  })

  it.effect("a debit past the payer's rolling limit at origination fails with that reason, the rail not asked", () => {
    const provider = scriptedProvider()
    const limit = { amount: Money.make(10_000, "USD"), windowMillis: 7 * 86_400_000 }
    return Effect.gen(function* () {
      // Accepted while no limit applied (an automatic collection is not accepted by the payer).
      const { paymentRequestId, transferId } = yield* accepted
      yield* MoneyMovements.originate([{ _tag: "Debit", transferId }]).pipe(
        Effect.provideService(RailCapabilities.CurrentPayerLimit, limit),
      )
      assert.deepStrictEqual(provider.asked, [])
      const request = yield* Payments.get(partnerId, paymentRequestId)
      assert.deepStrictEqual([request.status, request.returnCode], ["Failed", null])
      assert.include(request.failureReason, "at most 100.00 USD over 7 days")
    }).pipe(Effect.provide(Layer.merge(layer(), provider.layer)))
  })

  it.effect(
    "Accept past the payer's rolling limit is refused with PAYER_LIMIT_EXCEEDED; the request stays Pending",
    () =>
      Effect.gen(function* () {
        const { paymentRequestId } = yield* pending
        const refused = yield* Effect.flip(
          Payments.accept(acceptInput(paymentRequestId)).pipe(
            Effect.provideService(RailCapabilities.CurrentPayerLimit, {
              amount: Money.make(12_549, "USD"),
              windowMillis: 7 * 86_400_000,
            }),
          ),
        )
        assert.deepInclude(refused, { _tag: "RuleViolated", code: "PAYER_LIMIT_EXCEEDED" })
        assert.strictEqual((yield* Payments.get(partnerId, paymentRequestId)).status, "Pending")
      }).pipe(Effect.provide(layer())),
  )

  /** A payer limit of 100.00 USD a week, and the two automatic collections with a ceiling of 500.00 USD. */
  const payerLimit = { amount: Money.make(10_000, "USD"), windowMillis: 7 * 86_400_000 }
  const automaticFlags: ReadonlyArray<Partial<Payments.CreateInput>> = [
    { enableAutoPay: true, autoPayLimit: { value: 500, currencyCode: "USD" } },
    { enableDebitAuth: true, debitAuthLimit: { value: 500, currencyCode: "USD" } },
  ]

  it.effect(
    "a request created with autopay or a debit authorization whose amount alone exceeds the payer's limit is refused with PAYER_LIMIT_EXCEEDED",
    () =>
      Effect.gen(function* () {
        const { companyId } = yield* pending
        for (const flags of automaticFlags) {
          const refused = yield* Effect.flip(
            Payments.create(createInput(companyId, flags)).pipe(
              Effect.provideService(RailCapabilities.CurrentPayerLimit, payerLimit),
            ),
          )
          assert.deepInclude(refused, { _tag: "RuleViolated", code: "PAYER_LIMIT_EXCEEDED" })
        }
        // Without autopay, or above its ceiling, the payer accepts it first: checked at Accept instead.
        const acceptedFirst: ReadonlyArray<Partial<Payments.CreateInput>> = [
          {},
          { enableAutoPay: true, autoPayLimit: { value: 100, currencyCode: "USD" } },
        ]
        for (const flags of acceptedFirst)
          yield* Payments.create(createInput(companyId, flags)).pipe(
            Effect.provideService(RailCapabilities.CurrentPayerLimit, payerLimit),
          )
      }).pipe(Effect.provide(layer())),
  )

  it.effect(
    "a request with autopay or a debit authorization past the payer's limit but with a bad field is refused naming the field, not PAYER_LIMIT_EXCEEDED",
    () =>
      Effect.gen(function* () {
        // Given a payer limit the amount alone exceeds
        const { companyId } = yield* pending
        for (const flags of automaticFlags) {
          // When the request also has a blank description and a due date before its creation
          const refused = yield* Effect.flip(
            Payments.create(
              createInput(companyId, { ...flags, description: " ", dueDate: "2026-02-01" as CalendarDate }),
            ).pipe(Effect.provideService(RailCapabilities.CurrentPayerLimit, payerLimit)),
          )
          // Then it is refused as invalid, naming both fields
          assert.instanceOf(refused, ValidationFailed)
          assert.sameMembers(
            (refused as ValidationFailed).issues.map((issue) => issue.field),
            ["description", "dueDate"],
          )
        }
      }).pipe(Effect.provide(layer())),
  )

  it.effect(
    "a request with autopay due today is refused when the payer's debits of the window would pass the limit; due later, created",
    () =>
      Effect.gen(function* () {
        const { companyId } = yield* accepted
        const limit = { amount: Money.make(20_000, "USD"), windowMillis: 7 * 86_400_000 }
        const refused = yield* Effect.flip(
          Payments.create(
            createInput(companyId, {
              enableAutoPay: true,
              autoPayLimit: { value: 500, currencyCode: "USD" },
              dueDate: "2026-03-01" as CalendarDate,
            }),
          ).pipe(Effect.provideService(RailCapabilities.CurrentPayerLimit, limit)),
        )
        assert.deepInclude(refused, { _tag: "RuleViolated", code: "PAYER_LIMIT_EXCEEDED" })
        // Due in two weeks: the window will have moved; checked again when collected.
        const later = yield* Payments.create(
          createInput(companyId, { enableAutoPay: true, autoPayLimit: { value: 500, currencyCode: "USD" } }),
        ).pipe(Effect.provideService(RailCapabilities.CurrentPayerLimit, limit))
        assert.strictEqual(later.status, "Pending")
      }).pipe(Effect.provide(layer())),
  )

  it.effect("an unreachable provider defers the transfer with backoff: not asked again before its next attempt", () => {
    const provider = scriptedProvider()
    return Effect.gen(function* () {
      const { transferId } = yield* accepted
      provider.refusals.set(transferId, new ProviderUnavailable({ provider: "bank", reason: "timeout" }))
      yield* MoneyMovements.originate([{ _tag: "Debit", transferId }])
      const deferred = yield* transferDoc(transferId)
      assert.deepStrictEqual([deferred.status, deferred.providerReference], ["Pending", undefined])
      assert.isString(deferred.originationRetryAt)
      // At once, and 14 seconds later (under half the 30 s base): not asked.
      yield* MoneyMovements.originate([{ _tag: "Debit", transferId }])
      yield* TestClock.adjust("14 seconds")
      yield* MoneyMovements.originate([{ _tag: "Debit", transferId }])
      assert.strictEqual(provider.asked.length, 1)
      // After the first wait (at most the 30 s base): asked again, and originated once the rail answers.
      yield* TestClock.adjust("16 seconds")
      provider.refusals.delete(transferId)
      yield* MoneyMovements.originate([{ _tag: "Debit", transferId }])
      assert.strictEqual(provider.asked.length, 2)
      assert.strictEqual((yield* transferDoc(transferId)).providerReference, `ref-${transferId}`)
    }).pipe(Effect.provide(Layer.merge(layer(), provider.layer)))
  })

  it.effect("after 72 hours of outage the transfer fails, saying so", () => {
    const provider = scriptedProvider()
    return Effect.gen(function* () {
      const { paymentRequestId, transferId } = yield* accepted
      provider.refusals.set(transferId, new ProviderUnavailable({ provider: "bank", reason: "Dwolla answered 503" }))
      let asked = 0
      while ((yield* transferDoc(transferId)).status === "Pending") {
        yield* MoneyMovements.originate([{ _tag: "Debit", transferId }])
        yield* TestClock.adjust("1 hour")
        asked += 1
        assert.isBelow(asked, 80)
      }
      const request = yield* Payments.get(partnerId, paymentRequestId)
      assert.deepStrictEqual([request.status, request.returnCode], ["Failed", null])
      assert.include(request.failureReason, "unavailable for 72 hours")
      // Hourly at most once the backoff reached its cap: about 72 attempts, not one per poll.
      assert.isAtMost(provider.asked.length, 80)
    }).pipe(Effect.provide(Layer.merge(layer(), provider.layer)))
  })

  it.effect("a pending refund is originated as a credit keyed by the refund id", () => {
    const provider = scriptedProvider()
    return Effect.gen(function* () {
      const { transferId } = yield* paid
      const refund = yield* Transfers.refund({ partnerId, transferId, amount: { value: 5, currencyCode: "USD" } })
      yield* MoneyMovements.originate([{ _tag: "Credit", transferId, refundId: refund.refundId }])
      assert.deepStrictEqual(provider.asked, [{ operation: "Credit", key: refund.refundId }])
      const doc = yield* transferDoc(transferId)
      assert.strictEqual(doc.refunds?.[0]?.providerReference, `ref-${refund.refundId}`)
    }).pipe(Effect.provide(Layer.merge(layer(), provider.layer)))
  })
})

/** The originated debit as the outcome poller reads it (with its status deferral, as the worker passes it). */
const originatedDebit = (transferId: TransferId) =>
  Effect.map(
    transferDoc(transferId),
    (doc): MoneyMovements.Originated => ({
      movement: { _tag: "Debit", transferId },
      providerReference: doc.providerReference ?? "",
      ...(doc.statusRetryAt === undefined ? {} : { statusRetryAt: doc.statusRetryAt }),
    }),
  )

describe("money movement: outcomes, polled or notified", () => {
  it.effect("an unreachable provider defers the status question with backoff; its first answer ends the outage", () => {
    const provider = scriptedProvider()
    return Effect.gen(function* () {
      const { transferId } = yield* accepted
      yield* MoneyMovements.originate([{ _tag: "Debit", transferId }])
      provider.statusDown.add(transferId)
      const statusAsked = () => provider.asked.filter((a) => a.operation === "status").length
      yield* MoneyMovements.poll([yield* originatedDebit(transferId)])
      const deferred = yield* transferDoc(transferId)
      assert.strictEqual(deferred.status, "Pending")
      assert.isString(deferred.statusRetryAt)
      // At once, and 14 seconds later (under half the 30 s base): not asked.
      yield* MoneyMovements.poll([yield* originatedDebit(transferId)])
      yield* TestClock.adjust("14 seconds")
      yield* MoneyMovements.poll([yield* originatedDebit(transferId)])
      assert.strictEqual(statusAsked(), 1)
      // After the first wait (at most the 30 s base): asked again; the rail answers Pending, the outage ends.
      yield* TestClock.adjust("16 seconds")
      provider.statusDown.delete(transferId)
      yield* MoneyMovements.poll([yield* originatedDebit(transferId)])
      assert.strictEqual(statusAsked(), 2)
      assert.isUndefined((yield* transferDoc(transferId)).statusRetryAt)
      // Asked on every poll again, and the outcome recorded when it comes.
      provider.outcomes.set(transferId, { status: "Settled" })
      yield* MoneyMovements.poll([yield* originatedDebit(transferId)])
      assert.strictEqual((yield* transferDoc(transferId)).status, "Settled")
    }).pipe(Effect.provide(Layer.merge(layer(), provider.layer)))
  })

  it.effect("an originated transfer whose status stays unavailable 72 hours fails, saying so, with the webhook", () => {
    const provider = scriptedProvider()
    return Effect.gen(function* () {
      const { paymentRequestId, transferId } = yield* accepted
      yield* MoneyMovements.originate([{ _tag: "Debit", transferId }])
      provider.statusDown.add(transferId)
      let polls = 0
      while ((yield* transferDoc(transferId)).status === "Pending") {
        yield* MoneyMovements.poll([yield* originatedDebit(transferId)])
        yield* TestClock.adjust("10 minutes")
        polls += 1
        assert.isBelow(polls, 500)
      }
      const request = yield* Payments.get(partnerId, paymentRequestId)
      assert.deepStrictEqual([request.status, request.returnCode], ["Failed", null])
      assert.include(request.failureReason, "unavailable for 72 hours")
      // Polled every 10 minutes (432 polls in 72 h), asked at least half an hour apart once the backoff reached
      // its 1 h cap (the jitter waits half to all of it): at most 144 asks, and a few more while it grew.
      assert.isAtMost(provider.asked.filter((a) => a.operation === "status").length, 160)
      const outbox = yield* MemoryOutbox
      const hook = outbox.recorded.find(
        (n) => n.eventType === "PAYMENT_REQUEST_STATUS_CHANGED" && n.data.Status === "Failed",
      )
      assert.deepInclude(hook?.data, { ReturnCode: null })
    }).pipe(Effect.provide(Layer.merge(layer(), provider.layer)))
  })

  it.effect("polling a settled transfer again records nothing new: the outcome is reported unchanged", () => {
    const provider = scriptedProvider()
    return Effect.gen(function* () {
      const { transferId } = yield* accepted
      yield* MoneyMovements.originate([{ _tag: "Debit", transferId }])
      const originated = [{ movement: { _tag: "Debit", transferId } as const, providerReference: `ref-${transferId}` }]
      provider.outcomes.set(transferId, { status: "Settled" })
      const first = yield* MoneyMovements.poll(originated)
      const again = yield* MoneyMovements.poll(originated)
      assert.deepStrictEqual(
        [...first, ...again].map((result) => (result._tag === "Recorded" ? result.changed : result.error)),
        [true, false],
      )
    }).pipe(Effect.provide(Layer.merge(layer(), provider.layer)))
  })

  it.effect("polling records what is no longer Pending: settled, then returned", () => {
    const provider = scriptedProvider()
    return Effect.gen(function* () {
      const { paymentRequestId, transferId } = yield* accepted
      yield* MoneyMovements.originate([{ _tag: "Debit", transferId }])
      const originated = [{ movement: { _tag: "Debit", transferId } as const, providerReference: `ref-${transferId}` }]
      assert.deepStrictEqual(yield* MoneyMovements.poll(originated), [])
      provider.outcomes.set(transferId, { status: "Settled" })
      yield* MoneyMovements.poll(originated)
      assert.strictEqual((yield* Payments.get(partnerId, paymentRequestId)).status, "Paid")
      provider.outcomes.set(transferId, { status: "Returned", returnCode: "R16" })
      yield* MoneyMovements.poll(originated)
      const request = yield* Payments.get(partnerId, paymentRequestId)
      assert.deepStrictEqual(
        [request.status, request.returnCode, request.returnReason],
        ["Returned", "R16", "Account frozen / entry returned per OFAC instruction"],
      )
    }).pipe(Effect.provide(Layer.merge(layer(), provider.layer)))
  })

  it.effect("a notification records the same outcome as polling would; repeating it changes nothing", () =>
    Effect.gen(function* () {
      const { paymentRequestId, transferId } = yield* accepted
      const notify = (outcome: MoneyMovement.MovementOutcome) =>
        MoneyMovements.recordNotification({
          movement: { _tag: "Debit", transferId },
          providerReference: "dw-1",
          outcome,
        })
      yield* notify({ status: "Returned", returnCode: "R29" })
      yield* notify({ status: "Returned", returnCode: "R29" })
      yield* notify({ status: "Settled" })
      const request = yield* Payments.get(partnerId, paymentRequestId)
      assert.deepStrictEqual(
        request.statusHistory.map((change) => change.status),
        ["Pending", "Accepted", "Paid", "Returned"],
      )
      assert.strictEqual(request.returnReason, "Corporate customer advises not authorized")
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a notification before the origination was recorded records the reference, then the outcome", () =>
    Effect.gen(function* () {
      const { paymentRequestId, transferId } = yield* accepted
      yield* MoneyMovements.recordNotification({
        movement: { _tag: "Debit", transferId },
        providerReference: "dw-early",
        outcome: { status: "Settled" },
      })
      assert.strictEqual((yield* Payments.get(partnerId, paymentRequestId)).status, "Paid")
      assert.strictEqual((yield* transferDoc(transferId)).providerReference, "dw-early")
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a notification naming another movement, or an unknown transfer, is refused and changes nothing", () =>
    Effect.gen(function* () {
      const { paymentRequestId, transferId } = yield* accepted
      const notify = (id: TransferId, providerReference: string) =>
        Effect.exit(
          MoneyMovements.recordNotification({
            movement: { _tag: "Debit", transferId: id },
            providerReference,
            outcome: { status: "Failed", returnCode: "R01" },
          }),
        )
      yield* MoneyMovements.recordNotification({
        movement: { _tag: "Debit", transferId },
        providerReference: "dw-1",
        outcome: { status: "Pending" },
      })
      yield* MoneyMovements.recordOutcomes([
        { movement: { _tag: "Debit", transferId }, outcome: { _tag: "Settled" }, providerReference: "dw-1" },
      ])
      const other = failureOf(yield* notify(transferId, "dw-2"))
      assert.deepInclude(other, { _tag: "RuleViolated", code: "OTHER_MOVEMENT" })
      const unknown = failureOf(yield* notify("6c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e99" as TransferId, "dw-3"))
      assert.strictEqual(unknown._tag, "NotFound")
      assert.strictEqual((yield* Payments.get(partnerId, paymentRequestId)).status, "Paid")
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a refund's credit notified completes the refund", () =>
    Effect.gen(function* () {
      const { transferId } = yield* paid
      const refund = yield* Transfers.refund({ partnerId, transferId, amount: { value: 5, currencyCode: "USD" } })
      yield* MoneyMovements.recordNotification({
        movement: { _tag: "Credit", transferId, refundId: refund.refundId },
        providerReference: "credit-1",
        outcome: { status: "Settled" },
      })
      const doc = yield* transferDoc(transferId)
      assert.deepInclude(doc.refunds?.[0], { status: "Completed", providerReference: "credit-1" })
    }).pipe(Effect.provide(layer())),
  )
})
