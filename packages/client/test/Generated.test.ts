/**
 * The committed types (src/generated/openapi.ts) are what the generator makes from the current
 * API definition: an API change without `pnpm --filter @partnerpay/client generate` fails here.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { generatedPath, generateTypes, openApiDocument } from "../scripts/openapiTypes.ts"

describe("src/generated/openapi.ts", () => {
  it("is what openapi-typescript generates from the current OpenAPI document", async () => {
    const committed = readFileSync(generatedPath, "utf8")
    const generated = await generateTypes()
    assert.isTrue(
      committed === generated,
      "src/generated/openapi.ts is out of date: run `pnpm --filter @partnerpay/client generate` and commit it",
    )
  }, 60_000)

  it("covers every operation of the document", () => {
    const committed = readFileSync(generatedPath, "utf8")
    const paths = Object.keys(openApiDocument().paths as Record<string, unknown>)
    const missing = paths.filter((path) => !committed.includes(`    ${JSON.stringify(path)}: {`))
    assert.deepStrictEqual(missing, [])
    assert.isAtLeast(paths.length, 50)
  })
})
