/** The ReadModelStore contract on the in-memory store, PGlite and PostgreSQL (fresh schema). */
import { ReadModel } from "@partnerpay/domain"
import { Layer } from "effect"
import * as Migrations from "../src/Migrations.ts"
import * as PgReadModelStore from "../src/PgReadModelStore.ts"
import { readModelStoreContract } from "./ReadModelStoreContract.ts"
import { databases } from "./readSideSupport.ts"

readModelStoreContract("memory", ReadModel.ReadModelStore.layerMemory)
for (const database of databases) {
  readModelStoreContract(
    database.name,
    PgReadModelStore.layer.pipe(Layer.provideMerge(Migrations.layer), Layer.provide(database.layer())),
  )
}
