/**
 * The operator CLI's personal data commands, run as operators run them
 * (`node src/cli.ts ...` in a child process) on a fresh PostgreSQL database
 * (skipped loudly without a server, failing with CI=true; see support.ts):
 * `companies erase-owner`, `customers erase`, `keys rotate-master`.
 */
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { PgDatabase, PgPersonalDataVault } from "@partnerpay/adapters-pg"
import { Companies, Ids } from "@partnerpay/domain"
import { Effect, Layer } from "effect"
import * as AppConfig from "../src/Config.ts"
import * as Domain from "../src/Domain.ts"
import { appDir, companyBody, freshDatabase, postgresAvailable } from "./support.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const cli = (args: ReadonlyArray<string>, env: Record<string, string>): Promise<Run> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      ["src/cli.ts", ...args],
      {
        cwd: appDir,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
        timeout: 100_000,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1
        resolve({ code, stdout, stderr })
      },
    )
  })

const jsonOf = (run: Run) => {
  assert.strictEqual(run.code, 0, `exit ${run.code}\n${run.stdout}\n${run.stderr}`)
  return JSON.parse(run.stdout) as Record<string, unknown>
}

describe.skipIf(!postgresAvailable)("partnerpay personal data commands on PostgreSQL", () => {
  it("erase an owner, refuse unknown ids, rotate the master key, and rebuild with the new one", {
    timeout: 120_000,
  }, async () => {
    const db = await freshDatabase()
    cleanups.push(db.drop)
    const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-cli-pii-"))
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }))
    const env = { DATABASE_URL: db.url, PARTNERPAY_DATA_DIR: dataDir }

    const created = jsonOf(await cli(["partners", "create", "--name", "Erasure Inc", "--json"], env))
    const partnerId = Ids.PartnerId.make(String(created.partnerId))
    const config = await Effect.runPromise(AppConfig.fromRecord(env))
    const { companyId } = await Effect.runPromise(
      Companies.register(partnerId, companyBody({ companyReferenceId: "cli-pii-1" })).pipe(
        Effect.provide(
          Domain.layerWith(config).pipe(Layer.provideMerge(PgDatabase.layerPostgres(db.url, { maxConnections: 2 }))),
        ),
      ),
    )

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
    // The employees' key remains (the owner's was erased).
    assert.strictEqual(rotated.rewrapped, 1)
    assert.strictEqual(rotated.keyFile, join(dataDir, "data-key"))
    assert.strictEqual(rotated.masterKeyId, PgPersonalDataVault.masterKeyId(PgPersonalDataVault.parseMasterKey(next)))
    assert.notStrictEqual(readFileSync(join(dataDir, "data-key"), "utf8"), before)
    const rebuilt = jsonOf(await cli(["projections", "rebuild", "--json"], env))
    assert.isAbove(Number(rebuilt.eventsReplayed), 0)
  })
})
