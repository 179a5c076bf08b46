/**
 * The CommonJS build (`require("@partnerpay/client")`): compiles src/ with tsconfig.cjs.json into dist/cjs/
 * and marks that folder CommonJS (its own package.json), beside the ES module build in dist/. Run by
 * `build` and `prepack` after the ES module build (whose declarations both share).
 */
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { createRequire } from "node:module"

const packageDir = new URL("..", import.meta.url)
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
execFileSync(process.execPath, [tsc, "-p", "tsconfig.cjs.json"], { cwd: packageDir, stdio: "inherit" })
writeFileSync(new URL("dist/cjs/package.json", packageDir), '{\n  "type": "commonjs"\n}\n')
