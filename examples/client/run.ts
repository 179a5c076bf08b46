/**
 * The client check (`pnpm test:client`, part of `pnpm test`): does a project that installs
 * `@partnerpay/client` as published get working JavaScript and types, against the real service?
 *
 * 1. The TypeScript walkthrough of docs/sandbox.md is src/walkthrough.ts verbatim (so the
 *    page's code is the code that runs here).
 * 2. Builds packages/client from scratch (dist/: JavaScript, source maps, .d.ts) and packs it with
 *    `pnpm pack` (the tarball a registry would serve); checks the tarball ships no TypeScript
 *    source, that the library's JavaScript imports no `node:` module and that no `effect` is
 *    among its dependencies.
 * 3. Copies this example into a fresh temporary project, points @partnerpay/client at the tarball
 *    and runs `npm install` (openapi-fetch from the registry; the environment is kept, so
 *    NODE_EXTRA_CA_CERTS applies).
 * 4. Type-checks it with its own ordinary strict NodeNext tsconfig (no DOM library), the
 *    package's declarations included (`--skipLibCheck false`), and emits JavaScript.
 * 5. Starts the REAL service from this repository (`node packages/app/src/main.ts`, sandbox
 *    partner and webhook receiver from the environment, embedded database in the temporary
 *    directory), and runs on Node 20 (the oldest the client supports, downloaded from the npm
 *    registry into the temporary directory) `dist/check.js`: token, company and status,
 *    an idempotent POST whose answer is lost and retried, history paged through, the KYB webhook
 *    verified (see src/check.ts); then on the Node running this script the TypeScript walkthrough
 *    `dist/walkthrough.js`, its output compared line by line.
 *
 * Everything lives in one temporary directory, removed at the end (`--keep` keeps it).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"

const example = import.meta.dirname
const root = join(example, "..", "..")
const clientPackage = join(root, "packages", "client")
const oldestNode = "20.19.0"
const tsc = join(root, "node_modules", "typescript", "bin", "tsc")
const keep = process.argv.includes("--keep")
const started = Date.now()
const clientId = "my-sandbox-client"
const clientSecret = "a long sandbox secret"

const log = (message: string) => console.log(`client [${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`)

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

/** 1. docs/sandbox.md shows the walkthrough verbatim. */
const checkReadme = () => {
  const readme = readFileSync(join(root, "docs", "sandbox.md"), "utf8")
  const code = readFileSync(join(example, "src", "walkthrough.ts"), "utf8")
  if (!readme.includes(`\`\`\`ts\n${code}\`\`\``)) {
    throw new Error("docs/sandbox.md must show examples/client/src/walkthrough.ts verbatim in a ```ts block")
  }
}

