/**
 * Aggregate snapshots on PGlite and PostgreSQL: a customer whose stream grows
 * past the snapshot policy's interval is stored with a snapshot in the same
 * commit as its events, and is loaded from it (only the events after it are
 * read) into the same state as a replay of the whole stream. A rebuild of the
 * projections deletes the snapshots (they are derived data).
 */
import { assert, describe, it } from "@effect/vitest"
import { CommandHandler, Customer, EventStore, IdGenerator, type Ids, UnitOfWork } from "@partnerpay/domain"
import { DateTime, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as PgDomain from "../src/PgDomain.ts"
import { databases } from "./readSideSupport.ts"

const at = DateTime.makeUnsafe("2026-11-01T09:00:00Z")
const later = DateTime.makeUnsafe("2027-11-01T09:00:00Z")

for (const database of databases) {
  describe(`snapshots on ${database.name}`, () => {
    const layer = Layer.mergeAll(PgDomain.layer(), IdGenerator.IdGenerator.layerRandom).pipe(
      Layer.provideMerge(database.layer()),
    )

    it.layer(layer, { timeout: 120_000 })((it) => {
      it.effect(
        "a customer with 250 events is stored with a snapshot and loaded from it, in the state a full replay gives",
        () =>
          Effect.gen(function* () {
            const registrationId = crypto.randomUUID() as Ids.RegistrationId
            const partnerId = crypto.randomUUID() as Ids.PartnerId
            const uow = yield* UnitOfWork.UnitOfWork
            const run = (command: Customer.Command) =>
              uow.transactional(CommandHandler.handle(Customer.aggregate, registrationId, command))
            yield* run({ _tag: "RegisterCustomer", registrationId, partnerId, phoneNumber: "+14155550123", at })
            // every registration of a new token is one event (two once the cap of tokens is reached)
            let version = 1
            for (let i = 0; version < 250; i++) {
              version = (yield* run({ _tag: "RegisterPushToken", token: `token-${i}`, expireAt: later, at })).version
            }
            const sql = yield* SqlClient
            const stored = yield* sql<{ stream_version: number }>`
              SELECT stream_version FROM snapshots WHERE stream_id = ${`Customer-${registrationId}`}`
            const snapshotAt = stored[0]?.stream_version ?? 0
            assert.isAtLeast(snapshotAt, 150)

            const store = yield* EventStore.EventStore
            const policy = Customer.aggregate.snapshot!
            const fromSnapshot = yield* store.readFromSnapshot!(`Customer-${registrationId}`, policy.schemaVersion)
            assert.strictEqual(fromSnapshot.snapshot?.streamVersion, snapshotAt)
            assert.strictEqual(fromSnapshot.events.length, version - snapshotAt)
            assert.isBelow(fromSnapshot.events.length, 100)

            const loaded = yield* CommandHandler.load(Customer.aggregate, registrationId)
            const all = yield* store.readStream(`Customer-${registrationId}`)
            const decode = Schema.decodeUnknownSync(Customer.aggregate.events)
            const replayed = all.map((event) => decode(event.data)).reduce(Customer.evolve, Customer.initialState)
            assert.strictEqual(loaded.version, version)
            assert.deepStrictEqual(loaded.state, replayed)
          }),
        // 250 commits on PGlite: generous, so a busy machine never fails it (nothing here is timed)
        120_000,
      )

      it.effect(
        "a rebuild of the projections deletes every snapshot",
        () =>
          Effect.gen(function* () {
            const sql = yield* SqlClient
            yield* PgDomain.rebuildProjections()
            const left = yield* sql<{ count: number }>`SELECT count(*)::int AS count FROM snapshots`
            assert.strictEqual(left[0]?.count, 0)
          }),
        60_000,
      )
    })
  })
}
