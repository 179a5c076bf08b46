/**
 * Issue 36: packages/app/src in folders by concern, as a re-runnable move.
 *
 * Run at the root of a partnerpay checkout:
 *   ./pnpm exec node scripts/move-app-src.ts            move, rewrite, then biome --write the touched files
 *   ./pnpm exec node scripts/move-app-src.ts --dry-run  print the plan only
 *   ./pnpm exec node scripts/move-app-src.ts --no-biome skip the biome pass (import order)
 *
 * 1. The plan: PLAN (old -> folder) for every top-level module known today; a top-level module not in PLAN
 *    nor in KEEP is placed by RULES (name patterns) or left where it is; either way it is printed.
 * 2. `git mv` of each file whose old path exists (so a second run, or a branch without a file, is fine).
 * 3. Rewrites, in every tracked text file (not node_modules, bench/results, lock files, patches):
 *    a. relative specifiers in code ("./X.ts", "../src/X.ts", "../../app/src/X.js", import(), vi.mock,
 *       new URL("../.data", import.meta.url)): resolved from the file's old place, written from its new place
 *       when the target or the file itself moved;
 *    b. repository paths in any text: `packages/app/src/X.ts`, `app/src/X.ts`, and, inside packages/app,
 *       `src/X.ts` (package.json scripts, pnpm wrapper, docs, README, .env.example, tests' join(root, ...)).
 * 4. `biome check --write` on the touched files (imports re-sorted after the rewrite).
 */
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { dirname, join, posix } from "node:path"

const SRC = "packages/app/src"

/** Entry points and the composition root: stay at the top (at most 12 modules there). */
const KEEP = new Set([
  "main.ts",
  "start.ts",
  "cli.ts",
  "index.ts",
  "Service.ts",
  "ServiceProcess.ts",
  "RuntimeFlags.ts",
  "Domain.ts",
])

/** The move plan: top-level module -> its folder (by concern). */
const PLAN: Record<string, string> = {
  // configuration: the environment's variables, their schemas, the generated .env.example, the secrets read at start
  "Config.ts": "config",
  "Settings.ts": "config",
  "SettingSchemas.ts": "config",
  "EnvExample.ts": "config",
  "DataKey.ts": "config",
  "TokenSecret.ts": "config",
  // the sandbox: its routes, its clocks, its simulated providers, its partner bootstrap
  "SandboxCards.ts": "sandbox",
  "SandboxClock.ts": "sandbox",
  "SandboxMessages.ts": "sandbox",
  "SandboxMoneyMovement.ts": "sandbox",
  "SandboxProviders.ts": "sandbox",
  "SandboxWebhooks.ts": "sandbox",
  "Partners.ts": "sandbox",
  // HTTP serving: the server, the probes, the providers' callback endpoints
  "Http.ts": "http",
  "Readiness.ts": "http",
  "CardProcessorNotifications.ts": "http",
  "DwollaNotifications.ts": "http",
  "MoneyMovementNotifications.ts": "http",
  // observability: logs, metrics, traces
  "Logging.ts": "observability",
  "Metrics.ts": "observability",
  "Telemetry.ts": "observability",
  // the operator: operator API and the operations it shares with the CLI
  "Admin.ts": "operator",
  "Operations.ts": "operator",
  "Erasure.ts": "operator",
  "LedgerCheck.ts": "operator",
  // the command line's commands (entry point cli.ts stays at the top)
  "CliCommands.ts": "cli",
  "ListenCommands.ts": "cli",
  "LedgerCommands.ts": "cli",
  "Listen.ts": "cli",
  "Progress.ts": "cli",
  // the database: PostgreSQL or PGlite, and the PGlite data directory's lock
  "Database.ts": "database",
  "DataDirLock.ts": "database",
  // beside their users
  "ProviderGuard.ts": "providers",
  "WebhookTarget.ts": "workers",
}

