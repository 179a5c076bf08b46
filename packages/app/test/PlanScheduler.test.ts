/**
 * The payment plan scheduler collects each due date exactly once, even with
 * two service instances (two connection pools, two scheduler fibers polling
 * every 10 ms) racing on one PostgreSQL database.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { PgDatabase } from "@partnerpay/adapters-pg"
import {
  CalendarDate,
  Companies,
  Consents,
  Decider,
  EventStore,
  Ids,
  Money,
  PaymentPlan,
  PaymentPlans,
} from "@partnerpay/domain"
import { Effect, Fiber, Layer } from "effect"
import * as Domain from "../src/Domain.ts"
import * as PlanScheduler from "../src/workers/PlanScheduler.ts"
import { companyBody, freshDatabase, postgresAvailable } from "./support.ts"

const partnerId = Ids.PartnerId.make("0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b")
const payer = { partnerId, registrationId: Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-00000000c0de") }
const bankAccountId = Ids.BankAccountId.make("ba000000-0000-4000-8000-000000000001")

const drops: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const drop of drops) await drop()
})

const instance = (url: string) =>
  Domain.layer.pipe(Layer.provideMerge(PgDatabase.layerPostgres(url, { maxConnections: 4 })))

describe("the payment plan scheduler", () => {
  it.skipIf(!postgresAvailable)(
    "two instances collect today's instalment of an active plan exactly once",
    async () => {
      const db = await freshDatabase()
      drops.push(db.drop)
      const first = instance(db.url)
      const second = instance(db.url)
      const program = Effect.gen(function* () {
        // An active plan, first payment due today.
        const setup = Effect.gen(function* () {
          const company = yield* Companies.register(partnerId, companyBody({ companyReferenceId: "sched-1" }))
          yield* Companies.completeKyb(company.companyId, "Verified")
          const created = yield* PaymentPlans.create({
            partnerId,
            companyId: company.companyId,
            payerRegistrationId: payer.registrationId,
            amount: Money.make(2500, "USD"),
            frequency: "Monthly",
            recurrenceInterval: 1,
            startDate: CalendarDate.fromEpochMillis(Date.now()),
            numberOfPayments: 3,
          })
          yield* Consents.accept(payer, created.consentId, bankAccountId)
          yield* PaymentPlans.activate(partnerId, created.paymentPlanId)
          return created.paymentPlanId
        })
        const paymentPlanId = yield* Effect.provide(setup, first)

        // Two instances race for a while.
        const run = (layer: typeof first) =>
          Effect.forkChild(Layer.launch(PlanScheduler.layer({ pollMillis: 10 }).pipe(Layer.provide(layer))))
        const a = yield* run(first)
        const b = yield* run(second)
        yield* Effect.sleep("2 seconds")
        yield* Fiber.interrupt(a)
        yield* Fiber.interrupt(b)

        const events = yield* Effect.provide(
          Effect.flatMap(EventStore, (store) =>
            store.readStream(Decider.streamId(PaymentPlan.aggregate, paymentPlanId)),
          ),
          first,
        )
        return events.filter((event) => event.eventType === "InstalmentCollected")
      })
      const collected = await Effect.runPromise(program as Effect.Effect<ReadonlyArray<{ data: unknown }>, unknown>)
      assert.strictEqual(collected.length, 1)
      assert.strictEqual((collected[0]!.data as { dueDate: string }).dueDate, new Date().toISOString().slice(0, 10))
    },
    60_000,
  )
})
