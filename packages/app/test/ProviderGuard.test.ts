/**
 * The guard against a provider port called while a database transaction is
 * open (issue 34): a guarded port called inside `sql.withTransaction` is a
 * defect naming the port, on either pool of the service (each client is
 * registered); outside a transaction, and inside a unit of work (which opens
 * none), it is called as usual. The payment notifier, as it runs in the
 * service, sends a reminder with the guarded sandbox senders without
 * tripping it, and the notice's earlier shape (sending inside the worker's
 * transaction) would have.
 */
import { assert, describe, it } from "@effect/vitest"
import { PgDatabase, PgTransactionGuard } from "@partnerpay/adapters-pg"
import { Companies, type Ids, Messaging, PaymentNotices, Payments, UnitOfWork } from "@partnerpay/domain"
import { Fixtures } from "@partnerpay/domain/testing"
import { Cause, Effect, Exit, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Domain from "../src/Domain.ts"
import * as ProviderGuard from "../src/providers/ProviderGuard.ts"
import * as SandboxProviders from "../src/sandbox/SandboxProviders.ts"
import { companyBody } from "./support.ts"

const partnerId = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b" as Ids.PartnerId
const payer = "7e57ab1e-0000-4000-8000-00000000c0de" as Ids.RegistrationId

const message: Messaging.OutgoingMessage = {
  partnerId,
  registrationId: payer,
  to: "+14155550123",
  template: "PaymentDueToday",
}

/** The service's stack on an in-memory PGlite, its sandbox senders guarded as Service.ts guards them. */
const stack = ProviderGuard.guarded(SandboxProviders.messaging).pipe(
  Layer.provideMerge(Domain.layer),
  Layer.provideMerge(PgDatabase.layerPglite()),
)

const defectOf = <A, E>(exit: Exit.Exit<A, E>) => (Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined)

describe("a provider port", () => {
  it.live(
    "called while a database transaction is open is a defect naming the port",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient
        const sms = yield* Messaging.SmsSender
        const exit = yield* Effect.exit(sql.withTransaction(sms.send(message)))
        const defect = defectOf(exit)
        assert.instanceOf(defect, PgTransactionGuard.ProviderCalledInTransaction)
        assert.strictEqual((defect as PgTransactionGuard.ProviderCalledInTransaction).port, "SmsSender.send")
      }).pipe(Effect.provide(stack)),
    60_000,
  )

  it.live(
    "called with no transaction open, or inside a unit of work (which opens none), is called",
    () =>
      Effect.gen(function* () {
        const sms = yield* Messaging.SmsSender
        yield* sms.send(message)
        yield* UnitOfWork.transactional(sms.send(message))
        assert.isFalse(yield* PgTransactionGuard.isInTransaction)
      }).pipe(Effect.provide(stack)),
    60_000,
  )
})

describe("a due-today reminder", () => {
  it.live(
    "is sent by the notifier's use cases with no transaction open; sending it inside one trips the guard",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient
        const company = yield* Companies.register(partnerId, companyBody({ companyReferenceId: "guard-1" }))
        yield* Companies.completeKyb(company.companyId, "Verified")
        yield* Fixtures.registerCustomer(partnerId, payer, "+14155550123")
        const today = new Date().toISOString().slice(0, 10)
        const make = (value: number) =>
          Payments.create({
            partnerId,
            companyId: company.companyId,
            payerRegistrationId: payer,
            amount: { value, currencyCode: "USD" },
            description: "Invoice",
            dueDate: today as never,
          })
        const inside = (yield* make(10)).paymentRequestId as Ids.PaymentRequestId
        const outside = (yield* make(11)).paymentRequestId as Ids.PaymentRequestId
        // The notifier's old shape: the notice sent inside the worker's transaction.
        const exit = yield* Effect.exit(sql.withTransaction(PaymentNotices.remind(inside, [0])))
        assert.instanceOf(defectOf(exit), PgTransactionGuard.ProviderCalledInTransaction)
        // Its shape now: planned, sent with nothing open, recorded.
        const sent = yield* PaymentNotices.remind(outside, [0])
        assert.deepStrictEqual(
          sent.map((m) => `${m.channel} ${m.template}`),
          ["sms PaymentDueToday"],
        )
      }).pipe(Effect.provide(stack)),
    60_000,
  )
})
