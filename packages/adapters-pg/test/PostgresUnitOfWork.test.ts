/**
 * Appends inside units of work on PostgreSQL (fresh schema): a follower of
 * readAll never skips events while units of work append twice (with a pause
 * between their appends) and plain appends commit out of order around them.
 * Without the position lock a unit holds from its first append to its commit,
 * a plain append could draw positions between the unit's two appends, commit
 * first, and the follower would pass the unit's second batch by.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import {
  EventStore,
  EventStoreUnavailable,
  ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
  UnitOfWork,
} from "@partnerpay/domain"
import { Cause, Effect, Exit, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgEventStore from "../src/PgEventStore.ts"
import * as PgUnitOfWork from "../src/PgUnitOfWork.ts"
import { postgresAvailable, postgresFreshSchema } from "./readSideSupport.ts"

const newEvent = (data: unknown): NewEvent => ({
  eventId: crypto.randomUUID(),
  eventType: "Tested",
  schemaVersion: 1,
  data,
  metadata: {},
})

const suite = postgresAvailable ? describe : describe.skip

suite("PostgreSQL units of work", () => {
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(
      PgEventStore.layer({ onAppend: () => Effect.sleep(Math.floor(Math.random() * 4)) }),
      PgUnitOfWork.layer,
    ).pipe(Layer.provideMerge(Migrations.layer), Layer.provideMerge(postgresFreshSchema({ maxConnections: 16 }))),
  )
  afterAll(() => runtime.dispose())

  it("a readAll follower sees every event once, in order, while units of work append twice and plain appends race", {
    timeout: 60_000,
  }, async () => {
    const result = await runtime.runPromise(
      Effect.gen(function* () {
        const store = yield* EventStore
        const uow = yield* UnitOfWork
        const expected = new Set<string>()
        const append = (streamId: string, event: NewEvent) => {
          expected.add(event.eventId)
          return store.append(streamId, "Follow", ExpectedVersion.any, [event])
        }
        const plainWriter = (w: number) =>
          Effect.forEach(
            Array.from({ length: 30 }, (_, i) => i),
            (i) => append(`Plain-${w}-${i % 3}`, newEvent({ w, i })),
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
        const seen: Array<RecordedEvent> = []
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
              assert.isAbove(event.globalPosition, checkpoint)
              checkpoint = event.globalPosition
              seen.push(event)
            }
            if (done && seen.length >= expected.size) return
            if (page.length === 0) yield* Effect.sleep(1)
          }
        })
        yield* Effect.all([writers, reader], { concurrency: 2 })
        return { seen, expected }
      }),
    )
    assert.strictEqual(result.seen.length, result.expected.size)
    assert.deepStrictEqual(new Set(result.seen.map((e) => e.eventId)), result.expected)
  })

  it("an append after the unit already wrote something else is refused, and the unit rolls back", {
    timeout: 30_000,
  }, async () => {
    const outcome = await runtime.runPromise(
      Effect.gen(function* () {
        const store = yield* EventStore
        const uow = yield* UnitOfWork
        const sql = yield* SqlClient
        const streamId = `Refused-${crypto.randomUUID()}`
        const error = yield* Effect.flip(
          uow.transactional(
            Effect.gen(function* () {
              yield* sql`INSERT INTO read_models (collection, id, partner_id, sort_key, data) VALUES ('probe', ${streamId}, 'p', 's', '{}')`
              return yield* store.append(streamId, "Refused", ExpectedVersion.noStream, [newEvent({})])
            }),
          ),
        )
        const probe = yield* sql`SELECT id FROM read_models WHERE collection = 'probe' AND id = ${streamId}`
        return { error, stored: yield* store.readStream(streamId), probe }
      }),
    )
    assert.strictEqual(outcome.error._tag, "EventStoreUnavailable")
    assert.strictEqual(outcome.stored.length, 0)
    assert.strictEqual(outcome.probe.length, 0)
  })

  it("a unit whose connection is lost fails with EventStoreUnavailable, not a defect, though its ROLLBACK fails too", {
    timeout: 30_000,
  }, async () => {
    const exit = await runtime.runPromise(
      Effect.gen(function* () {
        const uow = yield* UnitOfWork
        const sql = yield* SqlClient
        return yield* Effect.exit(
          uow.transactional(
            sql`SELECT pg_terminate_backend(pg_backend_pid())`.pipe(
              Effect.mapError(() => new EventStoreUnavailable({ reason: "connection lost" })),
            ),
          ),
        )
      }),
    )
    assert.isTrue(Exit.isFailure(exit))
    if (Exit.isFailure(exit)) {
      assert.isFalse(Cause.hasDies(exit.cause), Cause.pretty(exit.cause))
      const failure = exit.cause.reasons.find(Cause.isFailReason)
      assert.strictEqual((failure?.error as { _tag?: string } | undefined)?._tag, "EventStoreUnavailable")
    }
    // the pool replaces the lost connection
    const after = await runtime.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient
        return yield* sql`SELECT 1 AS one`
      }),
    )
    assert.strictEqual(after.length, 1)
  })
})
