/**
 * The money-movement workers on the production path: the operator's bridge
 * (`MoneyMovementBridge`, against a fake provider) and the real clock, on
 * PGlite and on PostgreSQL (there with two service instances racing):
 * - the originator asks the provider for one debit per transfer, keyed by the
 *   transfer id (several instances may ask; the provider's idempotency makes
 *   it one movement), and records the provider's reference once;
 * - the outcome poller asks `status` with that reference and records what it
 *   answers: Settled (the request Paid), then Returned with R10 within the
 *   return window (the request Returned, with the code and its reason); a
 *   settled transfer polled again records nothing new, and counts as no work
 *   (the poller waits for its next round);
 * - a status question the rail cannot answer (503) is deferred with backoff
 *   (`MovementAttempts.ts`): the next poll does not ask it again;
 * - the provider's notifications (signed with the bridge's secret) reach the
 *   same domain entry point.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { PgDatabase } from "@partnerpay/adapters-pg"
import {
  BankAccounts,
  CalendarDate,
  Companies,
  EventPipeline,
  IdGenerator,
  Ids,
  Payments,
  Transfers,
  UnitOfWork,
} from "@partnerpay/domain"
import { Fixtures } from "@partnerpay/domain/testing"
import { Effect, Fiber, Layer, Redacted } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import * as Domain from "../src/Domain.ts"
import * as MoneyMovementCallbacks from "../src/http/MoneyMovementCallbacks.ts"
import * as HttpBridge from "../src/providers/HttpBridge.ts"
import * as MoneyMovementBridge from "../src/providers/MoneyMovementBridge.ts"
import * as MoneyMovementWorkers from "../src/workers/MoneyMovementWorkers.ts"
import * as FakeProvider from "./providers/FakeProvider.ts"
import { companyBody, freshDatabase, postgresAvailable } from "./support.ts"

const partnerId = Ids.PartnerId.make("0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6c")
const payer = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-0000000a0b0b")
const checking = Ids.BankAccountId.make("ba000000-0000-4000-8000-0000000a0b01")

const drops: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const drop of drops) await drop()
})

const r10Reason = "Customer advises originator is not known and/or not authorized to debit the account"

/** A paid-for payment request accepted by the payer: its ids. */
const acceptedRequest = Effect.gen(function* () {
  const company = yield* Companies.register(partnerId, companyBody({ companyReferenceId: "movement-1" }))
  yield* Companies.completeKyb(company.companyId, "Verified")
  yield* Fixtures.registerVerifiedCustomer(partnerId, payer, checking)
  yield* BankAccounts.setDefault(partnerId, payer, checking)
  const created = yield* Payments.create({
    partnerId,
    companyId: company.companyId,
    payerRegistrationId: payer,
    amount: { value: 42.1, currencyCode: "USD" },
    description: "Lawn care, November",
    dueDate: CalendarDate.fromEpochMillis(Date.now()),
  })
  yield* Payments.accept({
    partnerId,
    paymentRequestId: created.paymentRequestId,
    registrationId: payer,
    bankAccountId: checking,
    acceptDebitAuth: false,
    transferDescription: "",
  })
  const request = yield* Payments.get(partnerId, created.paymentRequestId)
  return { paymentRequestId: created.paymentRequestId, transferId: request.transferId as string }
})

/** Waits (real time) until `check` holds. */
const until = <A, E, R>(read: Effect.Effect<A, E, R>, check: (value: A) => boolean) =>
  Effect.gen(function* () {
    for (let attempt = 0; attempt < 200; attempt++) {
      const value = yield* read
      if (check(value)) return value
      yield* Effect.sleep("50 millis")
    }
    return yield* Effect.die(new Error("condition not met in time"))
  })

