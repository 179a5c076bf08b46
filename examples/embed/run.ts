/**
 * The embedding check (`pnpm test:embed`, part of `pnpm test`): does a service that installs
 * partnerpay's published packages get working JavaScript and types?
 *
 * 1. The embedding guide (packages/domain/README.md) shows src/consent.ts and src/main.ts
 *    verbatim, so the guide's code is the code that runs here.
 * 2. Builds the four publishable packages from scratch (dist/: JavaScript and .d.ts) and packs
 *    them with `pnpm pack` (the tarballs a registry would serve).
 * 3. Copies this example into a fresh temporary project, points its @partnerpay dependencies at
 *    the tarballs and runs `npm install` (effect and the other peers from the registry, at the
 *    workspace's versions; the environment is kept, so NODE_EXTRA_CA_CERTS applies).
 * 4. Type-checks it with its own ordinary strict NodeNext tsconfig, the packages' declarations
 *    included (`--skipLibCheck false`; only third-party declaration errors are tolerated), and
 *    emits JavaScript.
 * 5. Runs it on Node 22.19.0 (the oldest Node the packages support, downloaded from the npm
 *    registry into the temporary directory, as ./pnpm provisions its Node) and on the Node
 *    running this script (the toolchain's Node 24): the consent is requested, accepted and
 *    declined (Revoked) and the plan Cancelled, in memory and on PGlite; the HTTP adapter loads.
 *
 * Everything (tarballs, npm cache, PGlite image cache, the downloaded Node) lives in one temporary
 * directory, removed at the end (`--keep` keeps it).
 */
import { spawn } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"

const example = import.meta.dirname
const root = join(example, "..", "..")
const published = ["domain", "secrets", "adapters-pg", "adapters-http"] as const
const oldestNode = "22.19.0"
const tsc = join(root, "node_modules", "typescript", "bin", "tsc")
const keep = process.argv.includes("--keep")
const started = Date.now()

const log = (message: string) => console.log(`embed [${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`)

interface Ran {
  readonly code: number | null
  readonly output: string
}

/** Runs a command with the environment kept (plus `env`), collecting stdout and stderr. */
const exec = (command: string, args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}) =>
  new Promise<Ran>((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk) => {
      output += chunk
    })
    child.stderr.on("data", (chunk) => {
      output += chunk
    })
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, output }))
  })

/** Like `exec`, failing with the command's output unless it exits 0. */
const run = async (command: string, args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}) => {
  const ran = await exec(command, args, cwd, env)
  if (ran.code !== 0) throw new Error(`${command} ${args.join(" ")} (in ${cwd}) exited ${ran.code}:\n${ran.output}`)
  return ran.output
}

/** 1. The guide shows the example's program files, its tsconfig and the commands that build and run it, verbatim. */
const checkGuide = () => {
  const guide = readFileSync(join(root, "packages", "domain", "README.md"), "utf8")
  const tsconfig = readFileSync(join(example, "tsconfig.json"), "utf8")
  if (!guide.includes(`\`\`\`json\n${tsconfig}\`\`\``)) {
    throw new Error("packages/domain/README.md must show examples/embed/tsconfig.json verbatim in a ```json block")
  }
  if (!guide.includes("```sh\nnpx tsc -p tsconfig.json\nnode dist/main.js\n```")) {
    throw new Error(
      "packages/domain/README.md must show how to build and run: npx tsc -p tsconfig.json, node dist/main.js",
    )
  }
  for (const file of ["consent.ts", "main.ts"]) {
    const code = readFileSync(join(example, "src", file), "utf8")
    if (!guide.includes(`\`\`\`ts\n${code}\`\`\``)) {
      throw new Error(`packages/domain/README.md must show examples/embed/src/${file} verbatim in a \`\`\`ts block`)
    }
  }
}

/** The version of `name` the workspace installed (the lockfile's), seen from `fromPackage`. */
const workspaceVersion = (name: string, fromPackage: string): string => {
  const require = createRequire(join(root, fromPackage, "package.json"))
  let dir = require.resolve.paths(name)?.find((base) => existsSync(join(base, name, "package.json")))
  if (dir === undefined) throw new Error(`${name} is not installed in ${fromPackage}`)
  dir = join(dir, name)
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version
}

/** Where the workspace installs each registry dependency of the example. */
const registryDependencies: Record<string, string> = {
  effect: "packages/domain",
  "@effect/sql-pg": "packages/adapters-pg",
  "@effect/platform-node": "packages/adapters-http",
  "@types/node": ".",
  typescript: ".",
}

/** 2. Fresh builds of the published packages, packed into `packs`. */
const buildAndPack = async (packs: string) => {
  for (const name of published) rmSync(join(root, "packages", name, "dist"), { recursive: true, force: true })
  await run(
    process.execPath,
    [tsc, "-b", "packages/adapters-pg/tsconfig.build.json", "packages/adapters-http/tsconfig.build.json"],
    root,
  )
  log("built dist/ of the four packages")
  const tarballs: Record<string, string> = {}
  for (const name of published) {
    const before = new Set(readdirSync(packs))
    await run("pnpm", ["pack", "--pack-destination", packs], join(root, "packages", name))
    const made = readdirSync(packs).find((file) => !before.has(file))
    if (made === undefined) throw new Error(`pnpm pack made no tarball for ${name}`)
    tarballs[`@partnerpay/${name}`] = join(packs, made)
    // The licence and the source maps (with their sources) travel with the JavaScript.
    const listed = (await run("tar", ["-tzf", join(packs, made)], packs)).split("\n")
    for (const needed of ["package/LICENSE", "package/dist/index.js.map"])
      if (!listed.includes(needed)) throw new Error(`the ${name} tarball lacks ${needed}`)
  }
  log(`packed ${Object.values(tarballs).length} tarballs`)
  return tarballs
}

