/**
 * The published packages' manifests, checked (the tarballs themselves are installed and run by
 * `pnpm test:embed`): what each package imports at run time is declared for the embedder, the
 * libraries that must exist once (effect, @effect/*, the domain) are peer dependencies, and the
 * published `exports` mirror the workspace's source `exports` with JavaScript and declarations.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"

const root = join(import.meta.dirname, "..", "..", "..")
const published = ["domain", "secrets", "adapters-pg", "adapters-http"]

interface Manifest {
  readonly name: string
  readonly private?: boolean
  readonly license?: string
  readonly repository?: unknown
  readonly files?: ReadonlyArray<string>
  readonly exports: Record<string, string>
  readonly publishConfig?: { readonly exports?: Record<string, { readonly types: string; readonly import: string }> }
  readonly dependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
  readonly devDependencies?: Record<string, string>
}

const manifestOf = (pkg: string): Manifest =>
  JSON.parse(readFileSync(join(root, "packages", pkg, "package.json"), "utf8")) as Manifest

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  )

/** The packages a package's src/ imports at run time (type-only imports and node: builtins excluded). */
const runtimeImportsOf = (pkg: string): Set<string> => {
  const names = new Set<string>()
  for (const file of sourceFiles(join(root, "packages", pkg, "src"))) {
    const text = readFileSync(file, "utf8")
    for (const match of text.matchAll(/^\s*(import|export)(\s+type)?[^"'`]*?from\s+["']([^"']+)["']/gm)) {
      const specifier = match[3]!
      if (match[2] !== undefined || specifier.startsWith(".") || specifier.startsWith("node:")) continue
      names.add(specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!)
    }
  }
  return names
}

/** Must exist once in the embedding service: classes and services are compared by identity. */
const singleCopy = (name: string) => name === "effect" || name.startsWith("@effect/") || name === "@partnerpay/domain"

describe.each(published)("the published package %s", (pkg) => {
  const manifest = manifestOf(pkg)

  it("can be published: not private, MIT licensed with the licence text, a repository and the built files with their source maps", () => {
    expect(manifest.private).toBeUndefined()
    expect(manifest.license).toBe("MIT")
    expect(readFileSync(join(root, "packages", pkg, "LICENSE"), "utf8")).toBe(
      readFileSync(join(root, "LICENSE"), "utf8"),
    )
    expect(manifest.repository).toBeDefined()
    expect(manifest.files).toEqual(["dist/**/*.js", "dist/**/*.js.map", "dist/**/*.d.ts"])
    const build = JSON.parse(readFileSync(join(root, "packages", pkg, "tsconfig.build.json"), "utf8")) as {
      readonly compilerOptions: Record<string, unknown>
    }
    expect(build.compilerOptions).toMatchObject({ sourceMap: true, inlineSources: true })
  })

  it("declares every library its code imports, the single-copy ones as peer dependencies", () => {
    for (const name of runtimeImportsOf(pkg)) {
      if (singleCopy(name)) {
        expect(manifest.peerDependencies, `${pkg} imports ${name}`).toHaveProperty([name])
        expect(manifest.dependencies ?? {}, `${pkg}: ${name} must not be a dependency`).not.toHaveProperty([name])
        // the workspace itself installs the peers as devDependencies
        expect(manifest.devDependencies, `${pkg} develops against ${name}`).toHaveProperty([name])
      } else {
        expect(manifest.dependencies, `${pkg} imports ${name}`).toHaveProperty([name])
      }
    }
  })

  it("publishes the workspace's exports as JavaScript with declarations", () => {
    const sources = manifest.exports
    const built = manifest.publishConfig?.exports ?? {}
    expect(Object.keys(built)).toEqual(Object.keys(sources))
    for (const [entry, source] of Object.entries(sources)) {
      const base = source.replace(/^\.\/src\//, "./dist/").replace(/\.ts$/, "")
      expect(built[entry]).toEqual({ types: `${base}.d.ts`, import: `${base}.js` })
    }
  })
})