const scenario = (database: "pglite" | "postgres") =>
  Effect.gen(function* () {
    const fake = yield* FakeProvider.start()
    fake.script("debits", [{ status: 200, body: { providerReference: "dw-transfer-1" } }])
    fake.script("status", [{ status: 200, body: { status: "Settled" } }])
    const bridge = MoneyMovementBridge.layer(fake.config({ retries: 0 }))
    const instances =
      database === "postgres"
        ? yield* Effect.promise(async () => {
            const db = await freshDatabase()
            drops.push(db.drop)
            const on = () =>
              Domain.layer.pipe(Layer.provideMerge(PgDatabase.layerPostgres(db.url, { maxConnections: 4 })))
            return [on(), on()]
          })
        : [Domain.layer.pipe(Layer.provideMerge(PgDatabase.layerPglite()))]
    // One runtime per instance, kept for the whole scenario (PGlite lives in memory).
    const runtimes = yield* Effect.forEach(instances, (instance) => Layer.build(Layer.merge(instance, bridge)))
    const primary = runtimes[0]!
    const { paymentRequestId, transferId } = yield* Effect.provide(acceptedRequest, primary)
    const workers = yield* Effect.forEach(runtimes, (context) =>
      Effect.forkChild(
        Layer.launch(
          Layer.mergeAll(
            ...MoneyMovementWorkers.layer({ sandbox: false, delayMillis: 0, pollMillis: 20, returnWindowDays: 60 }),
          ),
        ).pipe(Effect.provide(context)),
      ),
    )
    const paid = yield* until(
      Effect.provide(Payments.get(partnerId, paymentRequestId), primary),
      (doc) => doc.status === "Paid",
    )
    assert.isUndefined(paid.returnCode)
    // Polled again within its return window, the settled transfer records nothing new: no work
    // done, so the poller waits for its next round instead of polling again at once.
    const cursors = { pending: "", settled: "", refunding: "" }
    assert.strictEqual(yield* Effect.provide(MoneyMovementWorkers.pollStep(cursors, 60 * 86_400_000), primary), 0)
    const debits = fake.received().filter((request) => request.operation === "debits")
    assert.isAtLeast(debits.length, 1)
    for (const debit of debits) assert.deepInclude(debit.body, { idempotencyKey: transferId, fundingSource: checking })
    const transfer = yield* Effect.provide(Transfers.get({ _tag: "Partner", partnerId }, transferId), primary)
    assert.strictEqual(transfer.providerReference, "dw-transfer-1")
    assert.deepInclude(fake.received().find((request) => request.operation === "status")?.body, {
      kind: "Debit",
      id: transferId,
      providerReference: "dw-transfer-1",
    })

    // A return within the return window: the request becomes Returned with R10 and its reason.
    fake.script("status", [{ status: 200, body: { status: "Returned", returnCode: "R10" } }])
    const returned = yield* until(
      Effect.provide(Payments.get(partnerId, paymentRequestId), primary),
      (doc) => doc.status === "Returned",
    )
    assert.deepStrictEqual([returned.returnCode, returned.returnReason], ["R10", r10Reason])
    for (const fiber of workers) yield* Fiber.interrupt(fiber)
  }).pipe(Effect.scoped)

describe("the money-movement workers on the production path", () => {
  it.live("PGlite: one debit keyed by the transfer, settled then returned (R10)", () => scenario("pglite"), 60_000)
  it.live.skipIf(!postgresAvailable)(
    "PostgreSQL, two instances: one movement per transfer, settled then returned (R10)",
    () => scenario("postgres"),
    60_000,
  )
})

describe("the outcome poller when the rail is unavailable", () => {
  it.live(
    "PGlite: a 503 to the status question defers it with backoff: the next poll does not ask again",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.start()
        fake.script("debits", [{ status: 200, body: { providerReference: "dw-transfer-503" } }])
        fake.script("status", [{ status: 503, body: { error: "unavailable" } }])
        const context = yield* Layer.build(
          Layer.merge(
            Domain.layer.pipe(Layer.provideMerge(PgDatabase.layerPglite())),
            MoneyMovementBridge.layer(fake.config({ retries: 0 })),
          ),
        )
        const { paymentRequestId, transferId } = yield* Effect.provide(acceptedRequest, context)
        yield* Effect.provide(MoneyMovementWorkers.originateStep(), context)
        const cursors = { pending: "", settled: "", refunding: "" }
        const statusAsked = () => fake.received().filter((request) => request.operation === "status").length
        // The first poll asks and finds the rail unavailable: the transfer records when to ask again.
        yield* Effect.provide(MoneyMovementWorkers.pollStep(cursors, 60 * 86_400_000), context)
        assert.strictEqual(statusAsked(), 1)
        const deferred = yield* Effect.provide(Transfers.get({ _tag: "Partner", partnerId }, transferId), context)
        assert.deepStrictEqual([deferred.status, deferred.providerReference], ["Pending", "dw-transfer-503"])
        assert.isString(deferred.statusRetryAt)
        // The next poll comes before it (at least 15 s later by design): the rail is not asked again.
        assert.isAbove(Date.parse(deferred.statusRetryAt ?? ""), Date.now())
        yield* Effect.provide(MoneyMovementWorkers.pollStep(cursors, 60 * 86_400_000), context)
        assert.strictEqual(statusAsked(), 1)
        assert.strictEqual(
          (yield* Effect.provide(Payments.get(partnerId, paymentRequestId), context)).status,
          "Accepted",
        )
      }).pipe(Effect.scoped),
    60_000,
  )
})

