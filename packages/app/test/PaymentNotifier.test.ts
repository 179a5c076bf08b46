/**
 * The payment notifier sends each reminder exactly once, even with two
 * service instances (two connection pools, two notifier fibers polling every
 * 10 ms) racing on one PostgreSQL database; and two instances deciding the
 * same reminder at the same instant without the worker's lock still record
 * one reminder (the notice stream's "no stream yet" expectation), though
 * both may send its messages: the worker's claim is what keeps them from it.
 * A notice whose provider is unavailable is not recorded and its claim backs
 * off (the reason kept for the operator).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { PgDatabase } from "@partnerpay/adapters-pg"
import {
  CalendarDate,
  Companies,
  CustomerPreferences,
  Ids,
  Messaging,
  PaymentNotices,
  Payments,
} from "@partnerpay/domain"
import { Fixtures } from "@partnerpay/domain/testing"
import { DateTime, Effect, Fiber, FiberSet, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Config from "../src/config/Config.ts"
import * as Domain from "../src/Domain.ts"
import * as ProviderGuard from "../src/providers/ProviderGuard.ts"
import * as Service from "../src/Service.ts"
import * as SandboxProviders from "../src/sandbox/SandboxProviders.ts"
import * as PaymentNotifier from "../src/workers/PaymentNotifier.ts"
import { companyBody, freshDatabase, postgresAvailable, productionEnvironment } from "./support.ts"

const partnerId = Ids.PartnerId.make("0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b")
const payer = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-00000000c0de")
const phoneNumber = "+14155550123"

const drops: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const drop of drops) await drop()
})

/** One instance: its sandbox senders guarded as the service's are (a send inside a transaction is a defect). */
const instance = (url: string) =>
  ProviderGuard.guarded(SandboxProviders.messaging).pipe(
    Layer.provideMerge(Domain.layer),
    Layer.provideMerge(PgDatabase.layerPostgres(url, { maxConnections: 4 })),
  )

/** A customer with two push tokens and `dueInDays.length` requests, due that many days from today. */
const seed = (dueInDays: ReadonlyArray<number>, reference: string) =>
  Effect.gen(function* () {
    const company = yield* Companies.register(partnerId, companyBody({ companyReferenceId: reference }))
    yield* Companies.completeKyb(company.companyId, "Verified")
    yield* Fixtures.registerCustomer(partnerId, payer, phoneNumber).pipe(Effect.ignore)
    const expireAt = DateTime.add(yield* DateTime.now, { days: 30 })
    for (const token of ["device-a", "device-b"]) {
      yield* CustomerPreferences.registerPushToken(partnerId, payer, { token, expireAt })
    }
    const today = CalendarDate.fromEpochMillis(Date.now())
    const ids: Array<Ids.PaymentRequestId> = []
    for (const [index, days] of dueInDays.entries()) {
      const created = yield* Payments.create({
        partnerId,
        companyId: company.companyId,
        payerRegistrationId: payer,
        amount: { value: 10 + index, currencyCode: "USD" },
        description: `Invoice ${index}`,
        dueDate: CalendarDate.addDays(today, days),
      })
      ids.push(created.paymentRequestId as Ids.PaymentRequestId)
    }
    return ids
  })

/** The messages of `ids`, through the message log (recipients are sealed in the table). */
const messagesOf = (ids: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const log = yield* Messaging.SentMessages
    const page = yield* log.list({ partnerId, registrationId: payer, limit: 100 })
    return page.items
      .filter((m) => m.paymentRequestId !== undefined && ids.includes(m.paymentRequestId))
      .map((m) => `${m.paymentRequestId} ${m.template} ${m.channel} ${m.to}`)
      .sort()
  })

/**
 * The reminders recorded, read from the events table itself: the event store's `readAll` only
 * returns events older than every transaction running on the server, and other test files keep
 * transactions running on the shared server.
 */
const remindersRecorded = Effect.gen(function* () {
  const sql = yield* SqlClient
  return yield* sql<{ readonly stream_id: string }>`
    SELECT stream_id FROM events WHERE event_type = 'PaymentReminderSent'`
})

const expected = (ids: ReadonlyArray<string>, templates: ReadonlyArray<string>) =>
  ids
    .flatMap((id, index) => {
      const template = templates[index]!
      return [`sms ${phoneNumber}`, "push device-a", "push device-b"].map((to) => `${id} ${template} ${to}`)
    })
    .sort()

