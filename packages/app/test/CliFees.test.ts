/**
 * `partnerpay fees show|set`, run as operators run it (`node src/cli.ts`) on a temporary embedded
 * database: none by default, one rail set, a bad value refused naming the field with nothing changed.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { cli, jsonOf } from "./support.ts"

const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-cli-fees-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))
const env = { PARTNERPAY_DATA_DIR: dataDir }

describe("partnerpay fees on the embedded database", () => {
  it("sets a rail's schedule, refuses a bad percentage naming it, shows the rails (none where unset)", {
    timeout: 300_000,
  }, async () => {
    const { partnerId } = jsonOf(await cli(["partners", "create", "--name", "Fees Partner", "--json"], env))
    const args = ["fees", "set", String(partnerId), "--rail", "AchDebit", "--percentage-bps", "100"]
    const set = jsonOf(await cli([...args, "--fixed", "0.3", "--return-fee", "5", "--pass-return-fee", "--json"], env))
    assert.deepStrictEqual((set.rails as Array<unknown>)[0], {
      rail: "AchDebit",
      percentageBasisPoints: 100,
      fixed: { value: 0.3, currencyCode: "USD" },
      providerCost: null,
      returnFee: { value: 5, currencyCode: "USD" },
      returnFeePassedOn: true,
    })

    const bad = await cli(["fees", "set", String(partnerId), "--rail", "Card", "--percentage-bps", "20000"], env)
    assert.strictEqual(bad.code, 1)
    assert.include(bad.stderr, "invalid input: percentageBasisPoints")
    // Nothing changed; the rail not set has none.
    const shown = await cli(["fees", "show", String(partnerId)], env)
    assert.strictEqual(shown.code, 0, shown.stderr)
    assert.include(
      shown.stdout,
      "AchDebit: platform fee 100 bps + 0.3 USD; provider cost none; return fee 5 USD (passed on to the company)",
    )
    assert.include(shown.stdout, "Card: platform fee 0 bps + none; provider cost none; return fee none")
  })
})
