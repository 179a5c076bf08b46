/**
 * The balance and payout use cases on the in-memory domain: a settled
 * payment becomes available (pending before), the payout worker's entry
 * points pay it out once with its items, originate it through the
 * money-movement port and record its outcome by polling (Paid, or Failed
 * with its money back in the balance and in the next payout), the
 * PAYOUT_STATUS_CHANGED webhook follows each status, transfers name the
 * payout account's mask, and another partner sees nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as CardPayments from "../../src/cards-and-charity/CardPayments.ts"
import * as Charity from "../../src/cards-and-charity/Charity.ts"
import * as Companies from "../../src/companies/Companies.ts"
import * as EventPipeline from "../../src/composition/EventPipeline.ts"
import * as CustomerProviderSandboxes from "../../src/customers/CustomerProviderSandboxes.ts"
import { IdGenerator } from "../../src/infrastructure/IdGenerator.ts"
import { MemoryOutbox } from "../../src/infrastructure/Outbox.ts"
import { ProviderUnavailable } from "../../src/infrastructure/Providers.ts"
import { UnitOfWork } from "../../src/infrastructure/UnitOfWork.ts"
import type { CalendarDate } from "../../src/kernel/CalendarDate.ts"
import type {
  BankAccountId,
  CompanyId,
  MerchantId,
  PartnerId,
  PayoutId,
  RegistrationId,
  VerificationId,
} from "../../src/kernel/Ids.ts"
import * as MoneyMovement from "../../src/payments/MoneyMovement.ts"
import * as Payments from "../../src/payments/Payments.ts"
import * as Transfers from "../../src/payments/Transfers.ts"
import * as Payouts from "../../src/payouts/Payouts.ts"
import * as TransactionReport from "../../src/payouts/TransactionReport.ts"
import { Fixtures } from "../../src/testing/index.ts"

const partnerId = "0c9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b" as PartnerId
const otherPartnerId = "1d2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f" as PartnerId
const payer = "7e57ab1e-0000-4000-8000-00000000c1de" as RegistrationId
const checking = "8c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a69" as BankAccountId

/** Payouts whose status question finds the rail unavailable; and every status question asked (payout ids). */
const statusDown = new Set<string>()
const statusAsked: Array<string> = []

/**
 * A money-movement provider for the test: payouts to an account ending in 0013 fail with R03, others
 * settle; a payout in `statusDown` gets a 503 when its status is asked.
 */
const movements = Layer.succeed(
  MoneyMovement.MoneyMovement,
  MoneyMovement.MoneyMovement.of({
    originateDebit: (request) =>
      Effect.succeed({ kind: "Debit", id: request.idempotencyKey, providerReference: `d-${request.idempotencyKey}` }),
    originateCredit: (request) =>
      Effect.succeed({ kind: "Credit", id: request.idempotencyKey, providerReference: `c-${request.idempotencyKey}` }),
    originatePayout: (request) =>
      Effect.succeed({
        kind: "Payout",
        id: request.idempotencyKey,
        providerReference: `${request.destination.accountNumber.endsWith("0013") ? "fail" : "ok"}-${request.idempotencyKey}`,
      }),
    status: (reference) => {
      statusAsked.push(reference.id)
      return statusDown.has(reference.id)
        ? Effect.fail(new ProviderUnavailable({ provider: "bank", reason: "transfer status: Dwolla answered 503" }))
        : Effect.succeed(
            reference.providerReference.startsWith("fail")
              ? { status: "Failed", returnCode: "R03" }
              : ({ status: "Settled" } as const),
          )
    },
  }),
)

const layer = () =>
  Layer.mergeAll(
    EventPipeline.layerMemory(),
    UnitOfWork.layerMemory,
    IdGenerator.layerRandom,
    movements,
    CustomerProviderSandboxes.layerCardProcessorSandbox,
  )

const schedule: Payouts.PayoutSchedule = { minimumMinorUnits: 100, intervalMillis: 0 }

const account = (accountNumber = "000123456789"): Companies.PayoutAccountInput => ({
  accountHolderName: "Acme Coffee LLC",
  routingNumber: "011000015",
  accountNumber,
  accountType: "Checking",
})