/** 2. A fresh build of the client, packed into `packs`, and what the tarball holds. */
const buildAndPack = async (packs: string) => {
  rmSync(join(clientPackage, "dist"), { recursive: true, force: true })
  await run("pnpm", ["pack", "--pack-destination", packs], clientPackage)
  const tarball = readdirSync(packs).find((file) => file.endsWith(".tgz"))
  if (tarball === undefined) throw new Error("pnpm pack made no tarball for packages/client")
  const path = join(packs, tarball)
  const files = (await run("tar", ["-tzf", path], packs)).trim().split("\n")
  const unexpected = files.filter(
    (file) =>
      !/^package\/(package\.json|README\.md|LICENSE|dist\/.+\.(js|js\.map|d\.ts)|dist\/cjs\/package\.json)$/.test(file),
  )
  if (unexpected.length > 0) throw new Error(`the client's tarball holds unexpected files: ${unexpected.join(", ")}`)
  for (const needed of [
    "dist/index.js",
    "dist/index.js.map",
    "dist/index.d.ts",
    "dist/generated/openapi.d.ts",
    "dist/cjs/index.js",
    "dist/cjs/package.json",
  ]) {
    if (!files.includes(`package/${needed}`)) throw new Error(`the client's tarball lacks ${needed}`)
  }
  const extracted = join(packs, "extracted")
  mkdirSync(extracted)
  await run("tar", ["-xzf", path, "-C", extracted], packs)
  for (const file of files.filter((name) => name.endsWith(".js"))) {
    const code = readFileSync(join(extracted, file), "utf8")
    // The CommonJS build requires its own files and openapi-fetch only; nothing requires a Node module.
    const requires = [...code.matchAll(/require\(\s*["']([^"']+)["']\s*\)/g)].map((match) => match[1]!)
    const foreign = requires.filter((name) => !name.startsWith("./") && name !== "openapi-fetch")
    const commonJs = file.startsWith("package/dist/cjs/")
    if (/from\s+["']node:|import\(\s*["']node:/.test(code) || foreign.length > 0 || (requires.length > 0 && !commonJs))
      throw new Error(`${file} imports a Node module`)
  }
  const manifest = JSON.parse(readFileSync(join(extracted, "package", "package.json"), "utf8"))
  const dependencies = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })
  if (
    dependencies.some((name) => name === "effect" || name.startsWith("@effect/") || name.startsWith("@partnerpay/"))
  ) {
    throw new Error(`the client depends on ${dependencies.join(", ")}: it must not need effect`)
  }
  log(`built and packed ${tarball} (${files.length} files; dependencies: ${dependencies.join(", ")})`)
  return path
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

/** 3. The example as a fresh project depending on the tarball. */
const install = async (app: string, tarball: string, cache: string) => {
  mkdirSync(app, { recursive: true })
  for (const entry of ["tsconfig.json", "src"]) cpSync(join(example, entry), join(app, entry), { recursive: true })
  const manifest = JSON.parse(readFileSync(join(example, "package.json"), "utf8"))
  manifest.dependencies["@partnerpay/client"] = `file:${tarball}`
  writeFileSync(join(app, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`)
  await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], app, { npm_config_cache: cache })
  log("installed the tarball into a fresh project")
}

/**
 * 4. The strict type-check (`--noEmit`), our code and the client's declarations included; it runs
 * while the emitted JavaScript runs against the service (it takes as long), and fails the check.
 */
const typecheck = async (app: string) => {
  const checked = await exec(process.execPath, [tsc, "-p", "tsconfig.json", "--noEmit", "--skipLibCheck", "false"], app)
  const errors = checked.output.split("\n").filter((line) => /error TS\d+/.test(line))
  const ours = errors.filter(
    (line) =>
      !line.startsWith("node_modules/") ||
      line.startsWith("node_modules/@partnerpay/") ||
      line.startsWith("node_modules/openapi-fetch/"),
  )
  if (ours.length > 0 || (checked.code !== 0 && errors.length === 0)) {
    throw new Error(`the client example's type-check failed:\n${checked.output}`)
  }
  log("type-checked with a strict NodeNext tsconfig (no DOM library), declarations included")
}

/** 4. The JavaScript, emitted with the project's own tsconfig. */
const emit = async (app: string) => {
  await run(process.execPath, [tsc, "-p", "tsconfig.json"], app)
  log("compiled with the project's tsconfig")
}

interface Service {
  readonly url: string
  readonly output: Array<string>
  readonly stop: () => void
}

/** Reads `stream` line by line. */
const eachLine = (stream: NodeJS.ReadableStream, onLine: (line: string) => void) =>
  createInterface({ input: stream }).on("line", onLine)

/** 5. The real service, with the sandbox partner and the webhook receiver; resolves once it listens. */
const startService = (dataDir: string, webhookUrl: string) =>
  new Promise<Service>((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, ["src/main.ts"], {
      cwd: join(root, "packages", "app"),
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        PORT: "0",
        PARTNERPAY_DATA_DIR: dataDir,
        PARTNERPAY_KYB_DELAY_MS: "300",
        PARTNERPAY_SETTLEMENT_DELAY_MS: "300",
        PARTNERPAY_SANDBOX_CLIENT_ID: clientId,
        PARTNERPAY_SANDBOX_CLIENT_SECRET: clientSecret,
        PARTNERPAY_SANDBOX_WEBHOOK_URL: webhookUrl,
        PARTNERPAY_SANDBOX_WEBHOOK_SECRET: "whsec_client-check-secret",
      },
      stdio: ["ignore", "pipe", "pipe"],
    })
    const output: Array<string> = []
    let listening = false
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`the service did not start within 60 s:\n${output.join("\n")}`))
    }, 60_000)
    const onLine = (line: string) => {
      output.push(line)
      const match = /partnerpay listening on (http:\/\/\S+)/.exec(line)
      if (match === null || listening) return
      listening = true
      clearTimeout(timer)
      resolve({ url: match[1]!, output, stop: () => child.kill("SIGKILL") })
    }
    eachLine(child.stdout!, onLine)
    eachLine(child.stderr!, onLine)
    child.on("exit", (code) => {
      clearTimeout(timer)
      if (!listening) reject(new Error(`the service exited (${code}) before listening:\n${output.join("\n")}`))
    })
  })

