/**
 * The domain stack on PostgreSQL (PgDomain.layer) on PGlite and PostgreSQL
 * (fresh schema each): units of work with several appends commit or roll back
 * as one; a failing projection rolls its append back; the pipeline's outbox
 * rows; the outbox dispatch rules (idempotent record, per-partner order,
 * leases, concurrent claimers); and "a rebuilt read model equals the live one"
 * over generated use-case histories.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  Attachments,
  type CalendarDate,
  Companies,
  Consents,
  IdGenerator,
  type Ids,
  Outbox,
  PaymentPlans,
  Payments,
  ReadModel,
  Transfers,
  UnitOfWork,
} from "@partnerpay/domain"
import { Fixtures, PropertyParams } from "@partnerpay/domain/testing"
import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Statement from "effect/sql/Statement"
import fc from "fast-check"
import * as PgAttachments from "../src/PgAttachments.ts"
import * as PgDomain from "../src/PgDomain.ts"
import { OutboxDispatch } from "../src/PgOutbox.ts"
import { databases } from "./readSideSupport.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(2026112604)

const partnerA = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b" as Ids.PartnerId
const partnerB = "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f" as Ids.PartnerId

/** A valid company registration body (spec 2.2) with the reference `companyReferenceId`. */
const body = (companyReferenceId: string) => Fixtures.companyRegistrationBody({ companyReferenceId })

type Services = PgDomain.Services | IdGenerator.IdGenerator | SqlClient

const notification = (partnerId: string, position: number, id = crypto.randomUUID()): Outbox.Webhook => ({
  id,
  partnerId,
  eventType: "TEST_EVENT",
  data: { Position: position },
  position,
})

/**
 * Waits until every outbox row was recorded by a transaction older than every running one: the
 * claim's horizon (PgOutbox.ts), below which a row may be claimed. The PostgreSQL server is shared
 * with the other test files, and any transaction of theirs running when a row was recorded holds
 * the horizon back until it ends: a claim right after `record` could find nothing (the rows are
 * not claimable YET, by design). Once past the horizon, a row stays past it (every later
 * transaction is younger). PGlite has no other session: it returns at once.
 */
const pastHorizon = Effect.gen(function* () {
  const sql = yield* SqlClient
  for (;;) {
    const rows = yield* sql<{ held: boolean }>`
      SELECT EXISTS (SELECT 1 FROM outbox WHERE transaction_id >= pg_snapshot_xmin(pg_current_snapshot())) AS held`
    if (rows[0]?.held !== true) return
    yield* Effect.sleep(20)
  }
})

const eventCount = Effect.flatMap(SqlClient, (sql) =>
  Effect.map(sql<{ n: number }>`SELECT count(*)::int AS n FROM events`, (rows) => rows[0]?.n ?? 0),
)

const readModelRows = Effect.flatMap(
  SqlClient,
  (sql) =>
    sql<{ collection: string; id: string; partner_id: string; keys: unknown; sort_key: string; data: unknown }>`
      SELECT collection, id, partner_id, keys, sort_key, data FROM read_models ORDER BY collection, id`,
)

