/**
 * Architecture (issue 34): no background worker and no request handler opens
 * a database transaction. A worker claims its item (`work_claims`), a use case
 * commits its unit of work in one statement, and a provider is called with
 * nothing open; a transaction held around work in Node once waited on a
 * provider, or on the other pool, and stalled every request behind it. The
 * runtime guard (`ProviderGuard.test.ts`) catches a provider called inside one;
 * this catches the transaction itself.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"

const root = fileURLToPath(new URL("../../", import.meta.url))

const sources = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) return sources(path)
    return path.endsWith(".ts") ? [path] : []
  })

/** The files that open a transaction (`withTransaction(` outside comments). */
const opening = (files: ReadonlyArray<string>) =>
  files
    .filter((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .some((line) => !/^\s*(\*|\/\/)/.test(line) && line.includes("withTransaction(")),
    )
    .map((file) => file.slice(root.length))

describe("database transactions", () => {
  it("are opened by no background worker", () => {
    assert.deepStrictEqual(opening(sources(join(root, "app/src/workers"))), [])
  })

  it("are opened by no request handler, and by no provider adapter", () => {
    assert.deepStrictEqual(opening(sources(join(root, "adapters-http/src"))), [])
    assert.deepStrictEqual(opening(sources(join(root, "app/src/providers"))), [])
  })

  it("are left only to migrations, projection rebuilds and master-key rotation", () => {
    assert.deepStrictEqual(
      opening([...sources(join(root, "adapters-pg/src")), ...sources(join(root, "app/src"))]).sort(),
      ["adapters-pg/src/Migrations.ts", "adapters-pg/src/PgDomain.ts", "adapters-pg/src/PgPersonalDataVault.ts"],
    )
  })
})