/** A Verified company with a payout account, a verified payer and one accepted payment of 125.50 USD. */
const accepted = (accountNumber?: string) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(Date.parse("2026-03-02T10:00:00.000Z"))
    const { companyId } = yield* Companies.register(
      partnerId,
      Fixtures.companyRegistrationBody({ companyReferenceId: "acme-1", employees: [], locations: [] }),
    )
    yield* Companies.completeKyb(companyId, "Verified")
    yield* Companies.setPayoutAccount(partnerId, companyId, account(accountNumber))
    yield* Fixtures.registerVerifiedCustomer(partnerId, payer, checking)
    const { transferId } = yield* Fixtures.acceptedPaymentRequest(partnerId, companyId, payer, checking)
    return { companyId, transferId }
  })

/** ... settled and paid out: the payout created. */
const paidOut = (accountNumber?: string) =>
  Effect.gen(function* () {
    const ids = yield* accepted(accountNumber)
    yield* Payments.settleTransfer(ids.transferId)
    const created = yield* Payouts.payOutDue(ids.companyId, schedule)
    assert.strictEqual(created.length, 1)
    return { ...ids, payoutId: created[0]!.payoutId }
  })

const payoutWebhooks = (payoutId: PayoutId) =>
  Effect.map(Effect.service(MemoryOutbox), (outbox) =>
    outbox.recorded.filter((n) => n.eventType === "PAYOUT_STATUS_CHANGED" && n.data.PayoutId === payoutId),
  )

describe("a company's balance", () => {
  it.effect("a payment accepted is pending; once settled it is available", () =>
    Effect.gen(function* () {
      const { companyId, transferId } = yield* accepted()
      const before = yield* Payouts.balance(partnerId, companyId, "USD")
      assert.deepStrictEqual(before, {
        available: { minorUnits: 0, currency: "USD" },
        pending: { minorUnits: 12_550, currency: "USD" },
      })
      yield* Payments.settleTransfer(transferId)
      const after = yield* Payouts.balance(partnerId, companyId, "USD")
      assert.deepStrictEqual(after, {
        available: { minorUnits: 12_550, currency: "USD" },
        pending: { minorUnits: 0, currency: "USD" },
      })
    }).pipe(Effect.provide(layer())),
  )

  it.effect("the transfer names the company's payout account by its mask", () =>
    Effect.gen(function* () {
      const { transferId } = yield* accepted()
      const transfer = yield* Transfers.get({ _tag: "Partner", partnerId }, transferId)
      assert.strictEqual(Transfers.viewOf(transfer).recipientAccount, "****6789")
    }).pipe(Effect.provide(layer())),
  )

  it.effect("another partner's company is not found", () =>
    Effect.gen(function* () {
      const { companyId } = yield* accepted()
      const exit = yield* Effect.exit(Payouts.balance(otherPartnerId, companyId, "USD"))
      assert.isTrue(Exit.isFailure(exit))
    }).pipe(Effect.provide(layer())),
  )
})

