/**
 * The payment plan scheduler collects each due date exactly once, even with
 * two service instances (two connection pools, two scheduler fibers polling
 * every 10 ms) racing on one PostgreSQL database, and each collection is one
 * transfer. A consent revoked while a collection runs never yields a transfer
 * after the revocation.
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
import { Fixtures } from "@partnerpay/domain/testing"
import { Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
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

/** A verified company, and the payer: a customer of the partner with a linked bank account. */
const companyAndPayer = Effect.fnUntraced(function* (companyReferenceId: string) {
  const company = yield* Companies.register(partnerId, companyBody({ companyReferenceId }))
  yield* Companies.completeKyb(company.companyId, "Verified")
  yield* Fixtures.registerVerifiedCustomer(partnerId, payer.registrationId, bankAccountId)
  return company.companyId
})

/** A monthly plan of three 25 USD payments, the first due today, consented to by the payer and active. */
const activePlan = Effect.fnUntraced(function* (companyId: Ids.CompanyId) {
  const created = yield* PaymentPlans.create({
    partnerId,
    companyId,
    payerRegistrationId: payer.registrationId,
    amount: Money.make(2500, "USD"),
    frequency: "Monthly",
    recurrenceInterval: 1,
    startDate: CalendarDate.fromEpochMillis(Date.now()),
    numberOfPayments: 3,
  })
  yield* Consents.accept(payer, created.consentId, bankAccountId)
  yield* PaymentPlans.activate(partnerId, created.paymentPlanId)
  return created
})

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
        const setup = Effect.flatMap(companyAndPayer("sched-1"), activePlan)
        const { paymentPlanId } = yield* Effect.provide(setup, first)

        // Two instances race for a while.
        const run = (layer: typeof first) =>
          Effect.forkChild(Layer.launch(PlanScheduler.layer({ pollMillis: 10 }).pipe(Layer.provide(layer))))
        const a = yield* run(first)
        const b = yield* run(second)
        yield* Effect.sleep("2 seconds")
        yield* Fiber.interrupt(a)
        yield* Fiber.interrupt(b)

        const events = yield* Effect.provide(
          Effect.flatMap(EventStore.EventStore, (store) =>
            store.readStream(Decider.streamId(PaymentPlan.aggregate, paymentPlanId)),
          ),
          first,
        )
        // The events table itself: the global log's readers stop below the oldest transaction running anywhere.
        const transfers = yield* Effect.provide(
          Effect.flatMap(
            SqlClient,
            (sql) => sql<{ data: unknown }>`SELECT data FROM events WHERE event_type = 'TransferInitiated'`,
          ),
          first,
        )
        return {
          collected: events.filter((event) => event.eventType === "InstalmentCollected"),
          transfers,
        }
      })
      const { collected, transfers } = await Effect.runPromise(
        program as Effect.Effect<
          { collected: ReadonlyArray<{ data: unknown }>; transfers: ReadonlyArray<{ data: unknown }> },
          unknown
        >,
      )
      assert.strictEqual(collected.length, 1)
      assert.strictEqual((collected[0]!.data as { dueDate: string }).dueDate, new Date().toISOString().slice(0, 10))
      // One collection, one transfer: the one the instalment names.
      assert.deepStrictEqual(
        transfers.map((event) => (event.data as { transferId: string }).transferId),
        [(collected[0]!.data as { transferId: string }).transferId],
      )
    },
    60_000,
  )
})

describe("a consent revoked while its plan's instalment is collected", () => {
  const rounds = 15

  it.skipIf(!postgresAvailable)(
    `never yields a transfer after the revocation (${rounds} races of revoke and collect)`,
    async () => {
      const db = await freshDatabase()
      drops.push(db.drop)
      const layer = instance(db.url)
      const program = Effect.gen(function* () {
        const companyId = yield* companyAndPayer("race-1")
        for (let round = 0; round < rounds; round++) {
          const created = yield* activePlan(companyId)
          // Revoke and collect at once; either may lose the race (a conflict), never both win against each other.
          yield* Effect.all(
            [
              // The revocation starts 0 to 24 ms after the collection, so either may commit first.
              Effect.result(
                Effect.andThen(Effect.sleep(`${(round % 4) * 8} millis`), Consents.decline(payer, created.consentId)),
              ),
              Effect.result(PaymentPlans.collectDue(created.paymentPlanId)),
            ],
            { concurrency: 2 },
          )
        }
        // Read from the events table itself: the global log's readers stop below the oldest transaction
        // running anywhere on the server. Each transfer of a plan, with the instalment that names it and
        // the plan's withdrawal, if any (positions in the plan's stream give the order of the two writers).
        const sql = yield* SqlClient
        const transfers = yield* sql<{
          plan: string
          same_unit: boolean | null
          collected_at: number | null
          withdrawn_at: number | null
        }>`
          SELECT t.data ->> 'paymentPlanId' AS plan, t.transaction_id = c.transaction_id AS same_unit,
                 c.stream_version AS collected_at, w.stream_version AS withdrawn_at
          FROM events t
          LEFT JOIN events c ON c.event_type = 'InstalmentCollected' AND c.data ->> 'transferId' = t.data ->> 'transferId'
          LEFT JOIN events w ON w.event_type = 'PaymentPlanConsentWithdrawn' AND w.stream_id = c.stream_id
          WHERE t.event_type = 'TransferInitiated'`
        const counts = yield* sql<{ event_type: string; count: string }>`
          SELECT event_type, count(*) AS count FROM events
          WHERE event_type IN ('InstalmentCollected', 'TransferInitiated', 'ConsentRevoked')
          GROUP BY event_type`
        return { transfers, counts: Object.fromEntries(counts.map((row) => [row.event_type, Number(row.count)])) }
      })
      const { transfers, counts } = await Effect.runPromise(
        Effect.provide(program, layer) as Effect.Effect<
          {
            transfers: ReadonlyArray<{
              plan: string
              same_unit: boolean | null
              collected_at: number | null
              withdrawn_at: number | null
            }>
            counts: Record<string, number>
          },
          unknown
        >,
      )
      // Every consent was revoked; each collection is exactly one transfer, recorded in the same unit.
      assert.strictEqual(counts.ConsentRevoked, rounds)
      assert.strictEqual(counts.TransferInitiated ?? 0, counts.InstalmentCollected ?? 0)
      // No transfer after the revocation: each transfer's instalment precedes the plan's withdrawal.
      const late = transfers.filter(
        (t) =>
          t.same_unit !== true ||
          t.collected_at === null ||
          (t.withdrawn_at !== null && Number(t.withdrawn_at) < Number(t.collected_at)),
      )
      assert.deepStrictEqual(late, [])
    },
    120_000,
  )
})
