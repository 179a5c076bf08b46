/**
 * The recurring-charity scheduler collects a due recurring gift exactly once, even with two service
 * instances (two connection pools, two scheduler fibers polling every 10 ms) racing on one
 * PostgreSQL database: one collection, one transfer. No fixed wait: the test waits for the collection,
 * then for further scheduler rounds (`partnerpay_worker_runs_total`), however slow the machine.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { PgDatabase } from "@partnerpay/adapters-pg"
import { CharityTransaction, CommandHandler, Companies, Decider, EventStore, Ids, Money } from "@partnerpay/domain"
import { Fixtures } from "@partnerpay/domain/testing"
import { DateTime, Effect, Fiber, Layer, Metric } from "effect"
import * as Domain from "../src/Domain.ts"
import * as RecurringCharityScheduler from "../src/workers/RecurringCharityScheduler.ts"
import { companyBody, freshDatabase, postgresAvailable } from "./support.ts"

const partnerId = Ids.PartnerId.make("0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b")
const donor = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-0000000c0c0c")
const checking = Ids.BankAccountId.make("ba000000-0000-4000-8000-0000000c0c01")
const giftId = CharityTransaction.CharityTransactionId.make("c1f70000-0000-4000-8000-0000000c0c02")

const drops: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const drop of drops) await drop()
})

/** The scheduler rounds that found nothing to do, across the instances of this process. */
const idleRounds = Effect.map(Metric.snapshot, (metrics) => {
  let rounds = 0
  for (const metric of metrics)
    if (
      metric.type === "Counter" &&
      metric.id === "partnerpay_worker_runs_total" &&
      metric.attributes?.worker === RecurringCharityScheduler.name &&
      metric.attributes?.outcome === "idle"
    )
      rounds += Number(metric.state.count)
  return rounds
})

/** The gift's event types and the transfers initiated, as the event store has them. */
const readOutcome = Effect.gen(function* () {
  const store = yield* EventStore.EventStore
  const gift = yield* store.readStream(Decider.streamId(CharityTransaction.aggregate, giftId))
  const all = yield* store.readAll({ after: 0, limit: 1000 })
  return {
    types: gift.map((event) => event.eventType),
    transfers: all.filter((event) => event.eventType === "TransferInitiated").length,
  }
})

/** Polls `read` (every 20 ms of real time) until `check` holds. */
const until = <A, E, R>(read: Effect.Effect<A, E, R>, check: (value: A) => boolean) =>
  Effect.gen(function* () {
    while (true) {
      const value = yield* read
      if (check(value)) return value
      yield* Effect.sleep("20 millis")
    }
  })

const instance = (url: string) =>
  Domain.layer.pipe(Layer.provideMerge(PgDatabase.layerPostgres(url, { maxConnections: 4 })))

describe("the recurring-charity scheduler", () => {
  it.skipIf(!postgresAvailable)(
    "two instances collect a recurring gift due today exactly once",
    async () => {
      const db = await freshDatabase()
      drops.push(db.drop)
      const first = instance(db.url)
      const second = instance(db.url)
      const program = Effect.gen(function* () {
        const context = yield* Layer.build(first)
        yield* Effect.provide(
          Effect.gen(function* () {
            const company = yield* Companies.register(partnerId, companyBody({ companyReferenceId: "charity-1" }))
            yield* Companies.completeKyb(company.companyId, "Verified")
            yield* Fixtures.registerVerifiedCustomer(partnerId, donor, checking)
            // A gift first collected 40 days ago: its next due date has come.
            const at = DateTime.subtract(yield* DateTime.now, { days: 40 })
            yield* CommandHandler.handle(CharityTransaction.aggregate, giftId, {
              _tag: "CreateAnonymousCharityTransaction",
              charityTransactionId: giftId,
              partnerId,
              verificationId: Ids.VerificationId.make(Fixtures.kycReferenceId),
              companyId: company.companyId,
              amount: Money.make(2500, "USD"),
              isRecurring: true,
              payerCoversFee: true,
              payerRegistrationId: donor,
              bankAccountId: checking,
              at,
            })
          }),
          context,
        )
        const run = <E>(layer: Layer.Layer<Layer.Success<typeof first>, E>) =>
          Effect.forkChild(Layer.launch(RecurringCharityScheduler.layer({ pollMillis: 10 }).pipe(Layer.provide(layer))))
        // Both instances ready before either scheduler starts, so that they race from their first round.
        const other = yield* Layer.build(second)
        const a = yield* run(Layer.succeedContext(context))
        const b = yield* run(Layer.succeedContext(other))
        // The gift is collected (by either instance)...
        yield* until(Effect.provide(readOutcome, context), (now) => now.types.length > 1)
        // ...and both schedulers go on polling it: twenty more rounds find it collected for this due date.
        const after = yield* idleRounds
        yield* until(idleRounds, (rounds) => rounds >= after + 20)
        yield* Fiber.interrupt(a)
        yield* Fiber.interrupt(b)
        return yield* Effect.provide(readOutcome, context)
      }).pipe(Effect.scoped)
      const outcome = await Effect.runPromise(program as Effect.Effect<{ types: Array<string>; transfers: number }>)
      assert.deepStrictEqual(outcome.types, ["AnonymousCharityTransactionCreated", "RecurringCharityGiftCollected"])
      assert.strictEqual(outcome.transfers, 1)
    },
    60_000,
  )
})