describe("the money-movement provider's notifications (POST /providers/money-movement/notifications)", () => {
  const bridge: HttpBridge.BridgeConfig = {
    url: "https://bridge.example.com",
    secret: Redacted.make("money-movement-bridge-secret-of-32-characters"),
    timeoutMillis: 1000,
    retries: 0,
  }

  it.live(
    "a signed notification records the outcome once; unsigned, stale, malformed or unknown ones are refused",
    () =>
      Effect.gen(function* () {
        // The route's signature rules and its one domain call: on the domain's in-memory ports. (A fresh
        // migrated PGlite here cost 5-13 s of CPU under load, inside the test's default 5 s; the workers'
        // scenarios above keep the database.)
        const context = yield* Layer.build(
          Layer.mergeAll(
            EventPipeline.layerMemory(),
            UnitOfWork.UnitOfWork.layerMemory,
            IdGenerator.IdGenerator.layerRandom,
          ),
        )
        const { paymentRequestId, transferId } = yield* Effect.provide(acceptedRequest, context)
        const app = HttpRouter.toWebHandler(
          MoneyMovementCallbacks.routes(bridge).pipe(
            Layer.provide(Layer.succeedContext(context)),
            Layer.provide(HttpServer.layerServices),
          ),
          { disableLogger: true },
        )
        yield* Effect.addFinalizer(() => Effect.promise(() => app.dispose()))
        const post = (body: unknown, options: { readonly secret?: string; readonly ageSeconds?: number } = {}) => {
          const text = typeof body === "string" ? body : JSON.stringify(body)
          const timestamp = String(Math.floor(Date.now() / 1000) - (options.ageSeconds ?? 0))
          const signature = HttpBridge.signature(
            options.secret === undefined ? bridge.secret : Redacted.make(options.secret),
            timestamp,
            text,
          )
          return Effect.promise(() =>
            app.handler(
              new Request(`http://partnerpay.test${MoneyMovementCallbacks.path}`, {
                method: "POST",
                headers: {
                  "content-type": "application/json",
                  "x-partnerpay-timestamp": timestamp,
                  "x-partnerpay-signature": signature,
                },
                body: text,
              }),
            ),
          )
        }
        const returned = {
          kind: "Debit",
          id: transferId,
          providerReference: "dw-42",
          status: "Returned",
          returnCode: "R10",
        }
        assert.strictEqual((yield* post(returned, { secret: "another-secret-of-at-least-32-characters" })).status, 401)
        assert.strictEqual((yield* post(returned, { ageSeconds: 600 })).status, 401)
        assert.strictEqual((yield* post({ ...returned, returnCode: undefined })).status, 400)
        assert.strictEqual((yield* post({ ...returned, extra: 1 })).status, 400)
        assert.strictEqual((yield* post({ ...returned, returnCode: "R99" })).status, 422)
        assert.strictEqual((yield* post({ ...returned, id: "6c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e99" })).status, 404)
        const read = Effect.provide(Payments.get(partnerId, paymentRequestId), context)
        assert.strictEqual((yield* read).status, "Accepted")

        assert.strictEqual((yield* post(returned)).status, 204)
        assert.strictEqual((yield* post(returned)).status, 204)
        const doc = yield* read
        assert.deepStrictEqual(
          [doc.status, doc.returnCode, doc.returnReason, doc.statusHistory.map((change) => change.status)],
          ["Returned", "R10", r10Reason, ["Pending", "Accepted", "Paid", "Returned"]],
        )
        const other = yield* post({ ...returned, providerReference: "dw-43" })
        assert.strictEqual(other.status, 422)
        assert.strictEqual(((yield* Effect.promise(() => other.json())) as { code: string }).code, "OTHER_MOVEMENT")
      }).pipe(Effect.scoped),
  )
})