/** 5. `dist/check.js` on `node`, with the service it starts through the receiver handshake. */
const runCheck = (node: string, app: string, dataDir: string) =>
  new Promise<Service>((resolve, reject) => {
    const child = spawn(node, ["dist/check.js"], {
      cwd: app,
      env: { ...process.env, CLIENT_ID: clientId, CLIENT_SECRET: clientSecret },
      stdio: ["pipe", "pipe", "pipe"],
    })
    const output: Array<string> = []
    let service: Service | undefined
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`dist/check.js did not finish within 60 s:\n${output.join("\n")}`))
    }, 60_000)
    eachLine(child.stderr, (line) => output.push(line))
    eachLine(child.stdout, (line) => {
      output.push(line)
      const receiver = /^receiver (\S+)$/.exec(line)?.[1]
      if (receiver !== undefined) {
        startService(dataDir, receiver).then(
          (started) => {
            service = started
            log(`the service listens on ${started.url}; webhooks to ${receiver}`)
            child.stdin.write(`service ${started.url}\n`)
          },
          (error: unknown) => {
            child.kill("SIGKILL")
            reject(error)
          },
        )
      }
      if (line.startsWith("ok ")) log(`  ${line}`)
    })
    child.on("close", (code) => {
      clearTimeout(timer)
      if (code === 0 && service !== undefined) {
        resolve(service)
        return
      }
      service?.stop()
      const serviceOutput = service === undefined ? "" : `\nservice output:\n${service.output.slice(-40).join("\n")}`
      reject(new Error(`dist/check.js exited ${code}:\n${output.join("\n")}${serviceOutput}`))
    })
  })

const expectedWalkthrough = [
  "2. company Verified",
  "4. identity Verified",
  "4. bank account linked true",
  "5. payment request Paid",
  "6. plan Active instalment 1 Settled",
  "7. a week later 2 collected, 2 settled",
  "8. history Invoice 1001 Paid",
].join("\n")

const main = async () => {
  checkReadme()
  const tmp = mkdtempSync(join(tmpdir(), "partnerpay-client-"))
  let service: Service | undefined
  try {
    const cache = join(tmp, "cache")
    const packs = join(tmp, "packs")
    mkdirSync(packs, { recursive: true })
    const [tarball, node20] = await Promise.all([buildAndPack(packs), fetchNode(join(tmp, "node20"), cache)])
    const app = join(tmp, "app")
    await install(app, tarball, cache)
    const typechecked = typecheck(app).then(
      () => undefined,
      (error: unknown) => error,
    )
    await emit(app)
    const version = (await run(node20, ["--version"], app)).trim()
    // CommonJS too: require() gives the same API (the package's CommonJS build).
    const required = await run(
      node20,
      [
        "-e",
        "const c = require('@partnerpay/client'); if (typeof c.createPartnerpayClient !== 'function' || typeof c.verifyWebhook !== 'function') { console.error('require gave', Object.keys(c)); process.exit(1) } console.log('ok')",
      ],
      app,
    )
    if (required.trim() !== "ok") throw new Error(`require('@partnerpay/client') printed ${required}`)
    log(`require('@partnerpay/client') works on Node ${version}`)
    service = await runCheck(node20, app, join(tmp, "data"))
    log(`dist/check.js passed on Node ${version}`)
    const walked = await run(process.execPath, ["dist/walkthrough.js"], app, { PARTNERPAY_URL: service.url })
    if (walked.trim() !== expectedWalkthrough) {
      throw new Error(`the TypeScript walkthrough printed:\n${walked}\nexpected:\n${expectedWalkthrough}`)
    }
    log(`the TypeScript walkthrough ran on Node ${process.version}`)
    const typeError = await typechecked
    if (typeError !== undefined) throw typeError
    log(`ok: the packed client works against the service on Node ${version} and ${process.version}`)
  } finally {
    service?.stop()
    if (keep) log(`kept ${tmp}`)
    else rmSync(tmp, { recursive: true, force: true })
  }
}

await main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
