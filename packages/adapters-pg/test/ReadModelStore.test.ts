/** The ReadModelStore contract on the in-memory store, PGlite and PostgreSQL (fresh schema). */
import { assert, describe, it } from "@effect/vitest"
import { ReadModel, Tenancy } from "@partnerpay/domain"
import { Effect, Layer, Option } from "effect"
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
}
