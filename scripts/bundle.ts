/**
 * `./pnpm bundle --out DIR`: the operator's deployable artifact, a self-contained directory that runs
 * with Node alone (no pnpm, no TypeScript, no workspace):
 *
 *   DIR/main.js          the service (`node DIR/main.js`; applies the runtime flags as `./pnpm start`)
 *   DIR/partnerpay       the operator CLI (`DIR/partnerpay migrate`, `... listen`, ...), executable
 *   DIR/app/             the service and CLI compiled to JavaScript (packages/app/tsconfig.build.json)
 *   DIR/node_modules/    production dependencies only (flat), the workspace packages compiled to
 *                        JavaScript under @partnerpay/, effect and @effect/sql-pg with the repository's patches
 *   DIR/package.json     the dependency list, exact versions
 *   DIR/.env.example     the configuration reference
 *
 * The migrations are compiled into @partnerpay/adapters-pg and run at start (or `DIR/partnerpay migrate`).
 * The embedded database's default directory is `DIR/.data` (set PARTNERPAY_DATA_DIR, or DATABASE_URL for
 * PostgreSQL, in production). External dependencies come from pnpm's store (`--prefer-offline`), so a
 * machine that installed the workspace builds the bundle without the network.
 */
import { execFileSync } from "node:child_process"
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const workspacePackages = ["domain", "secrets", "adapters-pg", "adapters-http"] as const
const marker = ".partnerpay-bundle"

const fail = (message: string): never => {
  process.stderr.write(`bundle: ${message}\n`)
  process.exit(2)
}

const outArgument = (): string => {
  const args = process.argv.slice(2)
  const index = args.indexOf("--out")
  const inline = args.find((arg) => arg.startsWith("--out="))
  const value = inline !== undefined ? inline.slice("--out=".length) : index === -1 ? undefined : args[index + 1]
  if (value === undefined || value === "") return fail("usage: ./pnpm bundle --out DIR")
  return resolve(process.env.INIT_CWD ?? process.cwd(), value)
}

type Manifest = {
  name: string
  version: string
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  publishConfig?: { exports?: Record<string, { import?: string }> }
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, "utf8")) as T

/** Copies the `.js` files of `from` (recursively) to `to`. */
const copyJs = (from: string, to: string) =>
  cpSync(from, to, {
    recursive: true,
    filter: (source) => !/\.(d\.ts|tsbuildinfo|map)$/.test(source) && !source.endsWith(".d.ts"),
  })

/** The installed version of `name` as the workspace package `from` resolves it. */
const installedVersion = (from: string, name: string): string => {
  let directory = dirname(createRequire(join(from, "package.json")).resolve(name))
  while (
    !existsSync(join(directory, "package.json")) ||
    readJson<Manifest>(join(directory, "package.json")).name !== name
  ) {
    const parent = dirname(directory)
    if (parent === directory) return fail(`cannot find the installed version of ${name}`)
    directory = parent
  }
  return readJson<Manifest>(join(directory, "package.json")).version
}

const out = outArgument()
if (existsSync(out) && readdirSync(out).length > 0 && !existsSync(join(out, marker)))
  fail(`${out} exists and is not a bundle: give an empty or new directory`)
rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
writeFileSync(join(out, marker), "made by ./pnpm bundle\n")

// 1. Compile the app and the workspace packages it uses to JavaScript.
const started = Date.now()
execFileSync(
  process.execPath,
  [join(root, "node_modules/typescript/bin/tsc"), "-b", "packages/app/tsconfig.build.json"],
  {
    cwd: root,
    stdio: "inherit",
  },
)
copyJs(join(root, "packages/app/dist"), join(out, "app"))

// 2. The external production dependencies, at the versions the workspace runs.
const app = join(root, "packages/app")
const dependencies: Record<string, string> = {}
const manifests = [app, ...workspacePackages.map((name) => join(root, "packages", name))].map((directory) => ({
  directory,
  manifest: readJson<Manifest>(join(directory, "package.json")),
}))
for (const { directory, manifest } of manifests)
  for (const name of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }))
    if (!name.startsWith("@partnerpay/")) dependencies[name] ??= installedVersion(directory, name)
const workspace = readFileSync(join(root, "pnpm-workspace.yaml"), "utf8")
const patched: Record<string, string> = {}
for (const match of workspace.matchAll(/^\s+"?([^":\s]+@[0-9][^":\s]*)"?:\s*(patches\/\S+)$/gm)) {
  const [, key, file] = match as unknown as [string, string, string]
  const name = key.slice(0, key.lastIndexOf("@"))
  if (dependencies[name] !== undefined) {
    mkdirSync(join(out, "patches"), { recursive: true })
    cpSync(join(root, file), join(out, file))
    patched[key] = file
  }
}
const appManifest = readJson<Manifest>(join(app, "package.json"))
writeFileSync(
  join(out, "package.json"),
  `${JSON.stringify(
    {
      name: "partnerpay-bundle",
      version: appManifest.version,
      private: true,
      type: "module",
      description: "partnerpay, deployable: node main.js (service), ./partnerpay (operator CLI)",
      engines: { node: ">=22.19" },
      bin: { partnerpay: "./partnerpay" },
      dependencies,
      pnpm: { patchedDependencies: patched, overrides: { redis: "-" }, onlyBuiltDependencies: [] },
    },
    null,
    2,
  )}\n`,
)
execFileSync(
  "pnpm",
  [
    "install",
    "--prod",
    "--ignore-workspace",
    "--prefer-offline",
    "--config.node-linker=hoisted",
    "--config.confirmModulesPurge=false",
    "--silent",
  ],
  { cwd: out, stdio: "inherit", env: { ...process.env, npm_config_update_notifier: "false" } },
)

// 3. The workspace packages, compiled, as their published form (exports on dist/).
for (const { directory, manifest } of manifests.slice(1)) {
  const target = join(out, "node_modules", manifest.name)
  rmSync(target, { recursive: true, force: true })
  copyJs(join(directory, "dist"), join(target, "dist"))
  const exports = Object.fromEntries(
    Object.entries(manifest.publishConfig?.exports ?? {}).map(([path, entry]) => [path, entry.import]),
  )
  writeFileSync(
    join(target, "package.json"),
    `${JSON.stringify({ name: manifest.name, version: manifest.version, type: "module", exports }, null, 2)}\n`,
  )
}

// 4. The entry points and the configuration reference.
writeFileSync(
  join(out, "main.js"),
  `// partnerpay's service: \`node main.js\` (configuration: the environment, see .env.example).\nimport "./app/start.js"\n`,
)
writeFileSync(
  join(out, "partnerpay"),
  `#!/usr/bin/env node\n// partnerpay's operator CLI: \`./partnerpay --help\`.\nimport "./app/cli.js"\n`,
)
chmodSync(join(out, "partnerpay"), 0o755)
if (existsSync(join(root, ".env.example"))) cpSync(join(root, ".env.example"), join(out, ".env.example"))

process.stdout.write(
  `bundle: ${relative(process.cwd(), out) || "."} ready in ${Math.round((Date.now() - started) / 1000)} s: node ${join(out, "main.js")}\n`,
)
