/**
 * `pnpm --filter @partnerpay/client generate`: writes `src/generated/openapi.ts` from the
 * current API definition (see scripts/openapiTypes.ts). Run it after changing the API; commit
 * the result.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"
import { generatedPath, generateTypes } from "./openapiTypes.ts"

const types = await generateTypes()
let before: string | undefined
try {
  before = readFileSync(generatedPath, "utf8")
} catch {
  before = undefined
}
mkdirSync(dirname(generatedPath), { recursive: true })
writeFileSync(generatedPath, types)
console.log(`${generatedPath}: ${before === types ? "unchanged" : "written"} (${types.length} characters)`)
