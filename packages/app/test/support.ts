/**
 * Test support: starting the REAL service process (`node src/main.ts`),
 * running the operator CLI (`node src/cli.ts`), a local webhook receiver, and
 * the PostgreSQL availability rule (locally
 * without a server the PostgreSQL runs are skipped loudly; with CI=true an
 * unreachable server FAILS the run).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { assert } from "@effect/vitest"
import { PgDatabase } from "@partnerpay/adapters-pg"
import { Fixtures } from "@partnerpay/domain/testing"
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as ProviderPorts from "../src/providers/ProviderPorts.ts"

export const appDir = fileURLToPath(new URL("..", import.meta.url))

export interface RunningService {
  readonly url: string
  readonly process: ChildProcess
  /** Every stdout and stderr line so far. */
  readonly output: Array<string>
  /** Sends the signal and resolves with the exit code (or the signal name). */
  readonly stop: (signal?: NodeJS.Signals) => Promise<number | string>
  readonly startupMillis: number
}

const running = new Set<ChildProcess>()

/** Kills every service process still running (call in afterAll). */
export const killAll = () => {
  for (const child of running) child.kill("SIGKILL")
  running.clear()
}

/** Starts `node src/main.ts` with exactly `env` (plus PATH/HOME) and waits for its "listening" line. */
export const startService = (env: Record<string, string>, timeoutMillis = 30_000): Promise<RunningService> =>
  new Promise((resolve, reject) => {
    const started = Date.now()
    const child = spawn(process.execPath, ["src/main.ts"], {
      cwd: appDir,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    })
    running.add(child)
    const output: Array<string> = []
    const exited = new Promise<number | string>((done) =>
      child.once("exit", (code, signal) => {
        running.delete(child)
        done(code ?? signal ?? "unknown")
      }),
    )
    let settled = false
    const timer = setTimeout(() => {
      if (settled) return
      settled = true
      child.kill("SIGKILL")
      reject(new Error(`the service did not start within ${timeoutMillis} ms:\n${output.join("\n")}`))
    }, timeoutMillis)
    const onLine = (line: string) => {
      output.push(line)
      if (settled) return
      const match = /partnerpay listening on (http:\/\/\S+)/.exec(line)
      if (match !== null) {
        settled = true
        clearTimeout(timer)
        resolve({
          url: match[1]!,
          process: child,
          output,
          startupMillis: Date.now() - started,
          stop: (signal = "SIGTERM") => {
            child.kill(signal)
            return exited
          },
        })
      }
    }
    const split = (stream: NodeJS.ReadableStream) => {
      let buffer = ""
      stream.setEncoding("utf8")
      stream.on("data", (chunk: string) => {
        buffer += chunk
        let newline = buffer.indexOf("\n")
        while (newline !== -1) {
          onLine(buffer.slice(0, newline))
          buffer = buffer.slice(newline + 1)
          newline = buffer.indexOf("\n")
        }
      })
    }
    split(child.stdout!)
    split(child.stderr!)
    void exited.then((code) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      reject(new Error(`the service exited (${code}) before listening:\n${output.join("\n")}`))
    })
  })

/** How a CLI command ended: its exit code and what it wrote. */
export interface CliRun {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** `node src/cli.ts ...args` with exactly `env` (plus PATH/HOME), as operators run it. */
export const cli = (args: ReadonlyArray<string>, env: Record<string, string> = {}, timeoutMillis = 100_000) =>
  new Promise<CliRun>((resolve) => {
    execFile(
      process.execPath,
      ["src/cli.ts", ...args],
      {
        cwd: appDir,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
        timeout: timeoutMillis,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1
        resolve({ code, stdout, stderr })
      },
    )
  })

/** The JSON document a `--json` command printed (fails the test unless it exited with 0). */
export const jsonOf = (run: CliRun) => {
  assert.strictEqual(run.code, 0, `exit ${run.code}\n${run.stdout}\n${run.stderr}`)
  return JSON.parse(run.stdout) as Record<string, unknown>
}

export interface ReceivedWebhook {
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

export interface WebhookReceiver {
  readonly url: string
  /** Deliveries answered 2xx. */
  readonly received: Array<ReceivedWebhook>
  /** Every request, with the status it was answered. */
  readonly requests: Array<ReceivedWebhook & { readonly status: number }>
  /** How the receiver answers the next requests (default 200). */
  status: number
  readonly close: () => Promise<void>
}

export const startReceiver = (): Promise<WebhookReceiver> =>
  new Promise((resolve) => {
    const received: Array<ReceivedWebhook> = []
    const requests: Array<ReceivedWebhook & { readonly status: number }> = []
    let server: Server
    const receiver: WebhookReceiver = {
      url: "",
      received,
      requests,
      status: 200,
      close: () => new Promise((done) => server.close(() => done())),
    }
    server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const delivery = { headers: request.headers, body: Buffer.concat(chunks).toString("utf8") }
        requests.push({ ...delivery, status: receiver.status })
        if (receiver.status >= 200 && receiver.status < 300) received.push(delivery)
        response.writeHead(receiver.status).end()
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      resolve(Object.assign(receiver, { url: `http://127.0.0.1:${port}/webhooks` }))
    })
  })

