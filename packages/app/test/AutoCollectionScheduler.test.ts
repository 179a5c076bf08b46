/**
 * The auto-collection scheduler collects a due autopay request exactly once, even with
 * two service instances (two connection pools, two scheduler fibers polling
 * every 10 ms) racing on one PostgreSQL database: one acceptance, one
 * transfer, no skip.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { PgDatabase } from "@partnerpay/adapters-pg"
import {
  AutoCollection,
  BankAccounts,
  CalendarDate,
  Companies,
  Decider,
  EventStore,
  Ids,
  PaymentRequest,
  Payments,
  ReadModel,
} from "@partnerpay/domain"
import { Fixtures } from "@partnerpay/domain/testing"
import { Effect, Fiber, Layer } from "effect"
import * as Domain from "../src/Domain.ts"
import * as AutoCollectionScheduler from "../src/workers/AutoCollectionScheduler.ts"
import { companyBody, freshDatabase, postgresAvailable } from "./support.ts"

const partnerId = Ids.PartnerId.make("0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b")
const payer = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-0000000a0a0a")
const checking = Ids.BankAccountId.make("ba000000-0000-4000-8000-0000000a0a01")

const drops: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const drop of drops) await drop()
})

const instance = (url: string) =>
  Domain.layer.pipe(Layer.provideMerge(PgDatabase.layerPostgres(url, { maxConnections: 4 })))

/** A verified customer with the checking account linked and designated for autopay. */
const seedPayer = Effect.gen(function* () {
  yield* Fixtures.registerVerifiedCustomer(partnerId, payer, checking)
  yield* BankAccounts.setDefault(partnerId, payer, checking)
})

describe("the auto-collection scheduler", () => {
  it.skipIf(!postgresAvailable)(
    "two instances collect an autopay request due today exactly once",
    async () => {
      const db = await freshDatabase()
      drops.push(db.drop)
      const first = instance(db.url)
      const second = instance(db.url)
      const program = Effect.gen(function* () {
        const setup = Effect.gen(function* () {
          const company = yield* Companies.register(partnerId, companyBody({ companyReferenceId: "autopay-1" }))
          yield* Companies.completeKyb(company.companyId, "Verified")
          yield* seedPayer
          const created = yield* Payments.create({
            partnerId,
            companyId: company.companyId,
            payerRegistrationId: payer,
            amount: { value: 42.5, currencyCode: "USD" },
            description: "Lawn care, November",
            dueDate: CalendarDate.fromEpochMillis(Date.now()),
            enableAutoPay: true,
            autoPayLimit: { value: 100, currencyCode: "USD" },
          })
          return created.paymentRequestId
        })
        const paymentRequestId = yield* Effect.provide(setup, first)

        const run = (layer: typeof first) =>
          Effect.forkChild(Layer.launch(AutoCollectionScheduler.layer({ pollMillis: 10 }).pipe(Layer.provide(layer))))
        const a = yield* run(first)
        const b = yield* run(second)
        yield* Effect.sleep("2 seconds")
        yield* Fiber.interrupt(a)
        yield* Fiber.interrupt(b)

        return yield* Effect.provide(
          Effect.gen(function* () {
            const store = yield* EventStore.EventStore
            const events = yield* store.readStream(Decider.streamId(PaymentRequest.aggregate, paymentRequestId))
            const transfers = yield* (yield* ReadModel.ReadModelStore).find("transfers", {
              partnerId,
              keys: { paymentRequestId },
              limit: 10,
            })
            return { types: events.map((event) => event.eventType), transfers: transfers.items.length }
          }),
          first,
        )
      })
      const outcome = await Effect.runPromise(program as Effect.Effect<{ types: Array<string>; transfers: number }>)
      assert.deepStrictEqual(outcome.types, ["PaymentRequestCreated", "PaymentRequestAccepted"])
      assert.strictEqual(outcome.transfers, 1)
    },
    60_000,
  )

  it.skipIf(!postgresAvailable)(
    "two concurrent collections of one request without the scheduler's lock still record one acceptance (the stream's version decides)",
    async () => {
      const db = await freshDatabase()
      drops.push(db.drop)
      const first = instance(db.url)
      const second = instance(db.url)
      const program = Effect.gen(function* () {
        const paymentRequestId = yield* Effect.provide(
          Effect.gen(function* () {
            const company = yield* Companies.register(partnerId, companyBody({ companyReferenceId: "autopay-2" }))
            yield* Companies.completeKyb(company.companyId, "Verified")
            yield* seedPayer
            const created = yield* Payments.create({
              partnerId,
              companyId: company.companyId,
              payerRegistrationId: payer,
              amount: { value: 42.5, currencyCode: "USD" },
              description: "Lawn care, December",
              dueDate: CalendarDate.fromEpochMillis(Date.now()),
              enableAutoPay: true,
              autoPayLimit: { value: 100, currencyCode: "USD" },
            })
            return created.paymentRequestId
          }),
          first,
        )
        const outcomes = yield* Effect.all(
          [
            Effect.provide(AutoCollection.collect(paymentRequestId), first),
            Effect.provide(AutoCollection.collect(paymentRequestId), second),
          ],
          { concurrency: 2 },
        )
        const types = yield* Effect.provide(
          Effect.flatMap(EventStore.EventStore, (store) =>
            store.readStream(Decider.streamId(PaymentRequest.aggregate, paymentRequestId)),
          ),
          first,
        )
        return { outcomes: outcomes.map((outcome) => outcome._tag).sort(), types: types.map((e) => e.eventType) }
      })
      const result = await Effect.runPromise(
        program as Effect.Effect<{ outcomes: Array<string>; types: Array<string> }>,
      )
      assert.deepStrictEqual(result.outcomes, ["Collected", "NothingToDo"])
      assert.deepStrictEqual(result.types, ["PaymentRequestCreated", "PaymentRequestAccepted"])
    },
    60_000,
  )
})
