/**
 * The operator CLI, run as operators run it: `node src/cli.ts <command>` in a
 * child process, on a temporary embedded database (PGlite) and on a fresh
 * PostgreSQL database (skipped loudly without a server, failing with CI=true;
 * see support.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { PgDatabase } from "@partnerpay/adapters-pg"
import { Companies, Ids } from "@partnerpay/domain"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Domain from "../src/Domain.ts"
import { type CliRun, cli, companyBody, freshDatabase, jsonOf, postgresAvailable } from "./support.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

/** The `{"progress":{...}}` lines a command wrote on stderr. */
const progressLines = (run: CliRun): Array<Record<string, unknown>> =>
  run.stderr
    .split("\n")
    .filter((line) => line.startsWith('{"progress"'))
    .map((line) => (JSON.parse(line) as { progress: Record<string, unknown> }).progress)

const commands: ReadonlyArray<readonly [ReadonlyArray<string>, ReadonlyArray<string>]> = [
  [[], ["migrate", "projections", "partners", "webhooks", "ledger"]],
  [["migrate"], ["--json"]],
  [["projections"], ["rebuild"]],
  [["projections", "rebuild"], ["--json"]],
  [["partners"], ["create", "rotate-secret", "revoke-tokens", "set-webhook"]],
  [
    ["partners", "create"],
    ["--name", "--json"],
  ],
  [["partners", "rotate-secret"], ["partnerId"]],
  [
    ["partners", "revoke-tokens"],
    ["partnerId", "--json"],
  ],
  [
    ["partners", "set-webhook"],
    ["partnerId", "--url", "--signing-secret"],
  ],
  [["webhooks"], ["list", "redeliver"]],
  [
    ["webhooks", "list"],
    ["--status", "--limit", "--json"],
  ],
  [["webhooks", "redeliver"], ["id"]],
]

describe("partnerpay --help", () => {
  it("every command answers --help with exit code 0, listing its subcommands or flags", {
    timeout: 90_000,
  }, async () => {
    const runs = await Promise.all(commands.map(([path]) => cli([...path, "--help"])))
    runs.forEach((run, index) => {
      const [path, expected] = commands[index]!
      assert.strictEqual(run.code, 0, `${path.join(" ")} --help: ${run.stderr}`)
      assert.include(run.stdout, "USAGE")
      for (const word of expected) assert.include(run.stdout, word, `${path.join(" ")} --help lists ${word}`)
    })
  })

  it("an unknown command exits non-zero", { timeout: 30_000 }, async () => {
    const run = await cli(["partners", "bogus"])
    assert.notStrictEqual(run.code, 0)
    assert.include(run.stdout + run.stderr, "bogus")
  })
})

/** create, rotate-secret, revoke-tokens, set-webhook, list on the database `env` names. */
const onboarding = async (env: Record<string, string>, checkUnknown: boolean) => {
  const created = jsonOf(await cli(["partners", "create", "--name", "Acme Payroll", "--json"], env))
  assert.deepStrictEqual(Object.keys(created).sort(), ["clientId", "clientSecret", "partnerId"])
  const rotated = jsonOf(await cli(["partners", "rotate-secret", String(created.partnerId), "--json"], env))
  assert.strictEqual(rotated.partnerId, created.partnerId)
  assert.strictEqual(rotated.clientId, created.clientId)
  assert.notStrictEqual(rotated.clientSecret, created.clientSecret)
  assert.match(String(rotated.clientSecret), /^\S{32,}$/)
  const revoked = jsonOf(await cli(["partners", "revoke-tokens", String(created.partnerId), "--json"], env))
  assert.strictEqual(revoked.partnerId, created.partnerId)
  assert.isAbove(Number(revoked.tokenGeneration), 0)
  if (checkUnknown) {
    const unknownRevoke = await cli(["partners", "revoke-tokens", "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b"], env)
    assert.strictEqual(unknownRevoke.code, 1)
    assert.include(unknownRevoke.stderr, "Partner not found")
    const unknown = await cli(["partners", "rotate-secret", "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b"], env)
    assert.strictEqual(unknown.code, 1)
    assert.include(unknown.stderr, "Partner not found")
  }
  return created
}

describe("partnerpay on the embedded database", () => {
  it("migrate applies once, then partners create and rotate-secret; a second process is refused", {
    timeout: 120_000,
  }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-cli-"))
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }))
    const env = { PARTNERPAY_DATA_DIR: dataDir }

    const migrated = await cli(["migrate", "--json"], env)
    const first = jsonOf(migrated)
    assert.isAbove((first.applied as Array<string>).length, 0)
    // One JSON progress line per migration applied, on stderr, in order.
    assert.deepStrictEqual(
      progressLines(migrated).map((line) => line.applied),
      first.applied as Array<string>,
    )
    const second = await cli(["migrate"], env)
    assert.strictEqual(second.code, 0)
    assert.include(second.stdout, "no migration applied")

    await onboarding(env, false)

    // The data directory is held by a live process (this test runner): the CLI refuses with a clear message.
    writeFileSync(join(dataDir, "pglite.lock"), String(process.pid))
    const refused = await cli(["webhooks", "list"], env)
    rmSync(join(dataDir, "pglite.lock"))
    assert.strictEqual(refused.code, 1)
    assert.include(refused.stderr, `is in use by process ${process.pid}`)
    assert.include(refused.stderr, "PGlite allows one process at a time")
  })
})

