/** The ReadModelStore contract on the in-memory store, PGlite and PostgreSQL (fresh schema). */
import { assert, describe, it } from "@effect/vitest"
import { ReadModel, Tenancy } from "@partnerpay/domain"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgReadModelStore from "../src/PgReadModelStore.ts"
import { readModelStoreContract } from "./ReadModelStoreContract.ts"
import { databases } from "./readSideSupport.ts"

readModelStoreContract("memory", ReadModel.ReadModelStore.layerMemory)
for (const database of databases) {
  const layer = PgReadModelStore.layer.pipe(Layer.provideMerge(Migrations.layer), Layer.provide(database.layer()))
  readModelStoreContract(database.name, layer)

  describe(`a document read in a partner's request (${database.name})`, () => {
    it.layer(layer, { timeout: 120_000 })((it) => {
      it.effect("is found only when it is that partner's or the system tenant's", () =>
        Effect.gen(function* () {
          const store = yield* ReadModel.ReadModelStore
          const collection = `c_${crypto.randomUUID()}`
          const owners = { mine: "p-1", theirs: "p-2", shared: Tenancy.systemTenant }
          for (const [id, partnerId] of Object.entries(owners))
            yield* store.put({ collection, id, data: { id }, index: { partnerId, keys: {}, sortKey: id } })
          const found = (id: string, partner?: string) =>
            Effect.map(
              partner === undefined
                ? store.get(collection, id)
                : Effect.provideService(store.get(collection, id), Tenancy.CurrentPartner, partner),
              Option.isSome,
            )
          assert.deepStrictEqual(
            [yield* found("mine", "p-1"), yield* found("theirs", "p-1"), yield* found("shared", "p-1")],
            [true, false, true],
          )
          // Outside a partner's request (workers, the CLI) every document is found.
          assert.isTrue(yield* found("theirs"))
        }),
      )
    })
  })

  describe(`a document read again (${database.name})`, () => {
    const dataOf = (store: ReadModel.ReadModelStore["Service"], collection: string, id: string) =>
      Effect.map(store.get(collection, id), (found) => Option.getOrThrow(found).data)
    const index = { partnerId: "p-1", keys: {}, sortKey: "a" }
    const withSql = PgReadModelStore.layer.pipe(
      Layer.provideMerge(Migrations.layer),
      Layer.provideMerge(database.layer()),
    )

    it.layer(withSql, { timeout: 120_000 })((it) => {
      it.effect("is answered from the store's memory while its revision is unchanged, frozen", () =>
        Effect.gen(function* () {
          const store = yield* ReadModel.ReadModelStore
          const collection = `c_${crypto.randomUUID()}`
          yield* store.put({ collection, id: "d", data: { n: 1 }, index })
          const first = yield* dataOf(store, collection, "d")
          const again = yield* dataOf(store, collection, "d")
          assert.strictEqual(again, first)
          assert.isTrue(Object.isFrozen(again))
          assert.deepStrictEqual(again, { n: 1 })
        }),
      )

      it.effect("is read anew once another writer (another instance) changed it", () =>
        Effect.gen(function* () {
          const store = yield* ReadModel.ReadModelStore
          const otherInstance = yield* PgReadModelStore.make
          const collection = `c_${crypto.randomUUID()}`
          yield* store.put({ collection, id: "d", data: { n: 1 }, index })
          assert.deepStrictEqual(yield* dataOf(store, collection, "d"), { n: 1 })
          yield* otherInstance.put({ collection, id: "d", data: { n: 2 }, index })
          assert.deepStrictEqual(yield* dataOf(store, collection, "d"), { n: 2 })
          yield* otherInstance.delete(collection, "d")
          assert.isTrue(Option.isNone(yield* store.get(collection, "d")))
        }),
      )

      it.effect("is read anew each time when no write of a store gave it a revision (a migration's row)", () =>
        Effect.gen(function* () {
          const store = yield* ReadModel.ReadModelStore
          const sql = yield* SqlClient
          const collection = `c_${crypto.randomUUID()}`
          yield* sql`INSERT INTO read_models (collection, id, partner_id, keys, sort_key, data)
                     VALUES (${collection}, 'd', 'p-1', '{}'::jsonb, 'a', '{"n":1}'::jsonb)`
          assert.deepStrictEqual(yield* dataOf(store, collection, "d"), { n: 1 })
          yield* sql`UPDATE read_models SET data = '{"n":2}'::jsonb WHERE collection = ${collection} AND id = 'd'`
          const data = yield* dataOf(store, collection, "d")
          assert.deepStrictEqual(data, { n: 2 })
          assert.isFalse(Object.isFrozen(data))
        }),
      )
    })
  })
}