/** Polls `check` until it returns a value (not undefined) or the time runs out. */
export const eventually = async <A>(check: () => A | undefined, timeoutMillis = 20_000): Promise<A> => {
  const deadline = Date.now() + timeoutMillis
  while (Date.now() < deadline) {
    const value = check()
    if (value !== undefined) return value
    await new Promise((done) => setTimeout(done, 50))
  }
  throw new Error(`condition not met within ${timeoutMillis} ms`)
}

// PostgreSQL

export const databaseUrl = PgDatabase.urlFromEnv()

/** Runs one SQL statement on the database at `url`. */
export const runSql = (url: string, statement: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient
      yield* sql.unsafe(statement)
    }).pipe(
      Effect.provide(PgDatabase.layerPostgres(url, { maxConnections: 1, connectTimeoutMillis: 3000 })),
      Effect.timeout(10_000),
    ),
  )

const probe = (): Promise<string | undefined> =>
  runSql(databaseUrl, "SELECT 1").then(
    () => undefined,
    (error: unknown) => String(error).split("\n")[0] ?? "unreachable",
  )

const problem = await probe()
if (problem !== undefined) {
  const message = `PostgreSQL is not reachable at ${databaseUrl.replace(/:[^:@/]*@/, ":***@")} (${problem})`
  if (process.env.CI === "true") throw new Error(`${message}: with CI=true the PostgreSQL runs must happen, failing.`)
  console.warn(`\n${"!".repeat(80)}\n!!! ${message}\n!!! SKIPPING the app's PostgreSQL run\n${"!".repeat(80)}\n`)
}

export const postgresAvailable = problem === undefined

/** Creates a fresh database on the server; returns its URL and a function dropping it. */
export const freshDatabase = async (): Promise<{ url: string; drop: () => Promise<void> }> => {
  const name = `partnerpay_app_e2e_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`
  await runSql(databaseUrl, `CREATE DATABASE ${name}`)
  const url = new URL(databaseUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: () => runSql(databaseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  }
}

/** A valid company registration (owner SSN and document number must never be logged). */
const { apartmentNumber: _ownerApartment, ...ownerWithoutApartment } = Fixtures.owner

/** A valid company registration body without the optional apartment numbers and website, with one location. */
export const companyBody = (overrides: Record<string, unknown>) =>
  Fixtures.companyRegistrationBody({
    apartmentNumber: undefined,
    websiteUrl: undefined,
    owner: ownerWithoutApartment,
    locations: [Fixtures.mainStreetStore],
    ...overrides,
  })

/**
 * Every variable a production start requires (secrets, data key, a bridge per provider port), with
 * test values: bridges point at `bridgeBase` (nothing listens there unless a test starts a fake).
 */
export const productionEnvironment = (bridgeBase = "https://bridge.example.com"): Record<string, string> => ({
  PARTNERPAY_ENV: "production",
  PARTNERPAY_TOKEN_SECRET: "p".repeat(48),
  PARTNERPAY_SECRET_PEPPER: "q".repeat(48),
  PARTNERPAY_DATA_KEY: "d".repeat(64),
  PARTNERPAY_OTP_SECRET: "o".repeat(40),
  PARTNERPAY_CHAT_SECRET: "c".repeat(40),
  ...Object.fromEntries(
    ProviderPorts.ports.flatMap(({ key }) => [
      [`PARTNERPAY_PROVIDER_${key}_URL`, `${bridgeBase}/${key.toLowerCase()}`],
      [`PARTNERPAY_PROVIDER_${key}_SECRET`, `${key}-bridge-secret`.padEnd(40, "s")],
    ]),
  ),
})