/** 5 (download). The oldest supported Node, from the npm registry's `node` package. */
const fetchNode = async (dir: string, cache: string) => {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "package.json"), '{"private":true}\n')
  await run(
    "npm",
    ["install", "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--loglevel=error", `node@${oldestNode}`],
    dir,
    { npm_config_cache: cache },
  )
  log(`downloaded Node ${oldestNode}`)
  return join(dir, "node_modules", "node", "bin", "node")
}

/** 3. The example as a fresh project depending on the tarballs. */
const install = async (app: string, tarballs: Record<string, string>, cache: string) => {
  mkdirSync(app, { recursive: true })
  for (const entry of ["tsconfig.json", "src"]) cpSync(join(example, entry), join(app, entry), { recursive: true })
  const manifest = JSON.parse(readFileSync(join(example, "package.json"), "utf8"))
  for (const section of ["dependencies", "devDependencies"] as const) {
    for (const name of Object.keys(manifest[section])) {
      const tarball = tarballs[name]
      if (tarball !== undefined) {
        manifest[section][name] = `file:${tarball}`
        continue
      }
      const from = registryDependencies[name]
      if (from === undefined) throw new Error(`examples/embed/package.json: no workspace version known for ${name}`)
      const version = workspaceVersion(name, from)
      if (manifest[section][name] !== version) {
        throw new Error(
          `examples/embed/package.json pins ${name} ${manifest[section][name]}, the workspace has ${version}`,
        )
      }
    }
  }
  writeFileSync(join(app, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`)
  await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], app, { npm_config_cache: cache })
  log(`installed (effect ${manifest.dependencies.effect} from the registry)`)
}

/**
 * 4. Type-check (errors in our code or in the packages' declarations fail), then build as the guide
 * says, with the project's own TypeScript: `npx tsc -p tsconfig.json`.
 */
const typecheck = async (app: string, cache: string) => {
  const ownTsc = join(app, "node_modules", "typescript", "bin", "tsc")
  const checked = await exec(
    process.execPath,
    [ownTsc, "-p", "tsconfig.json", "--skipLibCheck", "false", "--noEmit"],
    app,
  )
  const errors = checked.output.split("\n").filter((line) => /error TS\d+/.test(line))
  const ours = errors.filter(
    (line) => !line.startsWith("node_modules/") || line.startsWith("node_modules/@partnerpay/"),
  )
  if (ours.length > 0 || (checked.code !== 0 && errors.length === 0)) {
    throw new Error(`the embedder's type-check failed:\n${checked.output}`)
  }
  const ignored = errors.length > 0 ? ` (${errors.length} errors in third-party declarations ignored)` : ""
  log(`type-checked with a strict NodeNext tsconfig${ignored}`)
  await run("npx", ["tsc", "-p", "tsconfig.json"], app, { npm_config_cache: cache })
  log("built as the guide says: npx tsc -p tsconfig.json")
}

const expected = [
  'in memory: {"consent":["Pending","Accepted","Revoked"],"plan":"Cancelled"}',
  'PGlite: {"consent":["Pending","Accepted","Revoked"],"plan":"Cancelled"}',
  "HTTP API: has /Consent/{consentId}/Decline",
].join("\n")

/** 5. The program on one Node. */
const runOn = async (node: string, app: string, cache: string) => {
  const version = (await run(node, ["--version"], app)).trim()
  const env = { XDG_CACHE_HOME: cache }
  const output = `${await run(node, ["dist/main.js"], app, env)}${await run(node, ["dist/http.js"], app, env)}`.trim()
  if (output !== expected) throw new Error(`on Node ${version} the example printed:\n${output}\nexpected:\n${expected}`)
  log(`ran on Node ${version}: consent Pending -> Accepted -> Revoked, plan Cancelled (in memory and PGlite)`)
  return version
}

const main = async () => {
  checkGuide()
  const tmp = mkdtempSync(join(tmpdir(), "partnerpay-embed-"))
  try {
    const cache = join(tmp, "cache")
    const packs = join(tmp, "packs")
    mkdirSync(packs, { recursive: true })
    const [tarballs, node22] = await Promise.all([buildAndPack(packs), fetchNode(join(tmp, "node22"), cache)])
    const app = join(tmp, "app")
    await install(app, tarballs, cache)
    await typecheck(app, cache)
    const versions = await Promise.all([runOn(node22, app, cache), runOn(process.execPath, app, cache)])
    log(`ok: the published packages work on Node ${versions.join(" and ")}`)
  } finally {
    if (keep) log(`kept ${tmp}`)
    else rmSync(tmp, { recursive: true, force: true })
  }
}

await main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
