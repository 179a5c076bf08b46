/**
 * The authorization evidence purge worker's step (`workers/EvidencePurge.ts`) on its production path:
 * no sandbox clocks (the clock is the service's own: a TestClock here), keys in the vault (memory
 * table). It destroys the evidence keys whose two years are over, and only those, and runs in both
 * environments. The whole path on PGlite and PostgreSQL with sandbox clocks:
 * AuthorizationEvidenceRetention.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { PgPersonalDataVault } from "@partnerpay/adapters-pg"
import { PersonalData } from "@partnerpay/domain"
import { Effect, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import * as Config from "../src/config/Config.ts"
import * as Service from "../src/Service.ts"
import * as EvidencePurge from "../src/workers/EvidencePurge.ts"
import { productionEnvironment } from "./support.ts"

const master = Redacted.make(new Uint8Array(32).fill(7))

describe("the evidence purge (production: the service's clock)", () => {
  it.effect("destroys the evidence keys two years and a day old, keeps the younger ones and other subjects", () =>
    Effect.gen(function* () {
      const vault = PgPersonalDataVault.makeMemory(master)
      const old = "authorization-evidence:2024-03-01:payer-1"
      const young = "authorization-evidence:2024-03-02:payer-1"
      for (const subject of [old, young, "customer:payer-1"]) yield* vault.seal(subject, "203.0.113.5")
      const step = EvidencePurge.step().pipe(Effect.provide(Layer.succeed(PersonalData.PersonalDataVault, vault)))
      yield* TestClock.setTime(Date.parse("2026-03-01T23:59:59.999Z"))
      assert.strictEqual(yield* step, 0)
      yield* TestClock.setTime(Date.parse("2026-03-02T00:00:00.000Z"))
      assert.strictEqual(yield* step, 1)
      assert.deepStrictEqual(
        (yield* vault.subjects("authorization-evidence:")).map((key) => key.subject),
        [young],
      )
      assert.isTrue(yield* vault.erase("customer:payer-1"))
      assert.strictEqual(yield* step, 0)
    }),
  )

  it.effect("runs in both environments", () =>
    Effect.gen(function* () {
      const sandbox = yield* Config.fromRecord({})
      const production = yield* Config.fromRecord(productionEnvironment())
      assert.include(Service.workerNames(sandbox), EvidencePurge.name)
      assert.include(Service.workerNames(production), EvidencePurge.name)
    }),
  )
})
