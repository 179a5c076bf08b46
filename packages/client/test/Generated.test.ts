/**
 * The generated types (src/generated/openapi.ts, derived from the API definition, never committed)
 * cover the whole document, and the shapes several operations share are named components, one
 * type each.
 */
import { assert, describe, it } from "@effect/vitest"
import { generateTypes, openApiDocument } from "../scripts/openapiTypes.ts"

describe("the generated types", () => {
  it("cover every operation of the document", async () => {
    const generated = await generateTypes()
    const paths = Object.keys(openApiDocument().paths as Record<string, unknown>)
    const missing = paths.filter((path) => !generated.includes(`    ${JSON.stringify(path)}: {`))
    assert.deepStrictEqual(missing, [])
    assert.isAtLeast(paths.length, 50)
  }, 60_000)

  it("name the shared response shapes once, as components", () => {
    const schemas = (openApiDocument().components as { schemas: Record<string, unknown> }).schemas
    for (const name of ["PaymentRequest", "PaymentPlan", "Consent", "DebitAuth", "Instalment", "Currency"])
      assert.property(schemas, name)
  })
})
