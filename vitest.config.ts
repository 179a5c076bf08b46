/**
 * The workspace's test run (`./pnpm test`, `vitest run`): one project per package (its own
 * `packages/<name>/vitest.config.ts`).
 *
 * The packages whose tests keep no state between files (pure code, in-process fakes: no database, no
 * process, no global metric or environment left changed) run without isolation here: one worker
 * imports effect and the package once for all their files instead of once per file, which was 60% of
 * their time (domain 100 s -> 11 s, adapters-http + client + secrets 92 s -> 27 s on the shared 2-core
 * machine; docs/decisions.md "CI wall time"). The others (adapters-pg, app: databases, service
 * processes, Effect's global metric registry) keep one fresh module graph per file. A package's own
 * config is unchanged (the mutation run uses the domain's, isolated).
 */
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { defineConfig } from "vitest/config"

const sharedModules = new Set(["domain", "adapters-http", "client", "secrets"])

const packages = readdirSync(join(import.meta.dirname, "packages")).filter((name) =>
  existsSync(join(import.meta.dirname, "packages", name, "vitest.config.ts")),
)

export default defineConfig({
  test: {
    projects: packages.map((name) =>
      sharedModules.has(name)
        ? {
            extends: `./packages/${name}/vitest.config.ts`,
            root: `./packages/${name}`,
            test: { name, isolate: false },
          }
        : `packages/${name}`,
    ),
  },
})
