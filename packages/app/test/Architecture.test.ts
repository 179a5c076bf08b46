/**
 * The architecture, checked: dependencies point inward. The domain imports
 * nothing but `effect`; each adapter imports the domain but never the other
 * adapter or the app. Reads every source file's import specifiers.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { describe, expect, it } from "@effect/vitest"

const root = join(import.meta.dirname, "..", "..", "..")

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  )

/** Package-level import specifiers of a package's src/ (relative imports excluded). */
const importsOf = (pkg: string): Map<string, Array<string>> => {
  const found = new Map<string, Array<string>>()
  for (const file of sourceFiles(join(root, "packages", pkg, "src"))) {
    const text = readFileSync(file, "utf8")
    for (const match of text.matchAll(/^\s*(?:import|export)[^"'`]*?from\s+["']([^"']+)["']/gm)) {
      const specifier = match[1]!
      if (specifier.startsWith(".")) continue
      const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!
      found.set(name, [...(found.get(name) ?? []), relative(root, file)])
    }
  }
  return found
}

describe("dependencies point inward", () => {
  it("the domain imports nothing but effect", () => {
    expect([...importsOf("domain").keys()].sort()).toEqual(["effect"])
  })

  it("the PostgreSQL adapter depends on the domain, never on the HTTP adapter or the app", () => {
    const names = [...importsOf("adapters-pg").keys()]
    expect(names).toContain("@partnerpay/domain")
    expect(names).not.toContain("@partnerpay/adapters-http")
    expect(names).not.toContain("@partnerpay/app")
  })

  it("the HTTP adapter depends on the domain, never on the PostgreSQL adapter or the app", () => {
    const names = [...importsOf("adapters-http").keys()]
    expect(names).toContain("@partnerpay/domain")
    expect(names).not.toContain("@partnerpay/adapters-pg")
    expect(names).not.toContain("@partnerpay/app")
  })
})
