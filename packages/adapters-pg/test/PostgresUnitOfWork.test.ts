/**
 * Units of work on PostgreSQL (fresh schema): a follower of readAll never
 * skips or repeats an event while units of work append to two streams and
 * plain appends commit out of order around them (each inside a transaction
 * kept open for a random while after its events are inserted); a unit is
 * written by one statement, all or nothing; a document read by a unit is
 * written back only if nobody wrote it since.
 */
import { assert, describe, it } from "@effect/vitest"
import { EventStore, ReadModel, UnitOfWork } from "@partnerpay/domain"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Statement from "effect/sql/Statement"
import * as Migrations from "../src/Migrations.ts"
import * as PgEventStore from "../src/PgEventStore.ts"
import * as PgReadModelStore from "../src/PgReadModelStore.ts"
import * as PgUnit from "../src/PgUnit.ts"
import * as PgUnitOfWork from "../src/PgUnitOfWork.ts"
import { postgresAvailable, postgresFreshSchema } from "./readSideSupport.ts"

const newEvent = (data: unknown): EventStore.NewEvent => ({
  eventId: crypto.randomUUID(),
  eventType: "Tested",
  schemaVersion: 1,
  data,
  metadata: {},
})

const suite = postgresAvailable ? describe : describe.skip

suite("PostgreSQL units of work", () => {
  const layer = Layer.mergeAll(PgEventStore.layer(), PgUnitOfWork.layer, PgReadModelStore.layer).pipe(
    Layer.provideMerge(Migrations.layer),
    Layer.provideMerge(postgresFreshSchema({ maxConnections: 16 })),
  )

  // The real clock (no test services): writers sleep a random while inside their transactions.
  it.layer(layer, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect(
      "a readAll follower sees every event once, in order, while units of work append twice and plain appends race",
      () =>
        Effect.gen(function* () {
          const result = yield* Effect.gen(function* () {
            const store = yield* EventStore.EventStore
            const uow = yield* UnitOfWork.UnitOfWork
            const sql = yield* SqlClient
            const expected = new Set<string>()
            const append = (streamId: string, event: EventStore.NewEvent) => {
              expected.add(event.eventId)
              return store.append(streamId, "Follow", EventStore.ExpectedVersion.any, [event])
            }
            // Positions are drawn when the events are inserted; the commit comes a random while later.
            const plainWriter = (w: number) =>
              Effect.forEach(
                Array.from({ length: 30 }, (_, i) => i),
                (i) =>
                  sql.withTransaction(
                    append(`Plain-${w}-${i % 3}`, newEvent({ w, i })).pipe(
                      Effect.tap(() => Effect.sleep(Math.floor(Math.random() * 5))),
                    ),
                  ),
                { discard: true },
              )
            const unitWriter = (w: number) =>
              Effect.forEach(
                Array.from({ length: 12 }, (_, i) => i),
                (i) =>
                  uow.transactional(
                    Effect.gen(function* () {
                      yield* append(`UnitA-${w}-${i}`, newEvent({ w, i, first: true }))
                      yield* Effect.sleep(Math.floor(Math.random() * 5))
                      yield* append(`UnitB-${w}-${i}`, newEvent({ w, i, second: true }))
                    }),
                  ),
                { discard: true },
              )
            const seen: Array<EventStore.RecordedEvent> = []
            let done = false
            const writers = Effect.all([...[0, 1, 2, 3].map(plainWriter), ...[0, 1, 2, 3].map(unitWriter)], {
              concurrency: "unbounded",
            }).pipe(Effect.ensuring(Effect.sync(() => (done = true))))
            const reader = Effect.gen(function* () {
              let checkpoint = 0
              const deadline = Date.now() + 30_000
              while (Date.now() < deadline) {
                const page = yield* store.readAll({ after: checkpoint, limit: 25 })
                for (const event of page) {
                  checkpoint = event.globalPosition
                  seen.push(event)
                }
                if (done && seen.length >= expected.size) return
                if (page.length === 0) yield* Effect.sleep(1)
              }
            })
            yield* Effect.all([writers, reader], { concurrency: 2 })
            return { seen, expected }
          })
          assert.strictEqual(result.seen.length, result.expected.size)
          assert.deepStrictEqual(new Set(result.seen.map((e) => e.eventId)), result.expected)
          const byStream = new Map<string, Array<number>>()
          for (const e of result.seen) byStream.set(e.streamId, [...(byStream.get(e.streamId) ?? []), e.streamVersion])
          for (const versions of byStream.values()) {
            assert.deepStrictEqual(
              versions,
              versions.map((_, i) => i + 1),
            )
          }
        }),
      60_000,
    )

    it.effect(
      "a unit is written by one statement after its reads: two new streams and a document cost one round trip",
      () =>
        Effect.gen(function* () {
          const statements = yield* Effect.gen(function* () {
            const store = yield* EventStore.EventStore
            const uow = yield* UnitOfWork.UnitOfWork
            const readModels = yield* ReadModel.ReadModelStore
            const id = crypto.randomUUID()
            let count = 0
            const counting: Statement.Transformer = (statement) =>
              Effect.sync(() => {
                count++
                return statement
              })
            yield* uow
              .transactional(
                Effect.gen(function* () {
                  yield* store.append(`OneTripA-${id}`, "OneTrip", EventStore.ExpectedVersion.noStream, [
                    newEvent({ a: 1 }),
                  ])
                  yield* store.append(`OneTripB-${id}`, "OneTrip", EventStore.ExpectedVersion.noStream, [
                    newEvent({ b: 1 }),
                  ])
                  yield* readModels.put({
                    collection: "one_trip",
                    id,
                    data: { ok: true },
                    index: { partnerId: "p", keys: {}, sortKey: id },
                  })
                }),
              )
              .pipe(Effect.provideService(Statement.CurrentTransformer, counting))
            const stored = yield* readModels.get("one_trip", id)
            assert.isTrue(Option.isSome(stored))
            assert.strictEqual((yield* store.readStream(`OneTripB-${id}`)).length, 1)
            return count
          })
          assert.strictEqual(statements, 1)
        }),
      30_000,
    )

    it.effect(
      "reading a stream inside a unit also reads the documents its aggregate owns, in the same statement: the later get sends nothing",
      () =>
        Effect.gen(function* () {
          const counts = yield* Effect.gen(function* () {
            const sql = yield* SqlClient
            const store = yield* PgEventStore.make({
              ownedCollections: (streamType) => (streamType === "Owner" ? ["owned"] : []),
            })
            const uow = yield* UnitOfWork.UnitOfWork
            const readModels = yield* ReadModel.ReadModelStore
            const id = crypto.randomUUID()
            yield* store.append(`Owner-${id}`, "Owner", EventStore.ExpectedVersion.noStream, [newEvent({})])
            yield* readModels.put({
              collection: "owned",
              id,
              data: { n: 1 },
              index: { partnerId: "p", keys: {}, sortKey: id },
            })
            let count = 0
            const counting: Statement.Transformer = (statement) =>
              Effect.sync(() => {
                count++
                return statement
              })
            return yield* uow
              .transactional(
                Effect.gen(function* () {
                  yield* store.readStream(`Owner-${id}`)
                  const afterRead = count
                  const doc = yield* readModels.get("owned", id)
                  assert.deepStrictEqual(
                    Option.map(doc, (d) => d.data),
                    Option.some({ n: 1 }),
                  )
                  return { afterRead, afterGet: count }
                }),
              )
              .pipe(
                Effect.provideService(Statement.CurrentTransformer, counting),
                Effect.provideService(SqlClient, sql),
              )
          })
          assert.strictEqual(counts.afterRead, 1)
          assert.strictEqual(counts.afterGet, 1)
        }),
      30_000,
    )

    it.effect(
      "reading from a snapshot inside a unit reads the owned documents in the same statement, an absent one as absent",
      () =>
        Effect.gen(function* () {
          const outcome = yield* Effect.gen(function* () {
            const sql = yield* SqlClient
            const store = yield* PgEventStore.make({
              ownedCollections: (streamType) => (streamType === "Owner" ? ["owned", "missing"] : []),
            })
            const uow = yield* UnitOfWork.UnitOfWork
            const readModels = yield* ReadModel.ReadModelStore
            const id = crypto.randomUUID()
            yield* store.append(`Owner-${id}`, "Owner", EventStore.ExpectedVersion.noStream, [newEvent({ n: 1 })], {
              snapshot: { streamVersion: 1, schemaVersion: 1, state: { n: 1 } },
            })
            yield* store.append(`Owner-${id}`, "Owner", EventStore.ExpectedVersion.exact(1), [newEvent({ n: 2 })])
            yield* readModels.put({
              collection: "owned",
              id,
              data: { n: 2 },
              index: { partnerId: "p", keys: { k: "v" }, sortKey: "s" },
            })
            let count = 0
            const counting: Statement.Transformer = (statement) =>
              Effect.sync(() => {
                count++
                return statement
              })
            return yield* uow
              .transactional(
                Effect.gen(function* () {
                  const read = yield* store.readFromSnapshot!(`Owner-${id}`, 1)
                  const owned = yield* readModels.get("owned", id)
                  const missing = yield* readModels.get("missing", id)
                  return { read, owned, missing, statements: count }
                }),
              )
              .pipe(
                Effect.provideService(Statement.CurrentTransformer, counting),
                Effect.provideService(SqlClient, sql),
              )
          })
          assert.deepStrictEqual(outcome.read.snapshot?.state, { n: 1 })
          assert.deepStrictEqual(
            outcome.read.events.map((event) => event.data),
            [{ n: 2 }],
          )
          assert.deepStrictEqual(
            Option.map(outcome.owned, (doc) => [doc.data, doc.index]),
            Option.some([{ n: 2 }, { partnerId: "p", keys: { k: "v" }, sortKey: "s" }]),
          )
          assert.isTrue(Option.isNone(outcome.missing))
          assert.strictEqual(outcome.statements, 1)
        }),
      30_000,
    )

    it.effect(
      "a unit whose second stream conflicts writes nothing at all, and reports the conflict",
      () =>
        Effect.gen(function* () {
          const outcome = yield* Effect.gen(function* () {
            const store = yield* EventStore.EventStore
            const uow = yield* UnitOfWork.UnitOfWork
            const readModels = yield* ReadModel.ReadModelStore
            const id = crypto.randomUUID()
            const taken = `Taken-${id}`
            yield* store.append(taken, "Taken", EventStore.ExpectedVersion.noStream, [newEvent({})])
            const error = yield* Effect.flip(
              uow.transactional(
                Effect.gen(function* () {
                  yield* store.append(`Fresh-${id}`, "Fresh", EventStore.ExpectedVersion.noStream, [newEvent({})])
                  yield* readModels.put({
                    collection: "probe",
                    id,
                    data: {},
                    index: { partnerId: "p", keys: {}, sortKey: "s" },
                  })
                  yield* store.append(taken, "Taken", EventStore.ExpectedVersion.noStream, [newEvent({})])
                }),
              ),
            )
            return {
              error,
              fresh: yield* store.readStream(`Fresh-${id}`),
              probe: yield* readModels.get("probe", id),
            }
          })
          assert.strictEqual(outcome.error._tag, "VersionConflict")
          if (outcome.error._tag === "VersionConflict") assert.strictEqual(outcome.error.actual, 1)
          assert.strictEqual(outcome.fresh.length, 0)
          assert.isTrue(Option.isNone(outcome.probe))
        }),
      30_000,
    )

    it.effect(
      "a document read by a unit and written by someone else before the unit commits makes the unit conflict",
      () =>
        Effect.gen(function* () {
          const outcome = yield* Effect.gen(function* () {
            const uow = yield* UnitOfWork.UnitOfWork
            const readModels = yield* ReadModel.ReadModelStore
            const id = crypto.randomUUID()
            const doc = (n: number) => ({
              collection: "contended",
              id,
              data: { n },
              index: { partnerId: "p", keys: {}, sortKey: "s" },
            })
            yield* readModels.put(doc(1))
            const error = yield* Effect.flip(
              uow.transactional(
                Effect.gen(function* () {
                  yield* readModels.get("contended", id)
                  // another writer, outside this unit
                  yield* readModels.put(doc(2)).pipe(Effect.provideService(PgUnit.CurrentUnit, undefined))
                  yield* readModels.put(doc(3))
                }),
              ),
            )
            return { error, stored: yield* readModels.get("contended", id) }
          })
          assert.strictEqual(outcome.error._tag, "VersionConflict")
          assert.deepStrictEqual(
            Option.map(outcome.stored, (d) => d.data),
            Option.some({ n: 2 }),
          )
        }),
      30_000,
    )

    it.effect(
      "a nested unit that fails is dropped like a savepoint; the outer unit commits the rest",
      () =>
        Effect.gen(function* () {
          const outcome = yield* Effect.gen(function* () {
            const store = yield* EventStore.EventStore
            const uow = yield* UnitOfWork.UnitOfWork
            const readModels = yield* ReadModel.ReadModelStore
            const id = crypto.randomUUID()
            yield* uow.transactional(
              Effect.gen(function* () {
                yield* store.append(`Kept-${id}`, "Kept", EventStore.ExpectedVersion.noStream, [newEvent({})])
                yield* uow
                  .transactional(
                    Effect.gen(function* () {
                      yield* store.append(`Dropped-${id}`, "Dropped", EventStore.ExpectedVersion.noStream, [
                        newEvent({}),
                      ])
                      yield* readModels.put({
                        collection: "dropped",
                        id,
                        data: {},
                        index: { partnerId: "p", keys: {}, sortKey: "s" },
                      })
                      return yield* Effect.fail("refused")
                    }),
                  )
                  .pipe(Effect.ignore)
              }),
            )
            return {
              kept: yield* store.readStream(`Kept-${id}`),
              dropped: yield* store.readStream(`Dropped-${id}`),
              document: yield* readModels.get("dropped", id),
            }
          })
          assert.strictEqual(outcome.kept.length, 1)
          assert.strictEqual(outcome.dropped.length, 0)
          assert.isTrue(Option.isNone(outcome.document))
        }),
      30_000,
    )

    it.effect(
      "a unit whose connection is lost fails with EventStoreUnavailable, not a defect, though its ROLLBACK fails too",
      () =>
        Effect.gen(function* () {
          const exit = yield* Effect.gen(function* () {
            const uow = yield* UnitOfWork.UnitOfWork
            const sql = yield* SqlClient
            return yield* Effect.exit(
              uow.transactional(
                sql`SELECT pg_terminate_backend(pg_backend_pid())`.pipe(
                  Effect.mapError(() => new EventStore.EventStoreUnavailable({ reason: "connection lost" })),
                ),
              ),
            )
          })
          assert.isTrue(Exit.isFailure(exit))
          if (Exit.isFailure(exit)) {
            assert.isFalse(Cause.hasDies(exit.cause), Cause.pretty(exit.cause))
            const failure = exit.cause.reasons.find(Cause.isFailReason)
            assert.strictEqual((failure?.error as { _tag?: string } | undefined)?._tag, "EventStoreUnavailable")
          }
          // the pool replaces the lost connection
          const after = yield* Effect.gen(function* () {
            const sql = yield* SqlClient
            return yield* sql`SELECT 1 AS one`
          })
          assert.strictEqual(after.length, 1)
        }),
      30_000,
    )
  })
})