describe.skipIf(!postgresAvailable)("partnerpay on PostgreSQL", () => {
  it("migrate twice, onboarding, webhooks, projections rebuild counts the events", { timeout: 120_000 }, async () => {
    const db = await freshDatabase()
    cleanups.push(db.drop)
    const env = { DATABASE_URL: db.url }

    const migrated = await cli(["migrate", "--json"], env)
    const first = jsonOf(migrated)
    assert.isAbove((first.applied as Array<string>).length, 0)
    // One JSON progress line per migration applied, on stderr, in order.
    assert.deepStrictEqual(
      progressLines(migrated).map((line) => line.applied),
      first.applied as Array<string>,
    )
    assert.deepStrictEqual(jsonOf(await cli(["migrate", "--json"], env)), { applied: [] })

    const created = await onboarding(env, false)
    const webhook = jsonOf(
      await cli(
        [
          "partners",
          "set-webhook",
          String(created.partnerId),
          "--url",
          "http://127.0.0.1:9/hooks",
          "--signing-secret",
          "whsec-cli",
          "--json",
        ],
        env,
      ),
    )
    assert.deepStrictEqual(webhook, { partnerId: created.partnerId, url: "http://127.0.0.1:9/hooks" })
    const badUrl = await cli(
      ["partners", "set-webhook", String(created.partnerId), "--url", "ftp://x", "--signing-secret", "s"],
      env,
    )
    assert.strictEqual(badUrl.code, 1)
    assert.include(badUrl.stderr, "url must be an absolute http:// or https:// URL")

    // Some history, written in-process through the domain stack.
    const partnerId = Ids.PartnerId.make(String(created.partnerId))
    const events = await Effect.runPromise(
      Effect.gen(function* () {
        yield* Companies.register(partnerId, companyBody({ companyReferenceId: "cli-1" }))
        yield* Companies.register(partnerId, companyBody({ companyReferenceId: "cli-2" }))
        const sql = yield* SqlClient
        const rows = yield* sql<{ count: string }>`SELECT count(*)::text AS count FROM events`
        return Number(rows[0]!.count)
      }).pipe(
        Effect.provide(Domain.layer.pipe(Layer.provideMerge(PgDatabase.layerPostgres(db.url, { maxConnections: 2 })))),
      ),
    )
    assert.isAbove(events, 0)
    const rebuilt = await cli(["projections", "rebuild", "--json"], env)
    assert.deepStrictEqual(jsonOf(rebuilt), { eventsReplayed: events })
    // Progress on stderr: starts at 0 of every event, ends with all of them done.
    const progress = progressLines(rebuilt)
    assert.isAtLeast(progress.length, 2)
    assert.deepInclude(progress[0], { operation: "rebuilding read models", done: 0, total: events })
    assert.deepInclude(progress.at(-1), { done: events, total: events, etaSeconds: 0 })
    const list = jsonOf(await cli(["webhooks", "list", "--status", "pending", "--limit", "5", "--json"], env))
    assert.isArray(list.data)
    const missing = await cli(["webhooks", "redeliver", "no-such-delivery"], env)
    assert.strictEqual(missing.code, 1)
    assert.include(missing.stderr, "Delivery not found")
  })

  it("ledger check prints the trial balance, and exits 1 naming what is wrong", { timeout: 120_000 }, async () => {
    const db = await freshDatabase()
    cleanups.push(db.drop)
    const env = { DATABASE_URL: db.url }
    assert.strictEqual((await cli(["migrate"], env)).code, 0)
    const help = await cli(["ledger", "check", "--help"], env)
    for (const word of ["--as-of", "--json"]) assert.include(help.stdout, word)
    const empty = await cli(["ledger", "check", "--as-of", "2026-03-31T23:59:59Z"], env)
    assert.strictEqual(empty.code, 0, empty.stderr)
    assert.include(empty.stdout, "The books balance (as of 2026-03-31T23:59:59.000Z).")
    const badInstant = await cli(["ledger", "check", "--as-of", "yesterday"], env)
    assert.strictEqual(badInstant.code, 1)
    assert.include(badInstant.stderr, "invalid input: --as-of must be an ISO 8601 date-time")

    // A balance the books do not hold (as a lost posting would leave it).
    await Effect.runPromise(
      Effect.flatMap(
        SqlClient,
        (sql) => sql`INSERT INTO read_models (collection, id, partner_id, sort_key, data)
          VALUES ('balances', 'c-lost', 'p', '2026-03-01', ${JSON.stringify({ companyId: "c-lost", partnerId: "p", available: [{ minorUnits: 500, currency: "USD" }], updatedAt: "2026-03-01T00:00:00.000Z" })}::jsonb)`,
      ).pipe(Effect.provide(PgDatabase.layerPostgres(db.url, { maxConnections: 1 }))),
    )
    const wrong = await cli(["ledger", "check", "--json"], env)
    assert.strictEqual(wrong.code, 1)
    assert.include(wrong.stderr, "the ledger is wrong: company c-lost: payable 0 USD minor units but balance 500")
    assert.deepInclude(JSON.parse(wrong.stdout), { balanced: false, asOf: null })
  })
})