for (const database of databases) {
  describe(`the domain on ${database.name}`, () => {
    const layer = Layer.mergeAll(PgDomain.layer(), IdGenerator.IdGenerator.layerRandom).pipe(
      Layer.provideMerge(database.layer()),
    )

    // The real clock (no test services): registration checks the owner's age, outbox leases expire.
    it.layer(layer, { timeout: 120_000, excludeTestServices: true })((it) => {
      it.effect(
        "a unit of work with two appends (reference + company) commits both, with their read model",
        () =>
          Effect.gen(function* () {
            const before = yield* eventCount
            const reference = `ref-${crypto.randomUUID()}`
            const registered = yield* Companies.register(partnerA, body(reference))
            const sql = yield* SqlClient
            const streams = yield* sql<{ stream_type: string }>`
            SELECT DISTINCT stream_type FROM events WHERE stream_id LIKE ${`%${reference}%`} OR stream_id LIKE ${`%${registered.companyId}%`}
            ORDER BY stream_type`
            assert.deepStrictEqual(
              streams.map((s) => s.stream_type),
              ["Company", "CompanyReference"],
            )
            assert.isAbove(yield* eventCount, before + 1)
            const found = yield* Companies.findByReference(partnerA, reference)
            assert.strictEqual(found.companyId, registered.companyId)
          }),
        60_000,
      )

      it.effect(
        "a unit of work that fails after two appends rolls both back, read models included",
        () =>
          Effect.gen(function* () {
            const before = yield* eventCount
            const reference = `ref-${crypto.randomUUID()}`
            const failed = yield* Effect.flip(
              UnitOfWork.transactional(
                Effect.andThen(Companies.register(partnerA, body(reference)), Effect.fail("boom" as const)),
              ),
            )
            assert.strictEqual(failed, "boom")
            // The same reference twice in one unit: the second is refused and the first is undone too.
            const twice = `ref-${crypto.randomUUID()}`
            const refused = yield* Effect.flip(
              UnitOfWork.transactional(
                Effect.andThen(Companies.register(partnerA, body(twice)), Companies.register(partnerA, body(twice))),
              ),
            )
            assert.strictEqual(refused._tag, "AlreadyExists")
            assert.strictEqual(yield* eventCount, before)
            const store = yield* ReadModel.ReadModelStore
            for (const ref of [reference, twice]) {
              const page = yield* store.find("companies", {
                partnerId: partnerA,
                keys: { companyReferenceId: ref },
                limit: 1,
              })
              assert.strictEqual(page.items.length, 0)
            }
            // Nothing was left locked: a later unit appends fine.
            yield* Companies.register(partnerA, body(twice))
          }),
        60_000,
      )

      it.effect(
        "a failing projection rolls its append back; a successful KYB records one webhook in the outbox",
        () =>
          Effect.gen(function* () {
            const sql = yield* SqlClient
            const bad = yield* Companies.register(partnerA, body(`ref-${crypto.randomUUID()}`))
            yield* sql`UPDATE read_models SET data = '{"corrupt":true}'::jsonb WHERE collection = 'companies' AND id = ${bad.companyId}`
            const before = yield* eventCount
            const error = yield* Effect.flip(Companies.completeKyb(bad.companyId, "Verified"))
            assert.strictEqual(error._tag, "EventStoreUnavailable")
            assert.strictEqual(yield* eventCount, before)
            const none = yield* sql`SELECT id FROM outbox WHERE data ->> 'CompanyId' = ${bad.companyId}`
            assert.strictEqual(none.length, 0)
            // Rebuilding repairs the corrupt document; then the verdict goes through.
            yield* PgDomain.rebuildProjections()
            yield* Companies.completeKyb(bad.companyId, "Verified")
            assert.strictEqual(yield* eventCount, before + 1)

            const good = yield* Companies.register(partnerB, body(`ref-${crypto.randomUUID()}`))
            yield* Companies.completeKyb(good.companyId, "Verified")
            const rows = yield* sql<{ partner_id: string; event_type: string; status: string; data: unknown }>`
            SELECT partner_id, event_type, status, data FROM outbox WHERE data ->> 'CompanyId' = ${good.companyId}`
            assert.strictEqual(rows.length, 1)
            assert.strictEqual(rows[0]?.partner_id, partnerB)
            assert.strictEqual(rows[0]?.event_type, "COMPANY_VERIFICATION_STATUS_CHANGED")
            assert.strictEqual(rows[0]?.status, "pending")
          }),
        60_000,
      )

      it.effect(
        "a notification takes the global position of the event that caused it, recorded in the same unit",
        () =>
          Effect.gen(function* () {
            const sql = yield* SqlClient
            const company = yield* Companies.register(partnerB, body(`ref-${crypto.randomUUID()}`))
            yield* Companies.completeKyb(company.companyId, "Verified")
            const rows = yield* sql<{ outbox_position: string; event_position: string }>`
            SELECT o.position::text AS outbox_position, e.global_position::text AS event_position
            FROM outbox o JOIN events e ON e.event_id = o.id::uuid
            WHERE o.data ->> 'CompanyId' = ${company.companyId}`
            assert.strictEqual(rows.length, 1)
            assert.notStrictEqual(rows[0]?.event_position, "0")
            assert.strictEqual(rows[0]?.outbox_position, rows[0]?.event_position)
          }),
        60_000,
      )

      it.effect(
        "outbox: record is idempotent by id; claims keep each partner's order; failures retry then give up",
        () =>
          Effect.gen(function* () {
            const outbox = yield* Outbox.Outbox
            const dispatch = yield* OutboxDispatch
            const sql = yield* SqlClient
            // Start from an empty outbox (earlier tests of this suite left rows).
            yield* sql`DELETE FROM outbox`
            const p = crypto.randomUUID()
            const q = crypto.randomUUID()
            const [p1, p2, p3] = [notification(p, 10), notification(p, 11), notification(p, 12)]
            const q1 = notification(q, 5)
            yield* outbox.record([p2, p1, q1])
            yield* outbox.record([p1, { ...p3 }, { ...p1, data: { changed: true } }])
            yield* pastHorizon
            const all = yield* dispatch.list({ limit: 100 })
            assert.deepStrictEqual(
              all.map((e) => e.id),
              [p3.id, p2.id, p1.id, q1.id],
            )
            assert.deepStrictEqual(all.find((e) => e.id === p1.id)?.data, p1.data)

            // One row per partner at a time, the earliest first.
            const first = yield* dispatch.claim({ workerId: "w1", limit: 10, leaseMs: 60_000 })
            assert.deepStrictEqual(
              first.map((e) => e.id),
              [q1.id, p1.id],
            )
            assert.isTrue(first.every((e) => e.status === "delivering" && e.attempts === 1 && e.claimedBy === "w1"))
            assert.strictEqual((yield* dispatch.claim({ workerId: "w2", limit: 10, leaseMs: 60_000 })).length, 0)
            yield* dispatch.markDelivered(p1.id)
            yield* dispatch.markDelivered(q1.id)
            const second = yield* dispatch.claim({ workerId: "w2", limit: 10, leaseMs: 60_000 })
            assert.deepStrictEqual(
              second.map((e) => e.id),
              [p2.id],
            )
            // A failed attempt retried later still blocks the partner's next row.
            yield* dispatch.markFailedAttempt(p2.id, "HTTP 500", DateTime.makeUnsafe(Date.now() + 60_000))
            assert.strictEqual((yield* dispatch.claim({ workerId: "w2", limit: 10, leaseMs: 60_000 })).length, 0)
            const retrying = (yield* dispatch.list({ status: "pending", limit: 10 })).find((e) => e.id === p2.id)
            assert.strictEqual(retrying?.lastError, "HTTP 500")
            // Giving up releases the next row.
            yield* dispatch.markFailedAttempt(p2.id, "HTTP 500", "give up")
            const third = yield* dispatch.claim({ workerId: "w2", limit: 10, leaseMs: 60_000 })
            assert.deepStrictEqual(
              third.map((e) => e.id),
              [p3.id],
            )
            yield* dispatch.markDelivered(p3.id)
            assert.deepStrictEqual(
              (yield* dispatch.list({ status: "failed", limit: 10 })).map((e) => e.id),
              [p2.id],
            )
            // An operator redelivers the failed row: due again, attempts kept.
            assert.isTrue(yield* dispatch.redeliver(p2.id))
            assert.isFalse(yield* dispatch.redeliver(crypto.randomUUID()))
            const again = yield* dispatch.claim({ workerId: "w3", limit: 10, leaseMs: 60_000 })
            assert.deepStrictEqual(
              again.map((e) => [e.id, e.attempts]),
              [[p2.id, 2]],
            )
          }),
        60_000,
      )

      it.effect(
        "PUT /Payment/{id}/Cancel's use case sends two statements: one read (the request's stream and documents), one commit",
        () =>
          Effect.gen(function* () {
            const { companyId } = yield* Companies.register(partnerA, body(`ref-${crypto.randomUUID()}`))
            yield* Fixtures.verifyCompany(companyId)
            const payer = crypto.randomUUID() as Ids.RegistrationId
            yield* Fixtures.registerCustomer(partnerA, payer)
            const today = DateTime.formatIsoDateUtc(yield* DateTime.now)
            const { paymentRequestId } = yield* Payments.create({
              partnerId: partnerA,
              companyId,
              payerRegistrationId: payer,
              amount: { value: 12.5, currencyCode: "USD" },
              description: "Invoice 7",
              dueDate: today as CalendarDate.CalendarDate,
            })
            const sent: Array<string> = []
            const counting: Statement.Transformer = (statement) =>
              Effect.sync(() => {
                sent.push(statement.compile()[0].replace(/\s+/g, " ").trim())
                return statement
              })
            yield* Payments.cancel(partnerA, paymentRequestId).pipe(
              Effect.provideService(Statement.CurrentTransformer, counting),
            )
            assert.deepStrictEqual(
              sent.map((text) =>
                /FROM events.*FROM read_models/.test(text) ? "events and documents" : /commit_unit/.exec(text)?.[0],
              ),
              ["events and documents", "commit_unit"],
            )
            assert.strictEqual((yield* Payments.get(partnerA, paymentRequestId)).status, "Cancelled")
          }),
        60_000,
      )

      it.effect(
        "PUT /Transaction/{id}/Accept's use case sends five statements: one read per stream it needs (the request's once), one commit",
        () =>
          Effect.gen(function* () {
            const { companyId } = yield* Companies.register(partnerA, body(`ref-${crypto.randomUUID()}`))
            yield* Fixtures.verifyCompany(companyId)
            const payer = crypto.randomUUID() as Ids.RegistrationId
            const bankAccountId = crypto.randomUUID() as Ids.BankAccountId
            yield* Fixtures.registerVerifiedCustomer(partnerA, payer, bankAccountId)
            const today = DateTime.formatIsoDateUtc(yield* DateTime.now)
            const { paymentRequestId } = yield* Payments.create({
              partnerId: partnerA,
              companyId,
              payerRegistrationId: payer,
              amount: { value: 12.5, currencyCode: "USD" },
              description: "Invoice 8",
              dueDate: today as CalendarDate.CalendarDate,
            })
            // Each statement named by what it reads (the stream type of its first parameter) or "commit_unit".
            const sent: Array<string> = []
            const counting: Statement.Transformer = (statement) =>
              Effect.sync(() => {
                const [text, params] = statement.compile()
                const stream = /FROM events/.test(text) ? String(params[0]).split("-")[0] : undefined
                sent.push(stream ?? /commit_unit/.exec(text)?.[0] ?? text.replace(/\s+/g, " ").trim())
                return statement
              })
            const accepted = yield* Payments.accept({
              partnerId: partnerA,
              registrationId: payer,
              paymentRequestId,
              bankAccountId,
              acceptDebitAuth: false,
              transferDescription: "",
            }).pipe(Effect.provideService(Statement.CurrentTransformer, counting))
            assert.strictEqual(accepted.status, "Accepted")
            // The request's stream read once (with its documents), the payer's, the company's and the
            // partner's fees once each; the transfer's stream is new (not read); one commit records all.
            assert.deepStrictEqual(sent, ["PaymentRequest", "Customer", "Company", "PartnerFees", "commit_unit"])
            const transferId = (yield* Payments.get(partnerA, paymentRequestId)).transferId
            assert.isDefined(transferId)
          }),
        60_000,
      )

      it.effect(
        "the two reads of the read targets send one statement each: GET /company/status and GET /Transaction/{id} (a transfer paying a request)",
        () =>
          Effect.gen(function* () {
            const { companyId } = yield* Companies.register(partnerA, body(`ref-${crypto.randomUUID()}`))
            yield* Fixtures.verifyCompany(companyId)
            const payer = crypto.randomUUID() as Ids.RegistrationId
            const bankAccountId = crypto.randomUUID() as Ids.BankAccountId
            yield* Fixtures.registerVerifiedCustomer(partnerA, payer, bankAccountId)
            // As Fixtures.acceptedPaymentRequest, due today (this suite runs on the real clock).
            const { paymentRequestId } = yield* Payments.create({
              partnerId: partnerA,
              companyId,
              payerRegistrationId: payer,
              amount: { value: 125.5, currencyCode: "USD" },
              description: "Invoice 42",
              dueDate: DateTime.formatIsoDateUtc(yield* DateTime.now) as CalendarDate.CalendarDate,
            })
            yield* Payments.accept({
              partnerId: partnerA,
              registrationId: payer,
              paymentRequestId,
              bankAccountId,
              acceptDebitAuth: false,
              transferDescription: "",
            })
            const transferId = (yield* Payments.get(partnerA, paymentRequestId)).transferId as string
            const sent: Array<string> = []
            const counting: Statement.Transformer = (statement) =>
              Effect.sync(() => {
                sent.push(statement.compile()[0].replace(/\s+/g, " ").trim())
                return statement
              })
            const counted = <A, E, R>(read: Effect.Effect<A, E, R>) =>
              Effect.gen(function* () {
                sent.length = 0
                yield* read.pipe(Effect.provideService(Statement.CurrentTransformer, counting))
                return sent.map((text) => (/FROM read_models/.test(text) ? "read model" : text))
              })
            // CompanyLive.status
            assert.deepStrictEqual(yield* counted(Companies.status(partnerA, { companyId })), ["read model"])
            // TransactionLive.get: the transfer, its invoice (recorded on it) and its attachments (none recorded).
            const caller = { _tag: "Partner", partnerId: partnerA } as const
            const transaction = Effect.gen(function* () {
              const doc = yield* Transfers.get(caller, transferId)
              yield* Payments.invoiceOf(partnerA, doc)
              return yield* Attachments.namedOnTransfer(partnerA, doc.paymentRequestId, doc.attachments)
            }).pipe(Effect.provide(PgAttachments.layer))
            assert.deepStrictEqual(yield* counted(transaction), ["read model"])
          }),
        60_000,
      )

      it.effect(
        "outbox: a lease that expires (the worker died) makes the row claimable again",
        () =>
          Effect.gen(function* () {
            const outbox = yield* Outbox.Outbox
            const dispatch = yield* OutboxDispatch
            const sql = yield* SqlClient
            yield* sql`DELETE FROM outbox`
            const row = notification(crypto.randomUUID(), 1)
            yield* outbox.record([row])
            yield* pastHorizon
            const leased = yield* dispatch.claim({ workerId: "dies", limit: 1, leaseMs: 60_000 })
            assert.strictEqual(leased.length, 1)
            assert.strictEqual((yield* dispatch.claim({ workerId: "other", limit: 1, leaseMs: 60_000 })).length, 0)
            // The lease runs out (moved into the past rather than waited for: no race with a slow machine).
            yield* sql`UPDATE outbox SET claimed_until = now() - interval '1 second' WHERE id = ${row.id}`
            const reclaimed = yield* dispatch.claim({ workerId: "other", limit: 1, leaseMs: 60_000 })
            assert.deepStrictEqual(
              reclaimed.map((e) => [e.id, e.claimedBy, e.attempts]),
              [[row.id, "other", 2]],
            )
          }),
        60_000,
      )

      it.effect(
        "outbox: concurrent claimers never claim the same row, and all rows get claimed in per-partner order",
        () =>
          Effect.gen(function* () {
            const outbox = yield* Outbox.Outbox
            const dispatch = yield* OutboxDispatch
            const sql = yield* SqlClient
            yield* sql`DELETE FROM outbox`
            const partners = Array.from({ length: 6 }, () => crypto.randomUUID())
            const rows = partners.flatMap((p, i) =>
              Array.from({ length: 5 }, (_, k) => notification(p, 100 + k * 10 + i)),
            )
            yield* outbox.record(rows)
            yield* pastHorizon
            const claimed: Array<{ id: string; partnerId: string; position: number }> = []
            const worker = (w: number) =>
              Effect.gen(function* () {
                for (let round = 0; round < 200 && claimed.length < rows.length; round++) {
                  const batch = yield* dispatch.claim({ workerId: `w${w}`, limit: 3, leaseMs: 60_000 })
                  for (const entry of batch) {
                    claimed.push(entry)
                    yield* dispatch.markDelivered(entry.id)
                  }
                  if (batch.length === 0) yield* Effect.sleep(1)
                }
              })
            yield* Effect.all(
              Array.from({ length: 4 }, (_, w) => worker(w)),
              { concurrency: "unbounded" },
            )
            assert.strictEqual(claimed.length, rows.length)
            assert.strictEqual(new Set(claimed.map((c) => c.id)).size, rows.length)
            for (const p of partners) {
              const positions = claimed.filter((c) => c.partnerId === p).map((c) => c.position)
              assert.deepStrictEqual(
                positions,
                [...positions].sort((a, b) => a - b),
              )
            }
          }),
        60_000,
      )

      it.effect(
        "a rebuilt read model equals the live one after any generated history of use cases",
        () =>
          Effect.gen(function* () {
            const services = yield* Effect.context<Services>()
            const run = Effect.runPromiseWith(services)
            const partners = [partnerA, partnerB] as const
            // One payer per partner, each with a linked account (a consent is accepted only with one).
            const payers = [
              "7e57ab1e-0000-4000-8000-00000000c0de" as Ids.RegistrationId,
              "7e57ab1e-0000-4000-8000-00000000c0df" as Ids.RegistrationId,
            ] as const
            const payerOf = (partnerId: Ids.PartnerId) => payers[partnerId === partnerA ? 0 : 1]
            const bankAccountId = "ba000000-0000-4000-8000-000000000001" as Ids.BankAccountId
            const op = fc.oneof(
              fc.record({
                _tag: fc.constant("register" as const),
                partner: fc.integer({ min: 0, max: 1 }),
                reference: fc.integer({ min: 0, max: 3 }),
              }),
              fc.record({
                _tag: fc.constant("kyb" as const),
                company: fc.nat(5),
                outcome: fc.constantFrom("Verified" as const, "Rejected" as const),
              }),
              fc.record({
                _tag: fc.constant("plan" as const),
                company: fc.nat(5),
                payments: fc.integer({ min: 1, max: 4 }),
              }),
              fc.record({ _tag: fc.constant("consent" as const), plan: fc.nat(5), accept: fc.boolean() }),
              fc.record({
                _tag: fc.constant("move" as const),
                plan: fc.nat(5),
                move: fc.constantFrom("activate", "pause", "resume", "cancel"),
              }),
              // The scheduler collects a plan's instalment (a transfer); the bank settles or fails the last one.
              fc.record({ _tag: fc.constant("collect" as const), plan: fc.nat(5) }),
              fc.record({ _tag: fc.constant("outcome" as const), plan: fc.nat(5), settle: fc.boolean() }),
            )
            const prefix = crypto.randomUUID().slice(0, 8)
            yield* Effect.promise(() =>
              fc.assert(
                fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), async (ops) => {
                  await run(
                    Effect.gen(function* () {
                      const companies: Array<{ partnerId: Ids.PartnerId; companyId: Ids.CompanyId }> = []
                      const plans: Array<{
                        partnerId: Ids.PartnerId
                        plan: PaymentPlans.Created
                        transferId?: Ids.TransferId
                      }> = []
                      for (const [index, payer] of payers.entries()) {
                        yield* Effect.exit(Fixtures.registerCustomer(partners[index]!, payer))
                        yield* Effect.exit(Fixtures.linkBankAccount(payer, bankAccountId))
                      }
                      for (const o of ops) {
                        const attempt: Effect.Effect<unknown, unknown, Services> =
                          o._tag === "register"
                            ? Effect.map(
                                Companies.register(
                                  partners[o.partner],
                                  body(`ref-${prefix}-${o.partner}-${o.reference}`),
                                ),
                                (r) => companies.push({ partnerId: partners[o.partner], companyId: r.companyId }),
                              )
                            : o._tag === "kyb"
                              ? companies[o.company] === undefined
                                ? Effect.void
                                : Companies.completeKyb(companies[o.company]!.companyId, o.outcome)
                              : o._tag === "plan"
                                ? companies[o.company] === undefined
                                  ? Effect.void
                                  : Effect.flatMap(DateTime.now, (now) =>
                                      Effect.map(
                                        PaymentPlans.create({
                                          partnerId: companies[o.company]!.partnerId,
                                          companyId: companies[o.company]!.companyId,
                                          payerRegistrationId: payerOf(companies[o.company]!.partnerId),
                                          amount: { minorUnits: 2500, currency: "USD" },
                                          frequency: "Monthly",
                                          recurrenceInterval: 1,
                                          startDate: DateTime.formatIsoDate(now) as never,
                                          numberOfPayments: o.payments,
                                        }),
                                        (plan) => plans.push({ partnerId: companies[o.company]!.partnerId, plan }),
                                      ),
                                    )
                                : plans[o.plan] === undefined
                                  ? Effect.void
                                  : o._tag === "consent"
                                    ? o.accept
                                      ? Consents.accept(
                                          {
                                            partnerId: plans[o.plan]!.partnerId,
                                            registrationId: payerOf(plans[o.plan]!.partnerId),
                                          },
                                          plans[o.plan]!.plan.consentId,
                                          bankAccountId,
                                        )
                                      : Consents.decline(
                                          {
                                            partnerId: plans[o.plan]!.partnerId,
                                            registrationId: payerOf(plans[o.plan]!.partnerId),
                                          },
                                          plans[o.plan]!.plan.consentId,
                                        )
                                    : o._tag === "collect"
                                      ? Effect.map(
                                          PaymentPlans.collectDue(plans[o.plan]!.plan.paymentPlanId),
                                          (collected) => {
                                            if (collected._tag === "Some")
                                              plans[o.plan]!.transferId = collected.value.transferId
                                          },
                                        )
                                      : o._tag === "outcome"
                                        ? plans[o.plan]!.transferId === undefined
                                          ? Effect.void
                                          : o.settle
                                            ? Payments.settleTransfer(plans[o.plan]!.transferId!)
                                            : Payments.failTransfer(plans[o.plan]!.transferId!, "R01")
                                        : PaymentPlans[o.move](
                                            plans[o.plan]!.partnerId,
                                            plans[o.plan]!.plan.paymentPlanId,
                                          )
                        yield* Effect.exit(attempt)
                      }
                      const live = yield* readModelRows
                      yield* PgDomain.rebuildProjections()
                      const rebuilt = yield* readModelRows
                      assert.deepStrictEqual(rebuilt, live)
                    }),
                  )
                }),
                seeded({ numRuns: database.name === "PGlite" ? 8 : 15 }),
              ),
            )
          }),
        120_000,
      )
    })
  })
}