describe("the payment notifier", () => {
  it.skipIf(!postgresAvailable)(
    "two instances send each reminder once: one SMS and one push per token, never twice",
    async () => {
      const db = await freshDatabase()
      drops.push(db.drop)
      const first = instance(db.url)
      const second = instance(db.url)
      const program = Effect.gen(function* () {
        const dueIn = [3, 3, 3, 3, 0, 0, 0]
        const ids = yield* Effect.provide(seed(dueIn, "notify-1"), first)
        const run = (layer: typeof first) =>
          Effect.forkChild(
            Layer.launch(PaymentNotifier.layer({ reminderDays: [3, 0], pollMillis: 10 }).pipe(Layer.provide(layer))),
          )
        const a = yield* run(first)
        const b = yield* run(second)
        // Until all 7 are recorded (a busy machine may take a while), then a little longer to see no duplicate.
        for (let waited = 0; waited < 30_000; waited += 100) {
          if ((yield* Effect.provide(remindersRecorded, first)).length >= dueIn.length) break
          yield* Effect.sleep("100 millis")
        }
        yield* Effect.sleep("500 millis")
        yield* Fiber.interrupt(a)
        yield* Fiber.interrupt(b)
        const messages = yield* Effect.provide(messagesOf(ids), first)
        const reminders = yield* Effect.provide(remindersRecorded, first)
        const templates = dueIn.map((days) => (days === 0 ? "PaymentDueToday" : "PaymentDueSoon"))
        return { messages, reminders: reminders.length, wanted: expected(ids, templates) }
      })
      const result = await Effect.runPromise(
        Effect.scoped(program) as Effect.Effect<{
          messages: Array<string>
          reminders: number
          wanted: Array<string>
        }>,
      )
      assert.strictEqual(result.reminders, 7)
      assert.deepStrictEqual(result.messages, result.wanted)
    },
    60_000,
  )

  it.skipIf(!postgresAvailable)(
    "two instances sending the same reminder at once, without the worker's claim, record it once (messages at least once)",
    async () => {
      const db = await freshDatabase()
      drops.push(db.drop)
      const first = instance(db.url)
      const second = instance(db.url)
      const program = Effect.gen(function* () {
        const ids = yield* Effect.provide(seed([3, 0], "notify-2"), first)
        for (const id of ids) {
          yield* Effect.all(
            [
              Effect.provide(PaymentNotices.remind(id, [3, 0]), first),
              Effect.provide(PaymentNotices.remind(id, [3, 0]), second),
            ],
            { concurrency: 2 },
          )
        }
        return {
          messages: yield* Effect.provide(messagesOf(ids), first),
          reminders: (yield* Effect.provide(remindersRecorded, first)).length,
          wanted: expected(ids, ["PaymentDueSoon", "PaymentDueToday"]),
        }
      })
      const result = await Effect.runPromise(
        Effect.scoped(program) as Effect.Effect<{
          messages: Array<string>
          reminders: number
          wanted: Array<string>
        }>,
      )
      assert.strictEqual(result.reminders, 2)
      // Without the claim both may send (delivery is at least once); every message went out.
      assert.deepStrictEqual([...new Set(result.messages)].sort(), result.wanted)
    },
    60_000,
  )
})

describe("a notice whose provider is unavailable", () => {
  it.skipIf(!postgresAvailable)(
    "is not recorded: its claim backs off with the reason, and the next round leaves it alone",
    async () => {
      const db = await freshDatabase()
      drops.push(db.drop)
      const first = instance(db.url)
      const program = Effect.gen(function* () {
        yield* seed([0], "notify-3")
        const expireAt = DateTime.add(yield* DateTime.now, { days: 30 })
        yield* CustomerPreferences.registerPushToken(partnerId, payer, { token: "device-unavailable", expireAt })
        const sending = yield* PaymentNotifier.makeSending
        const options = { reminderDays: [3, 0] }
        const firstRound = yield* PaymentNotifier.step(options, sending)
        yield* FiberSet.awaitEmpty(sending.fibers)
        const secondRound = yield* PaymentNotifier.step(options, sending)
        const sql = yield* SqlClient
        const claims = yield* sql<{ readonly attempts: number; readonly last_error: string; readonly later: boolean }>`
          SELECT attempts, last_error, not_before > now() AS later FROM work_claims WHERE kind = ${PaymentNotifier.claimKind}`
        return { firstRound, secondRound, claims, reminders: (yield* remindersRecorded).length }
      })
      const result = await Effect.runPromise(
        Effect.scoped(Effect.provide(program, first)) as Effect.Effect<{
          firstRound: number
          secondRound: number
          claims: ReadonlyArray<{ attempts: number; last_error: string; later: boolean }>
          reminders: number
        }>,
      )
      assert.strictEqual(result.firstRound, 1)
      assert.strictEqual(result.secondRound, 0)
      assert.deepStrictEqual(result.claims, [{ attempts: 1, last_error: "ProviderUnavailable", later: true }])
      assert.strictEqual(result.reminders, 0)
    },
    60_000,
  )
})

describe("where the payment notifier runs", () => {
  it.effect("in both environments: production sends through the channels' providers", () =>
    Effect.gen(function* () {
      const sandbox = yield* Config.fromRecord({})
      const production = yield* Config.fromRecord(productionEnvironment())
      assert.include(Service.workerNames(sandbox), "payment-notifier")
      assert.include(Service.workerNames(production), "payment-notifier")
    }),
  )
})
