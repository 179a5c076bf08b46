/**
 * The operator CLI's personal data commands, run as operators run them
 * (`node src/cli.ts ...` in a child process) on a fresh PostgreSQL database
 * (skipped loudly without a server, failing with CI=true; see support.ts):
 * `companies erase-owner`, `customers erase` (which also revokes the
 * customer's tokens), `keys rotate-master` (the webhook signing secrets,
 * sealed with vault keys, still open afterwards).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { PgDatabase, PgPartnerCredentials, PgPersonalDataVault } from "@partnerpay/adapters-pg"
import { CommandHandler, Companies, Customer, Ids } from "@partnerpay/domain"
import { DateTime, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Config from "../src/config/Config.ts"
import * as Domain from "../src/Domain.ts"
import { cli, companyBody, freshDatabase, jsonOf, postgresAvailable } from "./support.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

describe.skipIf(!postgresAvailable)("partnerpay personal data commands on PostgreSQL", () => {
  it("erase a customer and an owner, refuse unknown ids, rotate the master key, and rebuild with the new one", {
    timeout: 120_000,
  }, async () => {
    const db = await freshDatabase()
    cleanups.push(db.drop)
    const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-cli-pii-"))
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }))
    const env = { DATABASE_URL: db.url, PARTNERPAY_DATA_DIR: dataDir }

    const created = jsonOf(await cli(["partners", "create", "--name", "Erasure Inc", "--json"], env))
    const partnerId = Ids.PartnerId.make(String(created.partnerId))
    const signingSecret = "whsec_cli-rotation-0123456789"
    jsonOf(
      await cli(
        [
          "partners",
          "set-webhook",
          partnerId,
          "--url",
          "https://partner.example/hooks",
          "--signing-secret",
          signingSecret,
          "--json",
        ],
        env,
      ),
    )
    const config = await Effect.runPromise(Config.fromRecord(env))
    /** Runs `effect` with the service's domain stack (the data key as the sandbox key file holds it now). */
    const withDomain = <A, E>(effect: Effect.Effect<A, E, Domain.DomainPorts | SqlClient>) =>
      Effect.runPromise(
        effect.pipe(
          Effect.provide(
            Domain.layerWith(config).pipe(Layer.provideMerge(PgDatabase.layerPostgres(db.url, { maxConnections: 2 }))),
          ),
        ),
      )
    const registrationId = Ids.RegistrationId.make(crypto.randomUUID())
    const { companyId } = await withDomain(
      Effect.gen(function* () {
        yield* CommandHandler.handle(Customer.aggregate, registrationId, {
          _tag: "RegisterCustomer",
          registrationId,
          partnerId,
          phoneNumber: "+14155550163",
          at: yield* DateTime.now,
        })
        return yield* Companies.register(partnerId, companyBody({ companyReferenceId: "cli-pii-1" }))
      }),
    )

    // Erasing a customer revokes their tokens: a new generation in the table, which every running instance
    // loads within its refresh (PgTokenGenerations).
    assert.deepStrictEqual(jsonOf(await cli(["customers", "erase", registrationId, "--json"], env)), {
      registrationId,
      erased: true,
      keysDeleted: 1,
      tokensRevoked: true,
    })
    const generations = await withDomain(
      Effect.flatMap(
        SqlClient,
        (sql) =>
          sql<{
            subject: string
          }>`SELECT subject FROM token_generations WHERE subject = ${`customer:${registrationId}`}`,
      ),
    )
    assert.strictEqual(generations.length, 1)

    assert.deepStrictEqual(jsonOf(await cli(["companies", "erase-owner", companyId, "--json"], env)), {
      companyId,
      ownerErased: true,
      keysDeleted: 1,
    })
    assert.deepStrictEqual(jsonOf(await cli(["companies", "erase-owner", companyId, "--json"], env)), {
      companyId,
      ownerErased: true,
      keysDeleted: 0,
    })
    const unknownCompany = await cli(["companies", "erase-owner", "no-such-company"], env)
    assert.strictEqual(unknownCompany.code, 1)
    assert.include(unknownCompany.stderr, "Company not found")
    const unknownCustomer = await cli(["customers", "erase", "no-such-customer"], env)
    assert.strictEqual(unknownCustomer.code, 1)
    assert.include(unknownCustomer.stderr, "Customer not found")

    const missing = await cli(["keys", "rotate-master"], env)
    assert.strictEqual(missing.code, 1)
    assert.include(missing.stderr, "PARTNERPAY_NEW_DATA_KEY")
    const before = readFileSync(join(dataDir, "data-key"), "utf8")
    const next = PgPersonalDataVault.newMasterKeyText()
    const rotated = jsonOf(await cli(["keys", "rotate-master", "--json"], { ...env, PARTNERPAY_NEW_DATA_KEY: next }))
    // The employees' key and the key of the partner's webhook signing secret remain (the owner's and the
    // customer's were erased).
    assert.strictEqual(rotated.rewrapped, 2)
    assert.strictEqual(rotated.keyFile, join(dataDir, "data-key"))
    assert.strictEqual(rotated.masterKeyId, PgPersonalDataVault.masterKeyId(PgPersonalDataVault.parseMasterKey(next)))
    assert.notStrictEqual(readFileSync(join(dataDir, "data-key"), "utf8"), before)
    const rebuilt = jsonOf(await cli(["projections", "rebuild", "--json"], env))
    assert.isAbove(Number(rebuilt.eventsReplayed), 0)
    // The signing secret, sealed under the rotated master key, still opens with the new one.
    const webhook = await withDomain(
      Effect.flatMap(PgPartnerCredentials.Partners, (partners) => partners.getWebhook(partnerId)),
    )
    assert.strictEqual(Redacted.value(Option.getOrThrow(webhook).signingSecret), signingSecret)
  })
})
