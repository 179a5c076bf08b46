/**
 * A payer's provider references kept sealed with the payer (issue 38 §1), on
 * PGlite and PostgreSQL (skipped loudly without a server, see support.ts):
 * the Stripe customer and the Dwolla customer of a payer, and a payer's
 * Dwolla funding source, kept through the providers' store (`DwollaStore`)
 * are found again, never in clear anywhere in the database (the whole-database
 * scan of `PersonalDataScan.ts`), and are found as none once the payer's data
 * key is erased (what `CustomerErasure.erase` deletes), and a new one kept
 * then replaces the unreadable row. A row kept in clear
 * before is still found, and sealed at that read. A company's references
 * (not personal data) stay as they are.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Migrations, PgDatabase, PgPersonalDataVault } from "@partnerpay/adapters-pg"
import { CustomerPersonalData, PersonalData } from "@partnerpay/domain"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as DwollaStore from "../../src/providers/DwollaStore.ts"
import * as StripeCardProcessor from "../../src/providers/StripeCardProcessor.ts"
import { scan } from "../PersonalDataScan.ts"
import { freshDatabase, postgresAvailable } from "../support.ts"

const master = PgPersonalDataVault.parseMasterKey(PgPersonalDataVault.newMasterKeyText())
const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const postgres = Layer.unwrap(
  Effect.map(
    Effect.acquireRelease(
      Effect.promise(() => freshDatabase()),
      (database) => Effect.promise(() => database.drop()),
    ),
    (database) => PgDatabase.layerPostgres(database.url, { maxConnections: 2 }),
  ),
)

const databases = [
  { name: "PGlite", layer: () => PgDatabase.layerPglite() },
  ...(postgresAvailable ? [{ name: "PostgreSQL", layer: () => postgres }] : []),
]

const rows = Effect.flatMap(
  SqlClient,
  (sql) => sql<{ readonly owner_id: string; readonly funding_source: string }>`
    SELECT owner_id, funding_source FROM provider_funding_sources ORDER BY owner_id`,
)

for (const database of databases) {
  describe(`a payer's provider references on ${database.name}`, () => {
    const layer = PgPersonalDataVault.layer(master, { cacheMillis: 0 }).pipe(
      Layer.provideMerge(Migrations.layer),
      Layer.provideMerge(database.layer()),
    )

    it.layer(layer, { timeout: 120_000 })((it) => {
      it.effect("are kept sealed, found again, and none once the payer is erased", () =>
        Effect.gen(function* () {
          const stripe = yield* StripeCardProcessor.currentStore
          const dwolla = yield* DwollaStore.current
          const payer = "reg-sealed-1"
          const account = { institutionId: "ins_3", mask: "6789", type: "checking" }
          const stripeCustomer = "cus_SealedStripeCustomer42"
          const dwollaCustomer = "https://api-sandbox.dwolla.com/customers/sealed-dwolla-customer-42"
          const fundingSource = "https://api-sandbox.dwolla.com/funding-sources/sealed-payer-source-42"
          const payout = "https://api-sandbox.dwolla.com/funding-sources/company-payout-source-42"

          assert.strictEqual(yield* stripe.keep(StripeCardProcessor.payerKey(payer), stripeCustomer), stripeCustomer)
          yield* dwolla.keep(DwollaStore.payerKey(payer), dwollaCustomer)
          yield* dwolla.keep(DwollaStore.payerAccountKey(payer, account), fundingSource)
          yield* dwolla.keep("payout-account-1", payout)
          // a second keep (another instance's customer) answers the one kept first
          assert.strictEqual(yield* stripe.keep(StripeCardProcessor.payerKey(payer), "cus_Later"), stripeCustomer)

          assert.strictEqual(yield* stripe.find(StripeCardProcessor.payerKey(payer)), stripeCustomer)
          assert.strictEqual(yield* dwolla.find(DwollaStore.payerKey(payer)), dwollaCustomer)
          assert.strictEqual(yield* dwolla.find(DwollaStore.payerAccountKey(payer, account)), fundingSource)
          const kept = yield* rows
          for (const row of kept.filter((row) => row.owner_id.startsWith("payer")))
            assert.isTrue(row.funding_source.startsWith(DwollaStore.sealedPrefix), row.owner_id)
          const needles = ["SealedStripeCustomer42", "sealed-dwolla-customer-42", "sealed-payer-source-42"]
          assert.deepStrictEqual((yield* scan(needles)).found, [])

          const vault = yield* PersonalData.PersonalDataVault
          assert.isTrue(yield* vault.erase(CustomerPersonalData.customerSubject(payer)))
          assert.isUndefined(yield* stripe.find(StripeCardProcessor.payerKey(payer)))
          assert.isUndefined(yield* dwolla.find(DwollaStore.payerKey(payer)))
          assert.isUndefined(yield* dwolla.find(DwollaStore.payerAccountKey(payer, account)))
          assert.deepStrictEqual((yield* scan(needles)).found, [])
          // the payer registered again: a new customer replaces the unreadable one
          assert.strictEqual(yield* stripe.keep(StripeCardProcessor.payerKey(payer), "cus_Again"), "cus_Again")
          assert.strictEqual(yield* stripe.find(StripeCardProcessor.payerKey(payer)), "cus_Again")
          // not a payer's: kept as is, found again
          assert.strictEqual(yield* dwolla.find("payout-account-1"), payout)
        }),
      )

      it.effect("kept in clear before are found, then sealed at that read", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient
          const payer = "reg-clear-2"
          const clear = "cus_KeptInClearBefore77"
          yield* sql`
            INSERT INTO provider_funding_sources (provider, owner_id, funding_source)
            VALUES ('Stripe', ${StripeCardProcessor.payerKey(payer)}, ${clear})`
          const stripe = yield* StripeCardProcessor.currentStore
          assert.strictEqual(yield* stripe.find(StripeCardProcessor.payerKey(payer)), clear)
          assert.deepStrictEqual((yield* scan(["KeptInClearBefore77"])).found, [])
          assert.strictEqual(yield* stripe.find(StripeCardProcessor.payerKey(payer)), clear)
        }),
      )
    })
  })
}
