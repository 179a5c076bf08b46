/**
 * The data master key: PARTNERPAY_DATA_KEY when set (required in production),
 * else a sandbox key generated once into the data directory (mode 0600) and
 * read back on every start.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { PgPersonalDataVault } from "@partnerpay/adapters-pg"
import { ConfigProvider, Effect, Redacted } from "effect"
import * as Config from "../src/config/Config.ts"
import * as DataKey from "../src/config/DataKey.ts"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const resolveWith = (raw: Partial<Record<Config.Variable, string>>, env: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-data-key-"))
    dirs.push(dataDir)
    const config = yield* Config.fromRecord({ PARTNERPAY_DATA_DIR: dataDir, ...raw })
    const key = yield* DataKey.resolve(config).pipe(
      Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(env)),
      Effect.result,
    )
    return { dataDir, config, key }
  })

const secrets = {
  PARTNERPAY_TOKEN_SECRET: "t".repeat(48),
  PARTNERPAY_OTP_SECRET: "o".repeat(48),
  PARTNERPAY_CHAT_SECRET: "c".repeat(48),
}

describe("the data master key", () => {
  it.effect(
    "in a sandbox without PARTNERPAY_DATA_KEY: generated once into <dataDir>/data-key (0600), then reused",
    () =>
      Effect.gen(function* () {
        const { dataDir, config, key } = yield* resolveWith({})
        assert.strictEqual(key._tag, "Success")
        const path = join(dataDir, "data-key")
        assert.strictEqual(statSync(path).mode & 0o777, 0o600)
        const again = yield* DataKey.resolve(config).pipe(
          Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord({})),
        )
        if (key._tag !== "Success") return
        assert.deepStrictEqual(Redacted.value(again), Redacted.value(key.success))
        assert.deepStrictEqual(
          Redacted.value(PgPersonalDataVault.parseMasterKey(readFileSync(path, "utf8"))),
          Redacted.value(key.success),
        )
      }),
  )

  it.effect("PARTNERPAY_DATA_KEY wins, and no file is written", () =>
    Effect.gen(function* () {
      const text = PgPersonalDataVault.newMasterKeyText()
      const { dataDir, key } = yield* resolveWith({}, { PARTNERPAY_DATA_KEY: text })
      assert.strictEqual(key._tag, "Success")
      if (key._tag !== "Success") return
      assert.deepStrictEqual(Redacted.value(key.success), Redacted.value(PgPersonalDataVault.parseMasterKey(text)))
      assert.throws(() => statSync(join(dataDir, "data-key")))
    }),
  )

  it.effect("production refuses to start without PARTNERPAY_DATA_KEY, naming it with the other variables", () =>
    Effect.gen(function* () {
      const refusal = yield* Effect.flip(Config.fromRecord({ PARTNERPAY_ENV: "production", ...secrets }))
      const issue = refusal.issues.find((candidate) => candidate.variable === "PARTNERPAY_DATA_KEY")
      assert.include(issue?.message, "is required when PARTNERPAY_ENV=production")
    }),
  )

  it.effect("a malformed key is refused at start and when resolved, named, never echoed", () =>
    Effect.gen(function* () {
      const refusal = yield* Effect.flip(Config.fromRecord({ PARTNERPAY_DATA_KEY: "not-a-key-at-all" }))
      assert.include(refusal.message, "PARTNERPAY_DATA_KEY: a data master key must be 32 bytes")
      assert.notInclude(refusal.message, "not-a-key-at-all")
      const malformed = yield* resolveWith({}, { PARTNERPAY_DATA_KEY: "not-a-key-at-all" })
      assert.strictEqual(malformed.key._tag, "Failure")
      if (malformed.key._tag === "Failure") {
        assert.include(malformed.key.failure.message, "PARTNERPAY_DATA_KEY: a data master key must be 32 bytes")
        assert.notInclude(malformed.key.failure.message, "not-a-key-at-all")
      }
    }),
  )
})