/** Where a top-level module unknown to PLAN goes, by its name (first match); none: it stays (and is printed). */
const RULES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^Sandbox/, "sandbox"],
  [/(Notifications|Callbacks|Webhooks)\.ts$/, "http"],
  [/^(Config|Setting)|Secret/, "config"],
  [/Commands\.ts$|^Cli/, "cli"],
  [/Operations\.ts$|^Admin|^Ledger/, "operator"],
  [/(Worker|Workers|Scheduler|Purge)\.ts$/, "workers"],
  [/^(Logging|Metrics|Telemetry|Tracing)/, "observability"],
]

const args = new Set(process.argv.slice(2))
const dryRun = args.has("--dry-run")
const root = process.cwd()
if (!existsSync(join(root, SRC))) {
  console.error(`move-app-src: run at the root of a partnerpay checkout (no ${SRC} here)`)
  process.exit(2)
}
const git = (...a: Array<string>) => execFileSync("git", a, { cwd: root, encoding: "utf8" })
if (git("status", "--porcelain").trim() !== "") console.warn("move-app-src: warning: the work tree is not clean")

// 1. the plan -----------------------------------------------------------------------------------------------
/** old repo path -> new repo path (posix), for files that move in this run. */
const moves = new Map<string, string>()
const top = readdirSync(join(root, SRC)).filter((f) => f.endsWith(".ts") && statSync(join(root, SRC, f)).isFile())
for (const file of top.sort()) {
  if (KEEP.has(file)) continue
  let folder: string | undefined = PLAN[file]
  if (folder === undefined) {
    folder = RULES.find(([pattern]) => pattern.test(file))?.[1]
    console.log(
      `move-app-src: not in the plan: ${file} -> ${folder === undefined ? "(stays at the top)" : `${folder}/ (by name)`}`,
    )
  }
  if (folder !== undefined) moves.set(`${SRC}/${file}`, `${SRC}/${folder}/${file}`)
}
for (const file of Object.keys(PLAN)) {
  if (!top.includes(file) && !existsSync(join(root, SRC, PLAN[file]!, file))) {
    console.log(`move-app-src: in the plan but absent here: ${file}`)
  }
}
const left = top.filter((f) => !moves.has(`${SRC}/${f}`))
console.log(`move-app-src: ${moves.size} to move; ${left.length} at the top: ${left.join(", ")}`)
if (left.length > 12) console.warn("move-app-src: warning: more than 12 modules stay at the top")
if (dryRun) {
  for (const [from, to] of moves) console.log(`  ${from} -> ${to}`)
  process.exit(0)
}
if (moves.size === 0) {
  console.log("move-app-src: nothing to move (already done?)")
  process.exit(0)
}

// 2. rewrite contents (at the old places), then git mv --------------------------------------------------------
const movedTo = (path: string): string | undefined => moves.get(path)
const newPathOf = (path: string): string => movedTo(path) ?? path

const skip = (path: string) =>
  /(^|\/)node_modules\//.test(path) ||
  path.startsWith("bench/results/") ||
  /(^|\/)pnpm-lock\.yaml$/.test(path) ||
  path.endsWith(".patch") ||
  /\.(png|jpe?g|gif|ico|wasm|gz|tgz|zip|pdf|woff2?)$/.test(path)
const isCode = (path: string) => /\.(ts|mts|cts|js|mjs|cjs|tsx)$/.test(path)

/** A repo path written with the extension of `spec` (".ts", ".js" or none), `target` being the .ts file. */
const withExt = (target: string, ext: string) => target.replace(/\.ts$/, ext)

/** The moved .ts file a resolved path names (with .ts, .js or no extension), and the extension used. */
const movedTarget = (resolved: string): { readonly from: string; readonly ext: string } | undefined => {
  for (const ext of [".ts", ".js", ""]) {
    if (
      ext === ""
        ? moves.has(`${resolved}.ts`)
        : resolved.endsWith(ext) && moves.has(`${resolved.slice(0, -ext.length)}.ts`)
    ) {
      return { from: ext === "" ? `${resolved}.ts` : `${resolved.slice(0, -ext.length)}.ts`, ext }
    }
  }
  return undefined
}

