/** `.env.example` is the configuration reference as a file: every variable, nothing else, up to date. */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import * as EnvExample from "../src/config/EnvExample.ts"
import * as Settings from "../src/config/Settings.ts"

const committed = readFileSync(new URL("../../../.env.example", import.meta.url), "utf8")

describe(".env.example", () => {
  it("is what the configuration reference renders (run ./pnpm env:example after changing a setting)", () => {
    assert.strictEqual(committed, EnvExample.render())
  })

  it("names every variable the service reads, once, and no other", () => {
    const named = [...committed.matchAll(/^#([A-Z][A-Z0-9_]*)=$/gm)].map((match) => match[1])
    assert.deepStrictEqual(
      named,
      Settings.all.map((setting) => setting.name),
    )
  })
})
