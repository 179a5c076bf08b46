/**
 * The operator's bundle (`./pnpm bundle --out DIR`, scripts/bundle.ts): built, copied to another folder
 * (so nothing can reach back into the repository), started there with Node alone on PostgreSQL, it
 * answers `/readyz` 200, with the runtime flags applied as `./pnpm start` applies them; its `partnerpay`
 * executable runs the CLI.
 */
import { execFile, spawn } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { eventually, freshDatabase, postgresAvailable } from "./support.ts"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const work = mkdtempSync(join(tmpdir(), "partnerpay-bundle-"))
const cleanups: Array<() => unknown> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  rmSync(work, { recursive: true, force: true })
})

/** The registry settings of this environment (CA certificates, proxies) reach the bundler's pnpm install. */
const registryEnvironment = Object.fromEntries(
  Object.entries(process.env).filter(
    (entry): entry is [string, string] =>
      entry[1] !== undefined &&
      /^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|HTTPS?_PROXY|NO_PROXY|npm_config_(registry|cafile|ca|strict_ssl|proxy|https_proxy|store_dir|cache_dir))$/i.test(
        entry[0],
      ),
  ),
)

const run = (file: string, args: ReadonlyArray<string>, options: { cwd: string; env?: Record<string, string> }) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      file,
      args,
      {
        cwd: options.cwd,
        env: { ...registryEnvironment, PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...options.env },
      },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }),
    ),
  )

describe.skipIf(!postgresAvailable)("the operator's bundle", () => {
  it("built, copied elsewhere and started with node main.js on PostgreSQL answers /readyz 200", async () => {
    const built = join(work, "built")
    const bundling = await run(process.execPath, ["scripts/bundle.ts", "--out", built], { cwd: root })
    assert.strictEqual(bundling.code, 0, bundling.stderr)
    for (const file of ["main.js", "partnerpay", "package.json", "app/main.js", "app/cli.js"])
      assert.isTrue(existsSync(join(built, file)), file)
    // Production dependencies only, and the workspace's packages as JavaScript.
    const manifest = JSON.parse(readFileSync(join(built, "package.json"), "utf8")) as {
      dependencies: Record<string, string>
    }
    assert.notProperty(manifest.dependencies, "vitest")
    assert.isFalse(existsSync(join(built, "node_modules/vitest")))
    assert.isFalse(existsSync(join(built, "node_modules/typescript")))
    assert.isTrue(existsSync(join(built, "node_modules/@partnerpay/adapters-pg/dist/index.js")))
    assert.isTrue((statSync(join(built, "partnerpay")).mode & 0o111) !== 0)

    const copied = join(work, "elsewhere", "partnerpay")
    cpSync(built, copied, { recursive: true, verbatimSymlinks: true })
    rmSync(built, { recursive: true, force: true })
    const database = await freshDatabase()
    cleanups.push(database.drop)

    const help = await run(join(copied, "partnerpay"), ["--help"], { cwd: work })
    assert.strictEqual(help.code, 0, help.stderr)
    assert.include(help.stdout, "partnerpay")

    const output: Array<string> = []
    const service = spawn(process.execPath, [join(copied, "main.js")], {
      cwd: work,
      env: { PATH: "/usr/bin:/bin", HOME: work, PORT: "0", DATABASE_URL: database.url },
      stdio: ["ignore", "pipe", "pipe"],
    })
    const exited = new Promise<number | null>((done) => service.once("exit", (code) => done(code)))
    cleanups.push(async () => {
      service.kill("SIGTERM")
      await exited
    })
    service.stdout.on("data", (chunk: Buffer) => output.push(chunk.toString()))
    service.stderr.on("data", (chunk: Buffer) => output.push(chunk.toString()))
    const url = await eventually(() => /partnerpay listening on (http:\/\/\S+)/.exec(output.join(""))?.[1], 60_000)
    const ready = await fetch(`${url}/readyz`)
    assert.strictEqual(ready.status, 200, output.join(""))
    // The runtime flags of ./pnpm start (RuntimeFlags.ts): the same process, re-executed under them.
    const command = readFileSync(`/proc/${service.pid}/cmdline`, "utf8").split("\0")
    assert.includeMembers(command, ["--max-semi-space-size=16", "--max-old-space-size=1024", "--v8-pool-size=1"])
  }, 300_000)
})