const relativeSpec = (fromDir: string, to: string) => {
  const r = posix.relative(fromDir, to)
  return r.startsWith(".") ? r : `./${r}`
}

/** a. relative specifiers in quotes ('...' or "..."; backticks only when a whole import()/URL argument). */
const rewriteSpecifiers = (path: string, text: string): string => {
  const oldDir = posix.dirname(path)
  const newDir = posix.dirname(newPathOf(path))
  const selfMoved = oldDir !== newDir
  return text.replace(/(["'])(\.{1,2}\/[^"'\s`$]*)\1/g, (whole, quote: string, spec: string) => {
    const resolved = posix.normalize(posix.join(oldDir, spec))
    if (resolved.startsWith("..")) return whole
    const target = movedTarget(resolved)
    if (target !== undefined) {
      return `${quote}${relativeSpec(newDir, withExt(moves.get(target.from)!, target.ext))}${quote}`
    }
    if (!selfMoved) return whole
    // the file moved, its target did not: the same target from the new place (also "../.data", URLs)
    const trailing = spec.endsWith("/") && !spec.endsWith("./") ? "/" : ""
    return `${quote}${relativeSpec(newDir, resolved)}${trailing}${quote}`
  })
}

/** b. repository paths in any text. */
const names = [...moves.keys()].map((p) => posix.basename(p, ".ts"))
const nameAlt = names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")
const repoPath = new RegExp(`(?<![\\w./-])((?:packages/)?app/src/)(${nameAlt})(\\.ts|\\.js)?(?![\\w/-])`, "g")
const pkgPath = new RegExp(`(?<![\\w./-])(src/)(${nameAlt})(\\.ts|\\.js)(?![\\w/-])`, "g")
const rewritePaths = (path: string, text: string): string => {
  const folderOf = (name: string) => posix.relative(SRC, posix.dirname(moves.get(`${SRC}/${name}.ts`)!))
  let out = text.replace(
    repoPath,
    (_w, prefix: string, name: string, ext: string | undefined) => `${prefix}${folderOf(name)}/${name}${ext ?? ""}`,
  )
  if (path.startsWith("packages/app/")) {
    out = out.replace(
      pkgPath,
      (_w, prefix: string, name: string, ext: string) => `${prefix}${folderOf(name)}/${name}${ext}`,
    )
  }
  return out
}

const touched: Array<string> = []
for (const path of git("ls-files", "-z")
  .split("\0")
  .filter((p) => p !== "")) {
  if (skip(path) || !existsSync(join(root, path)) || statSync(join(root, path)).isDirectory()) continue
  const buffer = readFileSync(join(root, path))
  if (buffer.includes(0)) continue
  const text = buffer.toString("utf8")
  let next = isCode(path) ? rewriteSpecifiers(path, text) : text
  next = rewritePaths(path, next)
  if (next !== text) {
    writeFileSync(join(root, path), next)
    touched.push(path)
  }
}

for (const [from, to] of moves) {
  execFileSync("mkdir", ["-p", join(root, dirname(to))])
  git("mv", from, to)
}
console.log(`move-app-src: moved ${moves.size} files, rewrote ${touched.length} files`)
for (const path of touched) console.log(`  rewrote ${newPathOf(path)}`)

// 4. imports sorted again (biome's organizeImports), only on the touched files -------------------------------
const biome = join(root, "node_modules/.bin/biome")
const formattable = touched.map(newPathOf).filter((p) => /\.(ts|mts|js|mjs|json)$/.test(p))
if (!args.has("--no-biome") && existsSync(biome) && formattable.length > 0) {
  try {
    execFileSync(biome, ["check", "--write", ...formattable], { cwd: root, stdio: "inherit" })
  } catch {
    console.warn("move-app-src: biome check --write reported problems (see above); run ./pnpm lint")
  }
}
console.log(`move-app-src: done. Then: ./pnpm typecheck && ./pnpm lint && ls ${SRC}/*.ts | wc -l`)
