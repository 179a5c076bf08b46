/**
 * The committed trimmed provider documents (`documents/*.json`) are what
 * `documents/trim.ts` makes from the published documents in
 * `../shared/providers/`: regenerated and compared when that folder is
 * present (it is not in a clone of the project alone: then only this
 * freshness check is skipped, never a contract test). Each committed copy
 * keeps every operation the adapters call and none of the providers' prose.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { fixtures, operations, sourcesPresent, trimAll, trimmedDir, trimmedName } from "./documents/trim.ts"

type Json = Record<string, unknown>

const committed = (name: string) => readFileSync(`${trimmedDir}${name}`, "utf8")

describe("the committed trimmed provider documents", () => {
  // Parses 5.5 MB of published documents (CPU only, nothing waited on): seconds on a busy machine.
  it.skipIf(!sourcesPresent())(
    "are what the script makes from ../shared/providers/ today",
    () => {
      for (const [name, text] of trimAll()) {
        assert.strictEqual(committed(name), text, `${name} is stale: run ./pnpm providers:trim`)
      }
    },
    120_000,
  )

  it("keep each operation the adapters call", () => {
    for (const [file, wanted] of Object.entries(operations)) {
      const paths = (JSON.parse(committed(trimmedName(file))) as Json).paths as Record<string, Json>
      const kept = Object.entries(paths).flatMap(([template, item]) =>
        Object.keys(item)
          .filter((key) => key !== "parameters")
          .map((method) => `${method} ${template}`),
      )
      assert.sameMembers(kept, [...wanted], file)
    }
  })

  it("keep each published example object the Stripe fake answers with, and no other", () => {
    for (const [file, wanted] of Object.entries(fixtures)) {
      const resources = (JSON.parse(committed(trimmedName(file))) as { resources: Json }).resources
      assert.sameMembers(Object.keys(resources), [...wanted], file)
      for (const name of wanted) assert.strictEqual((resources[name] as Json).object, name, `${file} ${name}`)
    }
  })

  it("keep no summary and no description of an operation or a parameter", () => {
    for (const file of Object.keys(operations)) {
      const paths = (JSON.parse(committed(trimmedName(file))) as Json).paths as Record<string, Record<string, Json>>
      for (const item of Object.values(paths)) {
        for (const [method, operation] of Object.entries(item)) {
          if (method === "parameters") continue
          assert.isUndefined(operation.summary, file)
          assert.isUndefined(operation.description, file)
          for (const parameter of (operation.parameters ?? []) as Array<Json>) assert.isUndefined(parameter.description)
        }
      }
    }
  })
})