describe("paying out", () => {
  it.effect("takes the available balance once: a payout Pending with its items adding up to it", () =>
    Effect.gen(function* () {
      const { companyId, transferId, payoutId } = yield* paidOut()
      const payout = yield* Payouts.get(partnerId, payoutId)
      assert.strictEqual(payout.status, "Pending")
      assert.deepStrictEqual(payout.amount, { minorUnits: 12_550, currency: "USD" })
      assert.strictEqual(payout.itemCount, 1)
      assert.strictEqual(payout.accountNumberMasked, "****6789")
      const items = yield* Payouts.items(partnerId, payoutId, { limit: 10 })
      assert.deepStrictEqual(
        items.data.map(({ itemId: _itemId, ...item }) => item),
        [{ type: "payment", transferId, amount: { minorUnits: 12_550, currency: "USD" } }],
      )
      assert.strictEqual((yield* Payouts.balance(partnerId, companyId, "USD")).available.minorUnits, 0)
      assert.deepStrictEqual(yield* Payouts.payOutDue(companyId, schedule), [])
      const listed = yield* Payouts.list(partnerId, { companyId, limit: 10 })
      assert.deepStrictEqual(
        listed.data.map((p) => p.payoutId),
        [payoutId],
      )
    }).pipe(Effect.provide(layer())),
  )

  it.effect("is originated once and becomes Paid on the provider's outcome, each status a webhook", () =>
    Effect.gen(function* () {
      const { payoutId } = yield* paidOut()
      assert.isTrue(yield* Payouts.originate(payoutId))
      assert.isFalse(yield* Payouts.originate(payoutId))
      assert.strictEqual(yield* Payouts.pollOutcome(payoutId), "Paid")
      assert.strictEqual((yield* Payouts.get(partnerId, payoutId)).status, "Paid")
      const webhooks = yield* payoutWebhooks(payoutId)
      assert.deepStrictEqual(
        webhooks.map((n) => n.data.Status),
        ["Pending", "Paid"],
      )
      assert.deepStrictEqual(Object.keys(webhooks[1]!.data).sort(), [
        "Amount",
        "CompanyId",
        "Direction",
        "PayoutId",
        "Status",
        "Timestamp",
      ])
      assert.deepStrictEqual(webhooks[1]!.data.Amount, { value: 125.5, currencyCode: "USD" })
    }).pipe(Effect.provide(layer())),
  )

  it.effect(
    "a status question the rail cannot answer is deferred with backoff; the first answer after it goes on",
    () =>
      Effect.gen(function* () {
        const { payoutId } = yield* paidOut()
        yield* Payouts.originate(payoutId)
        statusDown.add(payoutId)
        const asked = () => statusAsked.filter((id) => id === payoutId).length
        assert.strictEqual(yield* Payouts.pollOutcome(payoutId), "Pending")
        // At once, and 14 seconds later (under half the 30 s base): not asked.
        assert.strictEqual(yield* Payouts.pollOutcome(payoutId), "Pending")
        yield* TestClock.adjust("14 seconds")
        assert.strictEqual(yield* Payouts.pollOutcome(payoutId), "Pending")
        assert.strictEqual(asked(), 1)
        yield* TestClock.adjust("16 seconds")
        statusDown.delete(payoutId)
        assert.strictEqual(yield* Payouts.pollOutcome(payoutId), "Paid")
        assert.strictEqual(asked(), 2)
      }).pipe(Effect.provide(layer())),
  )

  it.effect("a payout whose status stays unavailable 72 hours fails, saying so, its money back in the balance", () =>
    Effect.gen(function* () {
      const { companyId, payoutId } = yield* paidOut()
      yield* Payouts.originate(payoutId)
      statusDown.add(payoutId)
      let polls = 0
      while ((yield* Payouts.pollOutcome(payoutId)) === "Pending") {
        yield* TestClock.adjust("10 minutes")
        polls += 1
        assert.isBelow(polls, 500)
      }
      statusDown.delete(payoutId)
      const failed = yield* Payouts.get(partnerId, payoutId)
      assert.strictEqual(failed.status, "Failed")
      assert.include(failed.failureReason, "unavailable for 72 hours")
      // Polled every 10 minutes (432 polls in 72 h), asked at least half an hour apart once the backoff reached
      // its 1 h cap: at most 144 asks, and a few more while it grew.
      assert.isAtMost(statusAsked.filter((id) => id === payoutId).length, 160)
      assert.strictEqual((yield* Payouts.balance(partnerId, companyId, "USD")).available.minorUnits, 12_550)
      assert.deepStrictEqual(
        (yield* payoutWebhooks(payoutId)).map((n) => n.data.Status),
        ["Pending", "Failed"],
      )
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a payout returned for an account-level reason errors the account and pauses the company's payouts", () =>
    Effect.gen(function* () {
      const { companyId, payoutId } = yield* paidOut("9999990013")
      yield* Payouts.originate(payoutId)
      assert.strictEqual(yield* Payouts.pollOutcome(payoutId), "Failed")
      const errored = yield* Companies.payoutAccount(partnerId, companyId)
      assert.deepInclude(errored, {
        status: "Errored",
        returnCode: "R03",
        returnReason: "No account / unable to locate account",
      })
      assert.isString(errored.erroredAt)
      assert.deepStrictEqual(yield* Payouts.payOutDue(companyId, schedule), [])
      const outbox = yield* MemoryOutbox
      const changes = outbox.recorded.filter((n) => n.eventType === "PAYOUT_ACCOUNT_STATUS_CHANGED")
      assert.deepStrictEqual(
        changes.map((n) => [n.data.CompanyId, n.data.Status, n.data.ReturnCode, n.data.ReturnReason]),
        [[companyId, "Errored", "R03", "No account / unable to locate account"]],
      )
      assert.hasAllKeys(changes[0]!.data, ["CompanyId", "Status", "ReturnCode", "ReturnReason", "Timestamp"])
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a failed payout gives its money back, and the next payout (to a new account) carries the same items", () =>
    Effect.gen(function* () {
      const { companyId, transferId, payoutId } = yield* paidOut("9999990013")
      yield* Payouts.originate(payoutId)
      assert.strictEqual(yield* Payouts.pollOutcome(payoutId), "Failed")
      const failed = yield* Payouts.get(partnerId, payoutId)
      assert.strictEqual(failed.returnCode, "R03")
      assert.isString(failed.returnReason)
      assert.strictEqual((yield* Payouts.balance(partnerId, companyId, "USD")).available.minorUnits, 12_550)
      const replaced = yield* Companies.setPayoutAccount(partnerId, companyId, account("000987654321"))
      assert.strictEqual(replaced.status, "Active")
      const outbox = yield* MemoryOutbox
      assert.deepStrictEqual(
        outbox.recorded
          .filter((n) => n.eventType === "PAYOUT_ACCOUNT_STATUS_CHANGED")
          .map((n) => [n.data.Status, n.data.ReturnCode]),
        [
          ["Errored", "R03"],
          ["Active", null],
        ],
      )
      const again = yield* Payouts.payOutDue(companyId, schedule)
      assert.strictEqual(again.length, 1)
      const items = yield* Payouts.items(partnerId, again[0]!.payoutId, { limit: 10 })
      assert.deepStrictEqual(
        items.data.map((item) => item.transferId),
        [transferId],
      )
      const webhooks = yield* payoutWebhooks(payoutId)
      assert.deepStrictEqual(
        webhooks.map((n) => [n.data.Status, n.data.ReturnCode]),
        [
          ["Pending", undefined],
          ["Failed", "R03"],
        ],
      )
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a provider's notification ends in the same decision as polling; repeated, it changes nothing", () =>
    Effect.gen(function* () {
      const { payoutId } = yield* paidOut()
      yield* Payouts.originate(payoutId)
      assert.strictEqual(yield* Payouts.recordOutcome(payoutId, { status: "Settled" }), "Paid")
      assert.strictEqual(yield* Payouts.recordOutcome(payoutId, { status: "Settled" }), "Paid")
      assert.strictEqual(yield* Payouts.pollOutcome(payoutId), "Paid")
      const webhooks = yield* payoutWebhooks(payoutId)
      assert.deepStrictEqual(
        webhooks.map((n) => n.data.Status),
        ["Pending", "Paid"],
      )
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a company without a payout account is not paid out; its money waits", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.parse("2026-03-02T10:00:00.000Z"))
      const { companyId } = yield* Companies.register(
        partnerId,
        Fixtures.companyRegistrationBody({ companyReferenceId: "acme-2", employees: [], locations: [] }),
      )
      assert.deepStrictEqual(yield* Payouts.payOutDue(companyId as CompanyId, schedule), [])
    }).pipe(Effect.provide(layer())),
  )

  it.effect("another partner's payout is not found, nor are its items", () =>
    Effect.gen(function* () {
      const { payoutId } = yield* paidOut()
      assert.isTrue(Exit.isFailure(yield* Effect.exit(Payouts.get(otherPartnerId, payoutId))))
      assert.isTrue(Exit.isFailure(yield* Effect.exit(Payouts.items(otherPartnerId, payoutId, { limit: 10 }))))
      assert.deepStrictEqual((yield* Payouts.list(otherPartnerId, { limit: 10 })).data, [])
    }).pipe(Effect.provide(layer())),
  )
})

describe("the transaction report", () => {
  it.effect("its lines of a period reconcile with the payouts of that period and what stayed available", () =>
    Effect.gen(function* () {
      const { companyId, transferId, payoutId } = yield* paidOut()
      // A refund after the payout: a negative line, taken from the balance (negative until recovered).
      yield* TestClock.adjust("1 hour")
      yield* Transfers.refund({
        partnerId,
        transferId,
        amount: { value: 25.5, currencyCode: "USD" },
      })
      const report = yield* TransactionReport.report({
        partnerId,
        from: "2026-03-02" as CalendarDate,
        to: "2026-03-02" as CalendarDate,
        limit: 10,
      })
      const [usd] = report.lineTotals
      assert.deepStrictEqual(
        report.lines.map((line) => [line.type, line.amount.minorUnits]),
        [
          ["refund", -2_550],
          ["payment", 12_550],
        ],
      )
      assert.strictEqual(usd?.collected.minorUnits, 12_550)
      assert.strictEqual(usd?.refunded.minorUnits, 2_550)
      const payout = yield* Payouts.get(partnerId, payoutId)
      const available = (yield* Payouts.balance(partnerId, companyId, "USD")).available.minorUnits
      // net of the period = paid out in the period + what stayed available (here negative: the refund)
      assert.strictEqual(usd?.net.minorUnits, payout.amount.minorUnits + available)
      const items = yield* Payouts.items(partnerId, payoutId, { limit: 10 })
      assert.includeMembers(
        report.lines.map((line) => line.lineId),
        items.data.map((item) => item.itemId),
      )
      const csv = yield* TransactionReport.csv({
        partnerId,
        from: "2026-03-02" as CalendarDate,
        to: "2026-03-02" as CalendarDate,
        limit: 10,
      })
      const rows = csv.trimEnd().split("\r\n")
      assert.strictEqual(rows[0], "date,companyId,type,transferId,refundId,cardPaymentId,currencyCode,amount")
      assert.match(rows[1]!, new RegExp(`^2026-03-02T[^,]+,${companyId},payment,${transferId},,,USD,125\\.50$`))
      assert.match(rows[2]!, /,refund,.*,USD,-25\.50$/)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("card payments, a charity gift and its fee are lines too; the totals reconcile with the payout", () =>
    Effect.gen(function* () {
      const { companyId, transferId } = yield* accepted()
      yield* Payments.settleTransfer(transferId)
      yield* CardPayments.register({
        partnerId,
        merchantId: companyId as string as MerchantId,
        amount: { value: 12.34, currencyCode: "USD" },
        last4: "4242",
        brand: "visa",
        externalReference: "terminal-1",
      })
      const gift = yield* Charity.createAnonymous({
        partnerId,
        donor: payer,
        verificationId: "f0e1d2c3-b4a5-4697-8a8b-9c0d1e2f3a4b" as VerificationId,
        companyId,
        amount: { value: 20, currencyCode: "USD" },
        isRecurring: false,
        payerCoversFee: false,
      })
      yield* Payments.settleTransfer(gift.transferId)
      const [created] = yield* Payouts.payOutDue(companyId, schedule)
      const payout = yield* Payouts.get(partnerId, created!.payoutId)
      const items = yield* Payouts.items(partnerId, payout.payoutId, { limit: 10 })
      assert.sameDeepMembers(
        items.data.map((item) => [item.type, item.amount.minorUnits]),
        [
          ["payment", 12_550],
          ["card", 1_234],
          ["charity", 2_000],
          ["fee", -20],
        ],
      )
      assert.strictEqual(payout.amount.minorUnits, 12_550 + 1_234 + 2_000 - 20)
      const report = yield* TransactionReport.report({
        partnerId,
        from: "2026-03-02" as CalendarDate,
        to: "2026-03-02" as CalendarDate,
        limit: 10,
      })
      const [usd] = report.lineTotals
      assert.strictEqual(usd?.collected.minorUnits, 12_550 + 1_234 + 2_000)
      assert.strictEqual(usd?.fees.minorUnits, 20)
      const available = (yield* Payouts.balance(partnerId, companyId, "USD")).available.minorUnits
      assert.strictEqual(usd?.net.minorUnits, payout.amount.minorUnits + available)
      assert.sameMembers(
        report.lines.map((line) => line.lineId),
        items.data.map((item) => item.itemId),
      )
    }).pipe(Effect.provide(layer())),
  )
})
