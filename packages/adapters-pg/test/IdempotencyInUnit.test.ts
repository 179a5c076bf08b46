/**
 * An Idempotency-Key's answer commits with the request's writes, and a claim
 * lives as long as its holder (PgIdempotencyStore, PgServiceInstance), on
 * PGlite and PostgreSQL:
 * - inside a unit of work, `complete` is written by the unit's one commit: a
 *   unit that fails stores neither its writes nor the answer, and the key is
 *   still the holder's (it resumes it, nobody else takes it);
 * - a unit whose key was taken by another request meanwhile writes nothing
 *   (VersionConflict), and the other's answer stands;
 * - a claim whose holder is no longer live (its process died) is free at once,
 *   a live one never;
 * - an instance opening a database of its own (`exclusive`) frees the claims
 *   of every earlier instance at once.
 */
import { assert, describe, it } from "@effect/vitest"
import { EventStore, IdempotencyStore, UnitOfWork } from "@partnerpay/domain"
import { DateTime, Effect, Exit, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgEventStore from "../src/PgEventStore.ts"
import * as PgIdempotencyStore from "../src/PgIdempotencyStore.ts"
import * as PgServiceInstance from "../src/PgServiceInstance.ts"
import * as PgUnit from "../src/PgUnit.ts"
import * as PgUnitOfWork from "../src/PgUnitOfWork.ts"
import { databases } from "./readSideSupport.ts"

const t0 = DateTime.makeUnsafe("2030-01-01T00:00:00Z")
const answer = (text: string): IdempotencyStore.StoredResponse => ({
  status: 200,
  contentType: "application/json",
  body: new TextEncoder().encode(text),
})

const newEvent = (): EventStore.NewEvent => ({
  eventId: crypto.randomUUID(),
  eventType: "Tested",
  schemaVersion: 1,
  data: {},
  metadata: {},
})

const started = (result: IdempotencyStore.BeginResult): string => {
  assert.strictEqual(result._tag, "Started")
  return result._tag === "Started" ? result.claim : ""
}

const decoded = (result: IdempotencyStore.BeginResult): string => {
  assert.strictEqual(result._tag, "Replay")
  return result._tag === "Replay" ? new TextDecoder().decode(result.response.body) : ""
}

/** Events recorded on a stream (0 when it does not exist). */
const eventsOf = (streamId: string) =>
  Effect.flatMap(SqlClient, (sql) =>
    Effect.map(
      sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE stream_id = ${streamId}`,
      (rows) => rows[0]?.n ?? 0,
    ),
  )

for (const database of databases) {
  describe(`Idempotency-Key answers and claims on ${database.name}`, () => {
    const layer = Layer.mergeAll(PgEventStore.layer(), PgUnitOfWork.layer, PgIdempotencyStore.layer()).pipe(
      Layer.provideMerge(PgServiceInstance.layer()),
      Layer.provideMerge(Migrations.layer),
      Layer.provideMerge(database.layer()),
    )

    it.layer(layer, { timeout: 120_000 })((it) => {
      it.effect("the answer completed inside a unit is stored by the unit's commit, with its events", () =>
        Effect.gen(function* () {
          const store = yield* IdempotencyStore.IdempotencyStore
          const events = yield* EventStore.EventStore
          const uow = yield* UnitOfWork.UnitOfWork
          const scope = `partner:${crypto.randomUUID()}`
          const stream = `Unit-${crypto.randomUUID()}`
          const claim = started(yield* store.begin(scope, "k", "h", t0))
          yield* uow.transactional(
            Effect.gen(function* () {
              yield* events.append(stream, "Tested", EventStore.ExpectedVersion.noStream, [newEvent()])
              yield* store.complete(scope, "k", claim, answer("first"))
              // Not stored before the commit: a concurrent retry still sees the request in progress.
              assert.strictEqual((yield* store.begin(scope, "k", "h", t0))._tag, "InProgress")
            }),
          )
          assert.strictEqual(yield* eventsOf(stream), 1)
          assert.strictEqual(decoded(yield* store.begin(scope, "k", "h", t0)), "first")
        }),
      )

      it.effect("a unit that fails stores neither its events nor the answer; its holder resumes the key", () =>
        Effect.gen(function* () {
          const store = yield* IdempotencyStore.IdempotencyStore
          const events = yield* EventStore.EventStore
          const uow = yield* UnitOfWork.UnitOfWork
          const scope = `partner:${crypto.randomUUID()}`
          const stream = `Unit-${crypto.randomUUID()}`
          const claim = started(yield* store.begin(scope, "k", "h", t0))
          const failed = yield* Effect.exit(
            uow.transactional(
              Effect.gen(function* () {
                yield* events.append(stream, "Tested", EventStore.ExpectedVersion.noStream, [newEvent()])
                yield* store.complete(scope, "k", claim, answer("lost"))
                return yield* Effect.fail("refused")
              }),
            ),
          )
          assert.isTrue(Exit.isFailure(failed))
          assert.strictEqual(yield* eventsOf(stream), 0)
          assert.strictEqual((yield* store.begin(scope, "k", "h", t0))._tag, "InProgress")
          assert.strictEqual(started(yield* store.begin(scope, "k", "h", t0, claim)), claim)
        }),
      )

      it.effect("a unit whose key another request took meanwhile writes nothing; the other's answer stands", () =>
        Effect.gen(function* () {
          const store = yield* IdempotencyStore.IdempotencyStore
          const events = yield* EventStore.EventStore
          const uow = yield* UnitOfWork.UnitOfWork
          const sql = yield* SqlClient
          const scope = `partner:${crypto.randomUUID()}`
          const stream = `Unit-${crypto.randomUUID()}`
          const first = started(yield* store.begin(scope, "k", "h", t0))
          const outcome = yield* Effect.exit(
            uow.transactional(
              Effect.gen(function* () {
                yield* events.append(stream, "Tested", EventStore.ExpectedVersion.noStream, [newEvent()])
                yield* store.complete(scope, "k", first, answer("first"))
                // Meanwhile the first holder was taken for dead, and a second request (outside this
                // unit) took the key and answered it.
                yield* Effect.gen(function* () {
                  yield* sql`UPDATE idempotency_keys SET holder = NULL WHERE scope = ${scope}`
                  const second = started(yield* store.begin(scope, "k", "h", t0))
                  yield* store.complete(scope, "k", second, answer("second"))
                }).pipe(Effect.provideService(PgUnit.CurrentUnit, undefined))
              }),
            ),
          )
          assert.isTrue(Exit.isFailure(outcome))
          if (Exit.isFailure(outcome)) assert.include(String(outcome.cause), "VersionConflict")
          assert.strictEqual(yield* eventsOf(stream), 0)
          assert.strictEqual(decoded(yield* store.begin(scope, "k", "h", t0)), "second")
        }),
      )

      it.effect("a claim is free at once when its holder is no longer live, never while it is", () =>
        Effect.gen(function* () {
          const store = yield* IdempotencyStore.IdempotencyStore
          const sql = yield* SqlClient
          const scope = `partner:${crypto.randomUUID()}`
          started(yield* store.begin(scope, "k", "h", t0))
          const { instanceId } = yield* PgServiceInstance.ServiceInstance
          assert.strictEqual((yield* store.begin(scope, "k", "h", t0))._tag, "InProgress")
          // Another process held it, and stopped being seen (killed) 6 seconds ago.
          const dead = crypto.randomUUID()
          yield* sql`INSERT INTO service_instances (instance_id, seen_at) VALUES (${dead}, now() - interval '6 seconds')`
          yield* sql`UPDATE idempotency_keys SET holder = ${dead} WHERE scope = ${scope}`
          const taken = started(yield* store.begin(scope, "k", "other-request", t0))
          const [row] = yield* sql<{ holder: string; claim: string }>`
            SELECT holder, claim FROM idempotency_keys WHERE scope = ${scope}`
          assert.deepStrictEqual(row, { holder: instanceId, claim: taken })
          // A holder seen a second ago is live: its claim stays in progress.
          const live = crypto.randomUUID()
          yield* sql`INSERT INTO service_instances (instance_id, seen_at) VALUES (${live}, now() - interval '1 second')`
          yield* sql`UPDATE idempotency_keys SET holder = ${live} WHERE scope = ${scope}`
          assert.strictEqual((yield* store.begin(scope, "k", "other-request", t0))._tag, "InProgress")
        }),
      )
    })

    it.effect(
      "an exclusive instance frees the claims of every earlier instance at once",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient
          const scope = `partner:${crypto.randomUUID()}`
          const earlier = crypto.randomUUID()
          yield* sql`INSERT INTO service_instances (instance_id) VALUES (${earlier})`
          yield* sql`
          INSERT INTO idempotency_keys (scope, key, request_hash, started_at, expires_at, claim, holder)
          VALUES (${scope}, 'k', 'h', now(), now() + interval '1 day', 'old-claim', ${earlier})`
          const result = yield* Effect.gen(function* () {
            const store = yield* IdempotencyStore.IdempotencyStore
            return yield* store.begin(scope, "k", "h", t0)
          }).pipe(
            Effect.provide(
              PgIdempotencyStore.layer().pipe(Layer.provide(PgServiceInstance.layer({ exclusive: true }))),
            ),
          )
          assert.strictEqual(result._tag, "Started")
        }).pipe(Effect.provide(Migrations.layer.pipe(Layer.provideMerge(database.layer())))),
      60_000,
    )
  })
}
