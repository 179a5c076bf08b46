/**
 * End-to-end benchmark of the running service against hand-written ceilings
 * (`pnpm bench`, `pnpm bench --quick`; issue 9).
 *
 * For each database, the embedded PGlite database (a data directory kept for the whole
 * run) and a fresh database on the PostgreSQL server at DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/test; created here and dropped at the end), it
 * alternates rounds (3; --quick: 1):
 *
 *   service   the real service (`node packages/app/src/main.ts`, LOG_LEVEL=Warn,
 *             PARTNERPAY_RATE_LIMITING=off, KYB and settlement delays of 24 h so those
 *             workers decide nothing during a measurement, no webhook URL so no webhook
 *             is sent), started on the SAME data each round, runs every scenario in one
 *             autocannon child (bench/load.ts), then is stopped;
 *   ceilings  with the service stopped, the hand-written node:http servers of
 *             bench/baselines.ts, one at a time on the same database, each loaded by the
 *             same load process with the same requests as the scenarios it bounds:
 *             (a) bare fixed JSON, (b) HS256 bearer check + the same indexed SELECT,
 *             (c) one single-row INSERT transaction per request (pool 10 on PostgreSQL,
 *             the service's one PGlite session on PGlite), (d) the token endpoint's
 *             essential work: parse the body, one SELECT of the partner (with its token
 *             generation), HMAC-SHA-256 of the secret under the pepper, constant-time
 *             compare, sign an HS256 JWT.
 *
 * so that neither runs in the other's shadow. Before every measured phase the database is
 * made quiet: the service's outbox drained (operator API), a CHECKPOINT, and no other
 * active backend of the benchmark's database in pg_stat_activity (PostgreSQL); PGlite is
 * quiet once the previous process exited (and its lock file says so). Both sides get the
 * same check (one request of each load must answer 2xx) and the same short warm-up. Each
 * payment-request cancel scenario gets its own fresh payment requests every round, created
 * for a time proportional to the load's length (a repeated cancel is a no-op 200); the
 * report gives the share of first cancels.
 *
 * Scenarios: POST /Company/Create and PUT /Payment/{id}/Cancel (1, 16, 64 connections;
 * --quick: 64) against (c); GET /company/status and GET /Transaction/{id} (64) against (b)
 * and, for information, (a); POST /auth/token (64) against (d) and, for information, (a). Figures are
 * medians across rounds; ratio = median service req/s ÷ median ceiling req/s.
 *
 * Then, with nothing else running: the package micro-benchmarks (event store appends at
 * 1/8/32 writers vs plain INSERT, the 32-writer ratio being an issue target; rehydrate),
 * and the OPTIONAL hooks bench/startup.ts and bench/webhooks.ts, each run only when its
 * file exists, its last JSON line folded into the report.
 *
 * Output: bench/results/latest.md (also printed) and latest.json, with a "targets" section, and
 * latest.svg, the ratios as a chart (bench/chart.ts).
 * Flags: --quick; --reads (only the two reads x64 and their ceilings, PostgreSQL, one round or
 * BENCH_ROUNDS, printed only: one side of an A/B); --profile[=create|cancel|status|transaction] (only that scenario x64 on
 * PostgreSQL, default create, with the service under `node --cpu-prof`; prints the top frames
 * by self time, and the service's and PostgreSQL's CPU per request); --measure[=...] (the same
 * without the profiler). Both run a read's load once unmeasured first (warmed code; BENCH_WARM_UP=off
 * skips it) and also print the database transactions per answer (each autocommit statement is one)
 * and the service's garbage collections per 1000 answers (its /metrics): figures a busy machine does
 * not change, unlike req/s and CPU; BENCH_SECONDS sets their load's length (default 10); --memory[=PostgreSQL|PGlite] (only the service's side of one round on
 * each database, or on the one named: the same loads as a full run, no ceilings; prints start-up,
 * RSS and V8 heap idle and after the loads, heap spaces and GC pause totals after them, and each
 * load's req/s and service CPU per answer); with --heap-snapshots=<dir>, the service also writes a
 * V8 heap snapshot idle and after the loads into <dir> (for DevTools' Memory tab; writing one
 * grows the RSS, so compare RSS from runs without it).
 * Environment: the service gets a fixed environment (below), not the benchmark's; for an A/B of a
 * setting read from the environment, name the variables to pass on in BENCH_SERVICE_ENV
 * (comma-separated, e.g. `BENCH_SERVICE_ENV=NODE_OPTIONS`); BENCH_SERVICE_NODE_OPTIONS is the services'
 * NODE_OPTIONS alone, not the runner's (e.g. `--inspect=127.0.0.1:9239` to sample its allocations).
 *
 * Bounded: every load is bounded in time and count, every child has a kill timer, every
 * wait has a limit, the whole run has a deadline, and every child process is killed on
 * exit, on error and on SIGINT/SIGTERM. Only 127.0.0.1 is contacted.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as RuntimeFlags from "../packages/app/src/RuntimeFlags.ts"
import { chart } from "./chart.ts"

const root = fileURLToPath(new URL("..", import.meta.url))
const resultsDir = join(root, "bench", "results")
const quick = process.argv.includes("--quick")
const profile = process.argv.some((arg) => /^--(profile|measure)(=|$)/.test(arg))
/** --measure: as --profile, without the CPU profiler (req/s and CPU per request of one scenario). */
const measureOnly = process.argv.some((arg) => /^--measure(=|$)/.test(arg))
/** --memory: the service's memory idle and after one round of the full run's loads, no ceilings. */
const memoryOnly = process.argv.some((arg) => /^--memory(=|$)/.test(arg))
/** --memory=PostgreSQL|PGlite: that database only. */
const memoryDatabase = process.argv.find((arg) => arg.startsWith("--memory="))?.slice("--memory=".length)
/** --heap-snapshots=<dir> (with --memory): heap snapshots of the service, idle and after the loads. */
const heapSnapshotDir = process.argv
  .find((arg) => arg.startsWith("--heap-snapshots="))
  ?.slice("--heap-snapshots=".length)
/**
 * --reads: only the two reads x64 against their ceilings, on PostgreSQL, one round (BENCH_ROUNDS
 * sets more); prints each row's ratio and a JSON line, writes no result file: one side of an A/B
 * run (alternate invocations from two checkouts, pair them by order).
 */
const readsOnly = process.argv.includes("--reads")
const rounds = readsOnly ? Number(process.env.BENCH_ROUNDS ?? 1) : quick || profile || memoryOnly ? 1 : 3
const seconds = Number(process.env.BENCH_SECONDS ?? (quick ? 2 : profile ? 10 : 4))
const servicePoolSize = 10 // the service's PostgreSQL pool (PgDatabase.layerPostgres default)
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const clientId = "bench-client"
const clientSecret = "bench-client-secret-0123456789"
// Shared by the service (which signs) and the read ceiling (which verifies): the same tokens work on both.
const tokenSecret = randomBytes(48).toString("base64url")
// Shared by the service (which hashes the sandbox partner's secret) and the token ceiling (which checks it).
const secretPepper = randomBytes(48).toString("base64url")
// Enables the service's operator API, used only to see its outbox drained before a measurement.
const adminToken = randomBytes(32).toString("base64url")
const overallDeadlineMillis = (quick ? 6 : profile ? 5 : memoryOnly ? 10 : 25) * 60_000
const notes: Array<string> = []
const runStartedAt = Date.now()
/** Progress on stderr, with the seconds since the start. */
const progress = (line: string) =>
  console.error(
    `${line.startsWith("\n") ? "\n" : ""}[${Math.round((Date.now() - runStartedAt) / 1000)} s] ${line.trim()}`,
  )

// ---------------------------------------------------------------------------------------------
// child processes: tracked, killed on every way out

const children = new Set<ChildProcess>()
const cleanups: Array<() => void> = []

const killChildren = () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  children.clear()
}
const cleanUp = () => {
  killChildren()
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      cleanup()
    } catch (error) {
      console.error(`cleanup failed: ${String(error)}`)
    }
  }
}
process.on("exit", cleanUp)
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping the benchmark`)
    cleanUp()
    process.exit(130)
  })
}
const deadline = setTimeout(() => {
  console.error(`the benchmark did not finish within ${overallDeadlineMillis / 60_000} minutes: stopping`)
  cleanUp()
  process.exit(1)
}, overallDeadlineMillis)
deadline.unref()

const nodeBin = process.execPath

/** Runs `node args` to completion (killed after `timeoutMillis`); resolves with stdout. */
const runNode = (
  args: ReadonlyArray<string>,
  options: { cwd?: string; env?: Record<string, string>; timeoutMillis: number },
): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn(nodeBin, args, {
      cwd: options.cwd ?? root,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    })
    children.add(child)
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMillis)
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      children.delete(child)
      if (code === 0) resolve(stdout)
      else reject(new Error(`node ${args.join(" ")} ended with ${code ?? signal}:\n${stderr.slice(-4000)}`))
    })
  })

/** Starts a long-running node child and resolves once `ready` matches a line of its stdout/stderr. */
const startNode = (
  args: ReadonlyArray<string>,
  options: { cwd: string; env: Record<string, string>; ready?: RegExp; timeoutMillis: number },
): Promise<{ child: ChildProcess; match: RegExpExecArray | null; output: Array<string> }> =>
  new Promise((resolve, reject) => {
    const child = spawn(nodeBin, args, {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    })
    children.add(child)
    const output: Array<string> = []
    let settled = options.ready === undefined
    if (settled) resolve({ child, match: null, output })
    const timer = settled
      ? undefined
      : setTimeout(() => {
          if (settled) return
          settled = true
          child.kill("SIGKILL")
          reject(
            new Error(`node ${args.join(" ")} not ready within ${options.timeoutMillis} ms:\n${output.join("\n")}`),
          )
        }, options.timeoutMillis)
    const onData = (stream: NodeJS.ReadableStream) => {
      let buffer = ""
      stream.setEncoding("utf8")
      stream.on("data", (chunk: string) => {
        buffer += chunk
        let newline = buffer.indexOf("\n")
        while (newline !== -1) {
          const line = buffer.slice(0, newline)
          buffer = buffer.slice(newline + 1)
          newline = buffer.indexOf("\n")
          if (output.length < 2000) output.push(line)
          const match = settled ? null : (options.ready?.exec(line) ?? null)
          if (match !== null) {
            settled = true
            clearTimeout(timer)
            resolve({ child, match, output })
          }
        }
      })
    }
    onData(child.stdout!)
    onData(child.stderr!)
    child.once("exit", (code, signal) => {
      children.delete(child)
      if (settled) return
      settled = true
      clearTimeout(timer)
      reject(new Error(`node ${args.join(" ")} exited (${code ?? signal}) before ready:\n${output.join("\n")}`))
    })
  })

/** A free TCP port on 127.0.0.1 (the service logs its listening line at Info, hidden at Warn). */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** Polls until `base` answers any HTTP response; fails if the child exits or the time runs out. */
const waitForHttp = async (base: string, child: ChildProcess, output: ReadonlyArray<string>, timeoutMillis: number) => {
  const until = Date.now() + timeoutMillis
  while (Date.now() < until) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the service exited (${child.exitCode ?? child.signalCode}):\n${output.join("\n")}`)
    try {
      await fetch(`${base}/HealthCheck/Get`, { signal: AbortSignal.timeout(1000) })
      return
    } catch {
      await new Promise((done) => setTimeout(done, 100))
    }
  }
  child.kill("SIGKILL")
  throw new Error(`the service did not answer within ${timeoutMillis} ms:\n${output.join("\n")}`)
}

/** SIGTERM, then SIGKILL after `graceMillis`; resolves when the child is gone. */
const stopChild = (child: ChildProcess, graceMillis = 25_000): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMillis)
    child.once("exit", () => {
      clearTimeout(timer)
      children.delete(child)
      resolve()
    })
    child.kill("SIGTERM")
  })

const rssMegabytes = (pid: number | undefined): number | undefined => {
  if (pid === undefined) return undefined
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
    return match === null ? undefined : Math.round(Number(match[1]) / 1024)
  } catch {
    return undefined
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL (psql, synchronous so that the exit handler can drop the database)

const psql = (url: string, statement: string): { ok: boolean; message: string; stdout: string } => {
  const result = spawnSync("psql", [url, "-v", "ON_ERROR_STOP=1", "-qAtc", statement], {
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, PGCONNECT_TIMEOUT: "5" },
  })
  return {
    ok: result.status === 0,
    message: (result.stderr || result.error?.message || "").trim().split("\n")[0] ?? "",
    stdout: (result.stdout ?? "").trim(),
  }
}

const freshDatabase = (): { url: string; name: string } | { problem: string } => {
  const host = new URL(adminUrl).hostname
  if (host !== "127.0.0.1" && host !== "localhost") return { problem: `DATABASE_URL host ${host} is not local` }
  const name = `bench_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`
  const created = psql(adminUrl, `CREATE DATABASE ${name}`)
  if (!created.ok) return { problem: created.message }
  cleanups.push(() => {
    psql(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  })
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return { url: url.toString(), name }
}

const sleep = (millis: number) => new Promise((done) => setTimeout(done, millis))

/** A database the service and the ceilings share for the whole run. */
type Target =
  | { readonly name: "PGlite"; readonly kind: "pglite"; readonly dataDir: string }
  | { readonly name: "PostgreSQL"; readonly kind: "postgres"; readonly dataDir: string; readonly url: string }

/** The service keeps PGlite in `<PARTNERPAY_DATA_DIR>/pglite` (packages/app/src/config/Config.ts). */
const pgliteDir = (target: Target) => join(target.dataDir, "pglite")

/**
 * Waits (at most 20 s) until the database is quiet. PostgreSQL: a CHECKPOINT (so that a phase
 * does not pay for the previous one's dirty pages), then no other active client backend or
 * autovacuum worker on the benchmark's database. PGlite: no process holds its lock file
 * (unless the service, about to be measured, does).
 */
const quietDatabase = async (target: Target, phase: string, serviceRunning = false) => {
  const until = Date.now() + 20_000
  if (target.kind === "pglite") {
    if (serviceRunning) return // the service holds the lock; its outbox was drained
    const lock = `${pgliteDir(target)}.lock`
    while (existsSync(lock) && Date.now() < until) {
      const owner = Number(readFileSync(lock, "utf8").trim())
      try {
        process.kill(owner, 0)
      } catch {
        return // a dead owner's lock: taken over by the next opener
      }
      await sleep(100)
    }
    if (existsSync(lock)) notes.push(`${target.name} ${phase}: the data directory was still locked after 20 s`)
    return
  }
  const checkpoint = psql(target.url, "CHECKPOINT")
  if (!checkpoint.ok) notes.push(`${target.name} ${phase}: CHECKPOINT failed (${checkpoint.message})`)
  while (Date.now() < until) {
    const active = psql(
      target.url,
      "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() " +
        "AND backend_type IN ('client backend', 'autovacuum worker') AND state IS DISTINCT FROM 'idle'",
    )
    if (!active.ok) {
      notes.push(`${target.name} ${phase}: pg_stat_activity unreadable (${active.message})`)
      return
    }
    if (active.stdout === "0") return
    await sleep(200)
  }
  notes.push(`${target.name} ${phase}: other backends were still active after 20 s`)
}

// ---------------------------------------------------------------------------------------------
// HTTP set-up calls (bounded: 10 s each)

const call = async (
  base: string,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
): Promise<Record<string, unknown>> => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  })
  const text = await response.text()
  if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`)
  return text === "" ? {} : (JSON.parse(text) as Record<string, unknown>)
}

const companyBody = (companyReferenceId: string) => ({
  companyReferenceId,
  name: "Bench Coffee",
  emailAddress: "hello@bench.example.com",
  taxId: "12-3456789",
  taxIdType: "EIN",
  streetNumberAndName: "100 Main St",
  zipCode: "94105",
  city: "San Francisco",
  state: "CA",
  contactNumber: "+14155550199",
  companyType: "ForProfit",
  owner: {
    name: "Ada Lovelace",
    emailAddress: "ada@bench.example.com",
    contactNumber: "(415) 555-0100",
    title: "CEO",
    documentNumber: "D7654321",
    documentType: "DriversLicense",
    ssn: "987-65-4321",
    dateOfBirth: "1980-12-10",
    streetNumberAndName: "1 Analytical Way",
    zipCode: "94105-1234",
    city: "San Francisco",
    state: "CA",
  },
  employees: [{ name: "Bob", emailAddress: "bob@bench.example.com", contactNumber: "415-555-0101", title: "Cashier" }],
  locations: [
    {
      name: "Main Street Store",
      streetNumberAndName: "100 Main St",
      zipCode: "94105",
      city: "San Francisco",
      state: "CA",
    },
  ],
})

/** What the scenarios of one database read and write; prepared once, in the first round. */
interface Fixture {
  readonly token: string
  readonly companyId: string
  readonly payerRegistrationId: string
  readonly transferId: string
}

/**
 * A Verified company, a verified customer with a linked account, and one accepted payment (its
 * transfer): only verified parties collect. Needs a service whose sandbox KYB decides at once
 * (`prepareFixture`).
 */
const prepare = async (base: string): Promise<Fixture> => {
  const token = (await call(base, "POST", "/auth/token", undefined, { ClientId: clientId, ClientSecret: clientSecret }))
    .AccessToken as string
  const companyId = (await call(base, "POST", "/Company/Create", token, companyBody("bench-fixture")))
    .companyId as string
  for (let attempt = 0; ; attempt++) {
    const status = await call(base, "GET", `/company/status?companyId=${companyId}`, token)
    if (status.Status === "Verified") break
    if (attempt === 300) throw new Error(`the fixture company is not Verified: ${JSON.stringify(status)}`)
    await sleep(100)
  }
  const phoneNumber = "+14155550123"
  await call(base, "POST", "/Login/SendOtp", token, { phoneNumber })
  const login = await call(base, "PUT", "/Login/CheckOtp", token, { phoneNumber, code: "123456" })
  const customerToken = login.accessToken as string
  const payerRegistrationId = login.registrationId as string
  const kyc = await call(base, "POST", "/Verification/StartKyc", customerToken, { deviceId: "bench-device" })
  const verification = await call(base, "GET", "/Verification/CheckVerification", customerToken)
  if (verification.status !== "Verified") throw new Error(`KYC not verified: ${JSON.stringify(verification)}`)
  const link = await call(base, "PUT", "/Account/Link", customerToken, {
    tokenId: kyc.tokenId,
    publicToken: "public-sandbox-bench",
    linkAccountsMetadata: { linkSessionId: "bench-link-session", institutionId: "ins_bench", accountIds: ["acc-1"] },
  })
  if (link.isOk !== true) throw new Error(`account link failed: ${JSON.stringify(link)}`)
  const accounts = (await call(base, "GET", "/Account/List", customerToken)).accounts as Array<{ accountId: string }>
  const paid = (
    await call(base, "POST", "/Payment/Create", token, paymentBody(companyId, payerRegistrationId, "bench"))
  ).paymentRequestId as string
  await call(base, "POST", `/Transaction/PaymentRequest/${paid}/Accept`, customerToken, {
    bankAccountId: accounts[0]!.accountId,
    acceptDebitAuth: false,
    transferDescription: "bench",
  })
  const transferId = (await call(base, "GET", `/Payment/${paid}`, token)).transferId as string
  return { token, companyId, payerRegistrationId, transferId }
}

const paymentBody = (companyId: string, payerRegistrationId: string, description: string) => ({
  companyId,
  payerRegistrationId,
  amount: { value: 10.5, currencyCode: "USD" },
  description,
  dueDate: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
})

/**
 * Fresh (pending) payment requests for each cancel scenario of this round: created 32 at a
 * time for `budgets[i]` ms each (at most 20,000). A cancel of an already cancelled request
 * is a no-op 200, so a cancel load cancels each once and ends early when they run out (its
 * req/s is over the time it ran; the report gives that time and the share of first cancels).
 */
const createCancellable = async (
  base: string,
  fixture: Fixture,
  budgets: ReadonlyArray<number>,
): Promise<ReadonlyArray<ReadonlyArray<string>>> => {
  const out: Array<Array<string>> = []
  for (const budget of budgets) {
    const until = Date.now() + budget
    const ids: Array<string> = []
    let issued = 0
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (issued < 20_000 && Date.now() < until) {
          issued++
          const body = paymentBody(fixture.companyId, fixture.payerRegistrationId, `bench cancel ${issued}`)
          ids.push((await call(base, "POST", "/Payment/Create", fixture.token, body)).paymentRequestId as string)
        }
      }),
    )
    if (ids.length < 2) throw new Error(`fewer than 2 payment requests to cancel created in ${budget} ms`)
    out.push(ids)
  }
  return out
}

/**
 * Waits (at most 45 s) until the service's outbox holds nothing pending or being delivered,
 * asked through the operator API (enabled by PARTNERPAY_ADMIN_TOKEN). Without it (the API
 * changed), waits 2 s and says so in the report.
 */
const drainOutbox = async (base: string, database: string) => {
  const until = Date.now() + 45_000
  const open = async (status: string) => {
    const response = await fetch(`${base}/admin/webhooks/deliveries?status=${status}&limit=1`, {
      headers: { authorization: `Bearer ${adminToken}` },
      signal: AbortSignal.timeout(5000),
    })
    if (response.status !== 200) return undefined
    const body = (await response.json()) as { data?: ReadonlyArray<unknown> }
    return Array.isArray(body.data) ? body.data.length : undefined
  }
  while (Date.now() < until) {
    const pending = await open("pending").catch(() => undefined)
    const delivering = await open("delivering").catch(() => undefined)
    if (pending === undefined || delivering === undefined) {
      notes.push(`${database}: the outbox could not be read through /admin/webhooks/deliveries; waited 2 s instead`)
      await sleep(2000)
      return
    }
    if (pending === 0 && delivering === 0) return
    await sleep(250)
  }
  notes.push(`${database}: the outbox was not drained after 45 s`)
}

// ---------------------------------------------------------------------------------------------
// load

interface Figures {
  /** 2xx answers per second. */
  readonly requestsPerSecond: number
  /** 2xx answers in all. */
  readonly ok?: number
  /** How long the load ran (a load bounded by a request count may end early). */
  readonly seconds?: number
  readonly p50: number
  readonly p99: number
  readonly non2xx?: number
  readonly errors?: number
  readonly timeouts?: number
  /** CPU per 2xx answer, µs, by part (bench/load.ts): absent where /proc cannot be read. */
  readonly cpuMicrosPerAnswer?: CpuPerAnswer
}

interface CpuPerAnswer {
  /** The process answering: the service, or the ceiling server. */
  readonly server: number
  /** Every postgres process (backends, WAL writer, checkpointer); 0 on PGlite (inside the server). */
  readonly postgres: number
  readonly loadGenerator: number
  /** Busy time of every CPU of the machine. */
  readonly machine: number
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor(sorted.length / 2)]!
}
const medianFigures = (all: ReadonlyArray<Figures>): Figures => ({
  requestsPerSecond: median(all.map((f) => f.requestsPerSecond)),
  ok: median(all.map((f) => f.ok ?? 0)),
  seconds: median(all.map((f) => f.seconds ?? Number.NaN)),
  p50: median(all.map((f) => f.p50)),
  p99: median(all.map((f) => f.p99)),
  non2xx: all.reduce((sum, f) => sum + (f.non2xx ?? 0), 0),
  errors: all.reduce((sum, f) => sum + (f.errors ?? 0) + (f.timeouts ?? 0), 0),
  ...medianCpu(all.flatMap((f) => (f.cpuMicrosPerAnswer === undefined ? [] : [f.cpuMicrosPerAnswer]))),
})

/** The median of each part across rounds (none when no round could read it). */
const medianCpu = (all: ReadonlyArray<CpuPerAnswer>): { readonly cpuMicrosPerAnswer?: CpuPerAnswer } =>
  all.length === 0
    ? {}
    : {
        cpuMicrosPerAnswer: {
          server: median(all.map((c) => c.server)),
          postgres: median(all.map((c) => c.postgres)),
          loadGenerator: median(all.map((c) => c.loadGenerator)),
          machine: median(all.map((c) => c.machine)),
        },
      }

interface LoadSpec {
  readonly connections: number
  readonly method: string
  readonly paths: ReadonlyArray<string>
  readonly token?: string
  readonly body?: string
  readonly idReplacement?: boolean
  /** false: not warmed up (see `checkAndWarmUp`) */
  readonly warmUp?: boolean
  /** The load ends after this many requests, or after `seconds`, whichever comes first. */
  readonly maxRequests?: number
  /** The path of the pre-load check (default: the first of `paths`). */
  readonly checkPath?: string
}

/**
 * Runs the loads one after the other in one load-generator child (bench/load.ts; one
 * process start-up for all of them); resolves with their figures, in order.
 */
const loadAll = async (
  base: string | ReadonlyArray<string>,
  specs: ReadonlyArray<LoadSpec>,
  serverPid?: number | ReadonlyArray<number | undefined>,
): Promise<ReadonlyArray<Figures>> => {
  const bases = typeof base === "string" ? [base] : base
  const pids = (typeof serverPid === "number" ? [serverPid] : (serverPid ?? [])).filter(
    (pid): pid is number => pid !== undefined,
  )
  // Through a file: with every pre-created payment path, an argument can exceed the OS limit (E2BIG).
  const specDir = mkdtempSync(join(tmpdir(), "partnerpay-load-"))
  const specFile = join(specDir, "scenarios.json")
  writeFileSync(
    specFile,
    JSON.stringify(
      specs.map((spec) => ({
        url: bases[0],
        ...(bases.length > 1 ? { urls: bases, serverPids: pids } : {}),
        connections: spec.connections,
        seconds,
        maxRequests: spec.maxRequests ?? 2_000_000,
        method: spec.method,
        headers: {
          ...(spec.body === undefined ? {} : { "content-type": "application/json" }),
          ...(spec.token === undefined ? {} : { authorization: `Bearer ${spec.token}` }),
        },
        ...(spec.body === undefined ? {} : { body: spec.body }),
        idReplacement: spec.idReplacement ?? false,
        paths: spec.paths,
        ...(pids.length === 1 ? { serverPid: pids[0] } : {}),
      })),
    ),
  )
  const output = await runNode([join(root, "bench", "load.ts"), specFile], {
    timeoutMillis: specs.length * (seconds * 1000 + 15_000) + 15_000,
  }).finally(() => rmSync(specDir, { recursive: true, force: true }))
  const figures = output
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Figures)
  if (figures.length !== specs.length)
    throw new Error(`bench/load.ts printed ${figures.length} results for ${specs.length} loads`)
  return figures
}

// ---------------------------------------------------------------------------------------------
// scenarios and ceilings

type Ceiling = "bare" | "select" | "insert" | "token" | "unit"

const ceilingLabel = (ceiling: Ceiling, database: string) =>
  ceiling === "bare"
    ? "(a) bare node:http"
    : ceiling === "select"
      ? `(b) HS256 check + SELECT (${database === "PGlite" ? "PGlite" : `pool ${servicePoolSize}`})`
      : ceiling === "token"
        ? `(d) SELECT + HMAC secret check + HS256 sign (${database === "PGlite" ? "PGlite" : `pool ${servicePoolSize}`})`
        : ceiling === "unit"
          ? `(e) 1 unit statement: stream, event, document, outbox (${database === "PGlite" ? "PGlite" : `pool ${servicePoolSize}`})`
          : `(c) 1 INSERT tx (${database === "PGlite" ? "PGlite" : `pool ${servicePoolSize}`})`

interface Scenario {
  readonly name: string
  readonly connections: number
  /** The ceilings it is compared with; the first is the one its target refers to. */
  readonly ceilings: ReadonlyArray<Ceiling>
  /** Cancel scenarios: how long to create fresh payment requests for it each round (ms). */
  readonly cancellable?: number
  readonly spec: (fixture: Fixture, cancellable: ReadonlyArray<string>) => LoadSpec
}

const createCompany = (connections: number): Scenario => ({
  name: "POST /Company/Create",
  connections,
  ceilings: ["insert", "unit"],
  spec: (f) => ({
    connections,
    method: "POST",
    paths: ["/Company/Create"],
    token: f.token,
    body: JSON.stringify(companyBody("bench-[<id>]")),
    idReplacement: true,
  }),
})
const cancelPayment = (connections: number, cancellable: number): Scenario => ({
  name: "PUT /Payment/{id}/Cancel",
  connections,
  ceilings: ["insert", "unit"],
  cancellable,
  // Each fresh payment request is cancelled once: the first by the check, the others by the load,
  // which ends when all are cancelled (or after `seconds`). No warm-up: it would use them up (the
  // INSERT ceiling is warmed by the create load).
  spec: (f, ids) => ({
    connections,
    method: "PUT",
    checkPath: `/Payment/${ids[0]}/Cancel`,
    paths: ids.slice(1).map((id) => `/Payment/${id}/Cancel`),
    maxRequests: ids.length - 1,
    token: f.token,
    warmUp: false,
  }),
})
const readScenarios: ReadonlyArray<Scenario> = [
  {
    name: "GET /company/status",
    connections: 64,
    ceilings: ["select", "bare"],
    spec: (f) => ({
      connections: 64,
      method: "GET",
      paths: [`/company/status?companyId=${f.companyId}`],
      token: f.token,
    }),
  },
  {
    name: "GET /Transaction/{id}",
    connections: 64,
    ceilings: ["select", "bare"],
    spec: (f) => ({ connections: 64, method: "GET", paths: [`/Transaction/${f.transferId}`], token: f.token }),
  },
  {
    name: "POST /auth/token",
    // Client secrets are checked with HMAC-SHA-256 under the pepper (microseconds), no longer scrypt.
    connections: 64,
    ceilings: ["token", "bare"],
    spec: () => ({
      connections: 64,
      method: "POST",
      paths: ["/auth/token"],
      body: JSON.stringify({ ClientId: clientId, ClientSecret: clientSecret }),
    }),
  },
]
const profiledScenario = (): Scenario => {
  const which = process.argv.find((arg) => /^--(profile|measure)=/.test(arg))?.replace(/^--\w+=/, "") ?? "create"
  const byName: Record<string, Scenario> = {
    create: createCompany(64),
    cancel: cancelPayment(64, seconds * 1000),
    status: readScenarios[0]!,
    transaction: readScenarios[1]!,
  }
  const scenario = byName[which]
  if (scenario === undefined) throw new Error(`--profile=${which}: expected one of ${Object.keys(byName).join(", ")}`)
  return scenario
}
const scenarios: ReadonlyArray<Scenario> = profile
  ? [profiledScenario()]
  : readsOnly
    ? readScenarios.filter((s) => s.name.startsWith("GET "))
    : quick
      ? [createCompany(64), cancelPayment(64, 2 * seconds * 1000), ...readScenarios]
      : [
          ...[1, 16, 64].map(createCompany),
          cancelPayment(1, 0.5 * seconds * 1000),
          cancelPayment(16, 2 * seconds * 1000),
          cancelPayment(64, 2 * seconds * 1000),
          ...readScenarios,
        ]

/**
 * The issues' targets: service ÷ a ceiling (its first unless named), PostgreSQL, 64 connections.
 * Issue 9: against the SELECT and INSERT ceilings; issue 27: creates and cancels >= 0.7x the unit
 * ceiling (e), which does the same essential writes by hand.
 */
const targets: ReadonlyArray<{ readonly scenario: string; readonly ratio: number; readonly ceiling?: Ceiling }> = [
  { scenario: "GET /company/status", ratio: 0.5 },
  { scenario: "GET /Transaction/{id}", ratio: 0.5 },
  { scenario: "POST /Company/Create", ratio: 0.35 },
  { scenario: "PUT /Payment/{id}/Cancel", ratio: 0.5 },
  { scenario: "POST /Company/Create", ratio: 0.7, ceiling: "unit" },
  { scenario: "PUT /Payment/{id}/Cancel", ratio: 0.7, ceiling: "unit" },
]
const eventStoreTarget = 0.8
/** Issue 27's memory targets (RSS, MB): idle 1 s after start, and after the loads. */
const memoryTargets: Record<Target["name"], { readonly idle: number; readonly loaded: number }> = {
  PostgreSQL: { idle: 150, loaded: 300 },
  PGlite: { idle: 250, loaded: 400 },
}

// ---------------------------------------------------------------------------------------------
// the service and the ceiling servers, alternated

interface Running {
  readonly base: string
  readonly child: ChildProcess
}

/** The variables named in BENCH_SERVICE_ENV, with their values here (unset ones are left out). */
const passedOn = (): Record<string, string> =>
  Object.fromEntries(
    (process.env.BENCH_SERVICE_ENV ?? "")
      .split(",")
      .map((name) => name.trim())
      .flatMap((name) => {
        const value = name === "" ? undefined : process.env[name]
        return value === undefined ? [] : [[name, value]]
      }),
  )

const serviceEnv = (target: Target, port: number, overrides: Record<string, string> = {}): Record<string, string> => ({
  PORT: String(port),
  HOST: "127.0.0.1",
  ...(process.env.BENCH_SERVICE_NODE_OPTIONS === undefined
    ? {}
    : { NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS }),
  PARTNERPAY_DATA_DIR: target.dataDir,
  PARTNERPAY_SANDBOX_CLIENT_ID: clientId,
  PARTNERPAY_SANDBOX_CLIENT_SECRET: clientSecret,
  PARTNERPAY_TOKEN_SECRET: tokenSecret,
  PARTNERPAY_SECRET_PEPPER: secretPepper,
  PARTNERPAY_ADMIN_TOKEN: adminToken,
  // The sandbox KYB and settlement workers decide nothing for 24 h (they still poll, about once a
  // second); no PARTNERPAY_SANDBOX_WEBHOOK_URL, so no webhook is sent (the dispatcher marks the
  // outbox rows failed at once, as it does for any partner without a webhook URL).
  PARTNERPAY_KYB_DELAY_MS: "86400000",
  PARTNERPAY_SETTLEMENT_DELAY_MS: "86400000",
  LOG_LEVEL: "Warn",
  // Measure the service, not the per-caller rate limiter (which would answer 429 at 100/s).
  PARTNERPAY_RATE_LIMITING: "off",
  ...(target.kind === "postgres" ? { DATABASE_URL: target.url } : {}),
  ...serviceStart.env,
  ...passedOn(),
  ...overrides,
})

/**
 * How `pnpm start` starts the service (packages/app/src/start.ts re-executes Node with the flags and
 * environment of RuntimeFlags.ts, and a compile cache next to the code), so that the bench measures the
 * service as operators run it.
 */
export const serviceStart: { readonly env: Record<string, string>; readonly nodeFlags: ReadonlyArray<string> } = {
  env: {
    NODE_COMPILE_CACHE: join(root, "packages", "app", "node_modules", ".cache", "node-compile-cache"),
    ...RuntimeFlags.environment,
  },
  nodeFlags: RuntimeFlags.nodeFlags,
}

/** The Node flags the service is started with (`serviceStart`). */
export const serviceNodeFlags: ReadonlyArray<string> = serviceStart.nodeFlags

/** The service's V8 heap in use (MB), from its `GET /metrics`; undefined when it does not answer. */
const heapUsedMegabytes = async (base: string): Promise<number | undefined> => {
  try {
    const response = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(5000) })
    const match = /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?)/m.exec(await response.text())
    return match === null ? undefined : Math.round(Number(match[1]) / 1024 / 1024)
  } catch {
    return undefined
  }
}

/** --memory: the service's heap and external memory (its `GET /metrics`), noted for the report. */
const memoryDetails = async (base: string, label: string) => {
  try {
    const text = await (await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(5000) })).text()
    const figures = [
      ...text.matchAll(
        /^nodejs_(heap_size_total|heap_size_used|external_memory|heap_space_size_used)_bytes(\{[^}]*\})? (\S+)/gm,
      ),
    ].map((m) => `${m[1]}${m[2] ?? ""} ${Math.round(Number(m[3]) / 1024 / 1024)} MB`)
    const gc = [...text.matchAll(/^nodejs_gc_duration_seconds_sum\{kind="(\w+)"\} (\S+)/gm)].map(
      (m) => `GC ${m[1]} ${Math.round(Number(m[2]) * 1000)} ms`,
    )
    notes.push(`${label}: ${[...figures, ...gc].join(", ")}`)
  } catch (error) {
    notes.push(`${label}: /metrics unreadable (${String(error)})`)
  }
}

/**
 * --heap-snapshots: asks the service (started with --heapsnapshot-signal=SIGUSR2) for a heap snapshot
 * into `heapSnapshotDir` and waits until it is written (the service stops while it writes it).
 */
const heapSnapshot = async (child: ChildProcess, base: string, label: string) => {
  if (heapSnapshotDir === undefined || child.pid === undefined) return
  const before = new Set(readdirSync(heapSnapshotDir))
  child.kill("SIGUSR2")
  const until = Date.now() + 180_000
  while (Date.now() < until) {
    await sleep(500)
    const written = readdirSync(heapSnapshotDir).filter((name) => !before.has(name) && name.endsWith(".heapsnapshot"))
    // Written once the service answers again (it writes the snapshot synchronously).
    if (written.length > 0 && (await heapUsedMegabytes(base)) !== undefined) {
      progress(`heap snapshot ${label}: ${join(heapSnapshotDir, written[0]!)}`)
      return
    }
  }
  notes.push(`heap snapshot ${label}: not written within 180 s`)
}

/** Starts the service on the target's data; resolves once it answers, with its start-up time and idle RSS. */
const startService = async (
  target: Target,
  cpuProfileDir?: string,
  overrides: Record<string, string> = {},
): Promise<
  Running & {
    readonly startupMillis: number
    readonly idleRssMb: number | undefined
    readonly idleHeapMb: number | undefined
  }
> => {
  const started = Date.now()
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const service = await startNode(
    [
      ...(cpuProfileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${cpuProfileDir}`]),
      ...(heapSnapshotDir === undefined
        ? []
        : ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${heapSnapshotDir}`]),
      ...serviceNodeFlags,
      "src/main.ts",
    ],
    { cwd: join(root, "packages", "app"), env: serviceEnv(target, port, overrides), timeoutMillis: 120_000 },
  )
  await waitForHttp(base, service.child, service.output, 120_000)
  const startupMillis = Date.now() - started
  await sleep(1000)
  const idleRssMb = rssMegabytes(service.child.pid)
  const idleHeapMb = await heapUsedMegabytes(base)
  await heapSnapshot(service.child, base, "idle")
  return { base, child: service.child, startupMillis, idleRssMb, idleHeapMb }
}

/**
 * The fixture (`prepare`), recorded by a service of its own whose sandbox KYB decides at once, so
 * that the measured services keep their KYB idle (24 h) and the fixture company is Verified.
 */
const prepareFixture = async (target: Target): Promise<Fixture> => {
  const service = await startService(target, undefined, { PARTNERPAY_KYB_DELAY_MS: "0" })
  try {
    return await prepare(service.base)
  } finally {
    await stopChild(service.child)
  }
}

/** Starts one ceiling server of bench/baselines.ts on the target's database. */
const startCeiling = async (ceiling: Ceiling, target: Target): Promise<Running> => {
  const database =
    target.kind === "postgres"
      ? { kind: "postgres", url: target.url, poolSize: servicePoolSize }
      : { kind: "pglite", dataDir: pgliteDir(target) }
  const server = await startNode(
    [
      join(root, "bench", "baselines.ts"),
      ceiling === "bare"
        ? "bare"
        : ceiling === "select"
          ? "read"
          : ceiling === "token"
            ? "token"
            : ceiling === "unit"
              ? "unit"
              : "write",
    ],
    {
      cwd: root,
      // The database (its URL may hold a password) and the secrets go through the environment, not argv.
      env: {
        BENCH_DATABASE: JSON.stringify(database),
        BENCH_TOKEN_SECRET: tokenSecret,
        BENCH_SECRET_PEPPER: secretPepper,
      },
      ready: /"port":(\d+)/,
      timeoutMillis: 60_000,
    },
  )
  return { base: `http://127.0.0.1:${server.match![1]}`, child: server.child }
}

const send = (base: string, spec: LoadSpec, path: string) =>
  fetch(`${base}${path}`, {
    method: spec.method,
    headers: {
      ...(spec.body === undefined ? {} : { "content-type": "application/json" }),
      ...(spec.token === undefined ? {} : { authorization: `Bearer ${spec.token}` }),
    },
    // `[<id>]` made unique as autocannon's idReplacement does.
    ...(spec.body === undefined ? {} : { body: spec.body.replaceAll("[<id>]", randomBytes(8).toString("hex")) }),
    signal: AbortSignal.timeout(15_000),
  })

const warmUpMillis = 500

/**
 * Before a phase's load: one request of each load (the first path), which must answer 2xx or
 * nothing is measured; then the same warm-up on both sides, up to `warmUpMillis` (at most 500
 * requests) of each load that allows it, min(connections, 16) at a time. The service has also
 * served the set-up requests; a ceiling process is new each phase (cold JIT, and on PGlite a
 * freshly opened database), and would otherwise pay its warm-up inside a short load.
 */
const checkAndWarmUp = async (base: string, specs: ReadonlyArray<LoadSpec>, what: string) => {
  for (const spec of specs) {
    const path = spec.checkPath ?? spec.paths[0]!
    const response = await send(base, spec, path)
    const text = await response.text()
    if (response.status < 200 || response.status > 299)
      throw new Error(`${what}: ${spec.method} ${path} answered ${response.status}: ${text.slice(0, 300)}`)
  }
  for (const spec of specs) {
    if (spec.warmUp === false) continue
    const until = Date.now() + warmUpMillis
    let sent = 0
    await Promise.all(
      Array.from({ length: Math.min(spec.connections, 16) }, async () => {
        while (sent < 500 && Date.now() < until) {
          const path = spec.paths[sent++ % spec.paths.length]!
          await send(base, spec, path)
            .then((response) => response.arrayBuffer())
            .catch(() => undefined)
        }
      }),
    )
  }
}

interface Start {
  readonly round: number
  readonly startupMillis: number
  readonly idleRssMb: number | undefined
  readonly loadedRssMb: number | undefined
  readonly idleHeapMb: number | undefined
  readonly loadedHeapMb: number | undefined
}

interface DatabaseRuns {
  readonly database: Target["name"]
  readonly starts: Array<Start>
  /** [scenario][round] */
  readonly service: Array<Array<Figures>>
  /** [ceiling][scenario][round] (empty for a scenario not compared with that ceiling) */
  readonly ceilings: Record<Ceiling, Array<Array<Figures>>>
  /** [scenario][round]: fresh payment requests its cancels went round-robin over */
  readonly cancellable: Array<Array<number>>
  /** The fixture of the rounds (for the instances phase). */
  fixture?: Fixture
  /** Issue 27: the write scenario on 1, 2 and 3 instances (PostgreSQL); [instances - 1][round]. */
  readonly instances: Array<Array<Figures>>
}

const allCeilings: ReadonlyArray<Ceiling> = ["bare", "select", "insert", "token", "unit"]

const emptyRuns = (database: Target["name"]): DatabaseRuns => {
  const empty = () => scenarios.map((): Array<Figures> => [])
  return {
    database,
    starts: [],
    service: empty(),
    ceilings: { bare: empty(), select: empty(), insert: empty(), token: empty(), unit: empty() },
    cancellable: scenarios.map((): Array<number> => []),
    instances: instanceCounts.map((): Array<Figures> => []),
  }
}

/** The instance counts of the instances phase. */
const instanceCounts: ReadonlyArray<number> = [1, 2, 3]

/**
 * Issue 27: `POST /Company/Create` at 64 connections spread evenly over 1, 2 and 3 instances of
 * the service on the same PostgreSQL database (one load process, one autocannon per instance),
 * each count started afresh and stopped after its load, in rounds. The machine has few cores (2
 * in development): more instances there measure contention for the same CPUs (the load generator
 * and PostgreSQL included), not how far instances scale on their own machines.
 */
const benchInstances = async (target: Target, runs: DatabaseRuns): Promise<void> => {
  const fixture = runs.fixture
  if (profile || target.kind !== "postgres" || fixture === undefined) return
  const spec = createCompany(64).spec(fixture, [])
  for (let round = 1; round <= rounds; round++) {
    for (const [index, count] of instanceCounts.entries()) {
      const tag = `[${target.name} instances ${count}, ${round}/${rounds}]`
      await quietDatabase(target, `${tag} before starting`)
      progress(`\n${tag} starting ${count} instance(s)...`)
      const services: Array<Running> = []
      try {
        for (let i = 0; i < count; i++) services.push(await startService(target))
        for (const service of services)
          await checkAndWarmUp(service.base, [spec], `instance ${services.indexOf(service) + 1}`)
        await drainOutbox(services[0]!.base, target.name)
        await quietDatabase(target, `${tag} before the load`, true)
        progress(`${tag} load of ${seconds} s over ${count} instance(s)`)
        const [figures] = await loadAll(
          services.map((service) => service.base),
          [spec],
          services.map((service) => service.child.pid),
        )
        runs.instances[index]!.push(figures!)
      } finally {
        for (const service of services) await stopChild(service.child)
      }
    }
  }
}

/**
 * Rounds of service -> ceilings on one database (each side stopped while the other runs),
 * recorded into `runs` as they complete (a failure keeps the rounds measured before it).
 */
const benchDatabase = async (target: Target, runs: DatabaseRuns): Promise<void> => {
  const cancelScenarios = scenarios.filter((s) => s.cancellable !== undefined)
  let fixture: Fixture | undefined
  for (let round = 1; round <= rounds; round++) {
    const tag = `[${target.name} ${round}/${rounds}]`
    await quietDatabase(target, `round ${round}, before starting the service`)
    if (fixture === undefined) {
      progress(`\n${tag} preparing the fixture...`)
      fixture = await prepareFixture(target)
      runs.fixture = fixture
      await quietDatabase(target, `round ${round}, after the fixture`)
    }
    progress(`\n${tag} starting the service...`)
    const service = await startService(target)
    let specs: ReadonlyArray<LoadSpec>
    try {
      progress(`${tag} up after ${service.startupMillis} ms, idle RSS ${service.idleRssMb} MB; preparing...`)
      const fixed = fixture
      const created = await createCancellable(
        service.base,
        fixed,
        cancelScenarios.map((s) => s.cancellable!),
      )
      specs = scenarios.map((s) =>
        s.spec(fixed, s.cancellable === undefined ? [] : created[cancelScenarios.indexOf(s)]!),
      )
      scenarios.forEach((s, i) => {
        if (s.cancellable !== undefined) runs.cancellable[i]!.push(specs[i]!.paths.length)
      })
      await checkAndWarmUp(service.base, specs, "the service")
      await drainOutbox(service.base, target.name)
      await quietDatabase(target, `round ${round}, before the service's load`, true)
      progress(`${tag} service: ${scenarios.length} loads of ${seconds} s`)
      const figures = await loadAll(service.base, specs, service.child.pid)
      figures.forEach((f, i) => {
        runs.service[i]!.push(f)
      })
      const loadedRssMb = rssMegabytes(service.child.pid)
      runs.starts.push({
        round,
        startupMillis: service.startupMillis,
        idleRssMb: service.idleRssMb,
        loadedRssMb,
        idleHeapMb: service.idleHeapMb,
        loadedHeapMb: await heapUsedMegabytes(service.base),
      })
      if (memoryOnly) await memoryDetails(service.base, `${target.name} after the loads`)
      await heapSnapshot(service.child, service.base, `${target.name} after the loads`)
    } finally {
      await stopChild(service.child)
    }
    if (memoryOnly) continue
    for (const ceiling of allCeilings) {
      const indices = scenarios.flatMap((s, i) => (s.ceilings.includes(ceiling) ? [i] : []))
      if (indices.length === 0) continue
      await quietDatabase(target, `round ${round}, before ceiling ${ceiling}`)
      progress(`${tag} ceiling ${ceilingLabel(ceiling, target.name)}: ${indices.length} loads of ${seconds} s`)
      const server = await startCeiling(ceiling, target)
      try {
        const ceilingSpecs = indices.map((i) => specs[i]!)
        await checkAndWarmUp(server.base, ceilingSpecs, `ceiling ${ceiling}`)
        const figures = await loadAll(server.base, ceilingSpecs, server.child.pid)
        indices.forEach((i, k) => {
          runs.ceilings[ceiling][i]!.push(figures[k]!)
        })
      } finally {
        await stopChild(server.child)
      }
    }
  }
}

interface Row {
  readonly database: string
  readonly scenario: string
  readonly connections: number
  readonly ceiling: Ceiling
  readonly ceilingName: string
  readonly service: Figures
  readonly ceilingFigures: Figures
  /** median service req/s ÷ median ceiling req/s */
  readonly ratio: number
  readonly roundRatios: ReadonlyArray<number>
  /** The issue's target for this row; `targetApplies` false: PGlite, reported only. */
  readonly target?: number
  readonly targetApplies?: boolean
  /** Cancel rows: share of the cancels that found a pending request (the rest were no-op repeats). */
  readonly firstCancelShare?: number
}

const rowsOf = (runs: DatabaseRuns): ReadonlyArray<Row> =>
  scenarios.flatMap((scenario, i) =>
    scenario.ceilings.flatMap((ceiling): ReadonlyArray<Row> => {
      const serviceRuns = runs.service[i]!
      const ceilingRuns = runs.ceilings[ceiling][i]!
      if (serviceRuns.length === 0 || ceilingRuns.length === 0) return []
      const service = medianFigures(serviceRuns)
      const ceilingFigures = medianFigures(ceilingRuns)
      const target =
        scenario.connections === 64
          ? targets.find((t) => t.scenario === scenario.name && (t.ceiling ?? scenario.ceilings[0]) === ceiling)
          : undefined
      const fresh = runs.cancellable[i]!
      const firstCancelShare =
        scenario.cancellable === undefined
          ? undefined
          : median(serviceRuns.map((f, r) => Math.min(1, (fresh[r] ?? 0) / Math.max(1, f.ok ?? 0))))
      return [
        {
          database: runs.database,
          scenario: scenario.name,
          connections: scenario.connections,
          ceiling,
          ceilingName: ceilingLabel(ceiling, runs.database),
          service,
          ceilingFigures,
          ratio: service.requestsPerSecond / ceilingFigures.requestsPerSecond,
          roundRatios: serviceRuns.map(
            (f, r) => f.requestsPerSecond / (ceilingRuns[r]?.requestsPerSecond ?? Number.NaN),
          ),
          ...(target === undefined ? {} : { target: target.ratio, targetApplies: runs.database === "PostgreSQL" }),
          ...(firstCancelShare === undefined ? {} : { firstCancelShare }),
        },
      ]
    }),
  )

// ---------------------------------------------------------------------------------------------
// the package micro-benchmarks and the optional hooks (run with nothing else running)

interface PackageBench {
  readonly name: string
  readonly command: string
  readonly output: string
}

interface EventStoreLine {
  readonly scenario: string
  readonly storePerSecond: number
  readonly baselinePerSecond: number
  readonly ratio: number
}

/** The "N writers, ..." lines of packages/adapters-pg/bench/eventstore.ts's PostgreSQL table. */
const parseEventStore = (output: string): ReadonlyArray<EventStoreLine> =>
  [...output.matchAll(/^(\d+ writers?, [^\n]*?)\s+([\d,]+)\s+([\d,]+)\s+([\d.]+)\s*$/gm)].map((m) => ({
    scenario: m[1]!.trim(),
    storePerSecond: Number(m[2]!.replaceAll(",", "")),
    baselinePerSecond: Number(m[3]!.replaceAll(",", "")),
    ratio: Number(m[4]),
  }))

const packageBenches = async (databaseUrl: string | undefined): Promise<ReadonlyArray<PackageBench>> => {
  const out: Array<PackageBench> = []
  if (databaseUrl === undefined) {
    out.push({ name: "adapters-pg: event store", command: "-", output: "skipped: no PostgreSQL server" })
  } else {
    const command = `node bench/eventstore.ts${quick ? " (BENCH_SECONDS_PER_RUN=0.25)" : ""}`
    progress(`\n[packages] ${command}`)
    try {
      out.push({
        name: "adapters-pg: event store",
        command,
        output: await runNode(["bench/eventstore.ts"], {
          cwd: join(root, "packages", "adapters-pg"),
          env: { DATABASE_URL: databaseUrl, ...(quick ? { BENCH_SECONDS_PER_RUN: "0.25" } : {}) },
          timeoutMillis: 300_000,
        }),
      })
    } catch (error) {
      out.push({ name: "adapters-pg: event store", command, output: `FAILED: ${String(error)}` })
    }
  }
  const rehydrateArgs = ["bench/rehydrate.ts", ...(quick ? ["50000"] : [])]
  progress(`[packages] node ${rehydrateArgs.join(" ")}`)
  try {
    out.push({
      name: "domain: rehydrate",
      command: `node ${rehydrateArgs.join(" ")}`,
      output: await runNode(rehydrateArgs, { cwd: join(root, "packages", "domain"), timeoutMillis: 180_000 }),
    })
  } catch (error) {
    out.push({ name: "domain: rehydrate", command: rehydrateArgs.join(" "), output: `FAILED: ${String(error)}` })
  }
  return out
}

interface Hook {
  readonly file: string
  readonly status: "ok" | "skipped" | "failed"
  readonly note?: string
  /** Every scalar of the hook's JSON, nested keys joined with "." */
  readonly figures: ReadonlyArray<{ readonly figure: string; readonly value: number | string | boolean }>
}

const flatten = (value: unknown, prefix = ""): Hook["figures"] =>
  typeof value === "number" || typeof value === "string" || typeof value === "boolean"
    ? [{ figure: prefix, value }]
    : typeof value === "object" && value !== null && !Array.isArray(value)
      ? Object.entries(value).flatMap(([key, v]) => flatten(v, prefix === "" ? key : `${prefix}.${key}`))
      : []

/**
 * OPTIONAL HOOKS (bench/startup.ts: PGlite fresh-directory start time and idle RSS;
 * bench/webhooks.ts: `{ dispatcherPerSecond, handWrittenPerSecond, ratio }`), written by
 * others: each runs as `node bench/<file> [--quick]` (env BENCH_QUICK=1|0 and, when there is
 * a server, DATABASE_URL of the benchmark's database) ONLY WHEN ITS FILE EXISTS; its last
 * stdout line that is a JSON object is folded into the report, a row per figure.
 */
const runHook = async (file: string, databaseUrl: string | undefined): Promise<Hook> => {
  if (!existsSync(join(root, "bench", file)))
    return { file, status: "skipped", note: `bench/${file} not present (optional hook)`, figures: [] }
  progress(`[hook] node bench/${file}${quick ? " --quick" : ""}`)
  try {
    const output = await runNode([join(root, "bench", file), ...(quick ? ["--quick"] : [])], {
      env: { BENCH_QUICK: quick ? "1" : "0", ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }) },
      timeoutMillis: (quick ? 90 : 300) * 1000,
    })
    const json = output
      .trim()
      .split("\n")
      .reverse()
      .map((line) => {
        try {
          return JSON.parse(line) as unknown
        } catch {
          return undefined
        }
      })
      .find((v) => typeof v === "object" && v !== null && !Array.isArray(v))
    if (json === undefined) return { file, status: "failed", note: "printed no JSON object", figures: [] }
    return { file, status: "ok", figures: flatten(json) }
  } catch (error) {
    return { file, status: "failed", note: String(error).slice(0, 500), figures: [] }
  }
}

// ---------------------------------------------------------------------------------------------
// profile summary: top frames by self time

const summariseProfile = (dir: string): string => {
  const file = readdirSync(dir)
    .filter((name) => name.endsWith(".cpuprofile"))
    .sort()
    .pop()
  if (file === undefined) return "no .cpuprofile written"
  interface Node {
    readonly id: number
    readonly callFrame: { functionName: string; url: string; lineNumber: number }
  }
  const cpu = JSON.parse(readFileSync(join(dir, file), "utf8")) as {
    nodes: ReadonlyArray<Node>
    samples: ReadonlyArray<number>
    timeDeltas: ReadonlyArray<number>
  }
  const byId = new Map(cpu.nodes.map((node) => [node.id, node]))
  const self = new Map<string, number>()
  let total = 0
  cpu.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame
    // A package of node_modules by its name (not its pnpm store directory).
    const where = frame.url
      .replace(/^file:\/\//, "")
      .replace(root, "")
      .replace(/^\/?node_modules\/\.pnpm\/[^/]+\/node_modules\//, "node_modules/")
    const key = `${frame.functionName || "(anonymous)"} ${where}:${frame.lineNumber + 1}`
    const delta = cpu.timeDeltas[i] ?? 0
    self.set(key, (self.get(key) ?? 0) + delta)
    total += delta
  })
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)
  // Self time by where the code lives: a package of node_modules, a workspace package, Node itself.
  const areas = new Map<string, number>()
  for (const [key, micros] of self) {
    const where = key.slice(key.lastIndexOf(" ") + 1)
    const area =
      /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(where)?.[1] ??
      /^\/?packages\/([^/]+)/.exec(where)?.[1] ??
      (where.startsWith("node:")
        ? "node (built-in modules)"
        : where.startsWith("wasm:")
          ? "WebAssembly (Node's TypeScript stripper, at start)"
          : key.startsWith("(idle)")
            ? "(idle)"
            : key.startsWith("(garbage collector)")
              ? "(garbage collector)"
              : "(native: sockets, crypto, program)")
    areas.set(area, (areas.get(area) ?? 0) + micros)
  }
  const percent = (micros: number) => `${((100 * micros) / total).toFixed(1)}%`
  return [
    `Profile \`${join(dir, file).replace(root, "")}\` (${(total / 1e6).toFixed(1)} s sampled).`,
    "",
    "Self time by area:",
    "",
    "| area | self time |",
    "|---|---:|",
    ...[...areas.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([area, micros]) => `| ${area} | ${percent(micros)} |`),
    "",
    "Top frames by self time:",
    "",
    "| self time | frame |",
    "|---:|---|",
    ...top.map(([key, micros]) => `| ${percent(micros)} | \`${key}\` |`),
  ].join("\n")
}

// ---------------------------------------------------------------------------------------------
// report

const number = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "-")
const ms = (n: number) => (Number.isFinite(n) ? `${n < 10 ? n.toFixed(1) : Math.round(n)} ms` : "-")
const ratioText = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : "-")

interface TargetResult {
  readonly target: string
  readonly required: string
  readonly measured: string
  readonly met: boolean | "reported" | "not measured"
}

const targetResults = (
  rows: ReadonlyArray<Row>,
  eventStore: ReadonlyArray<EventStoreLine>,
  databases: ReadonlyArray<string>,
): ReadonlyArray<TargetResult> => {
  const out: Array<TargetResult> = targets.map((t) => {
    const row = rows.find(
      (r) =>
        r.database === "PostgreSQL" &&
        r.scenario === t.scenario &&
        r.target !== undefined &&
        (t.ceiling === undefined || r.ceiling === t.ceiling) &&
        (t.ceiling !== undefined || r.ceiling !== "unit"),
    )
    const ceiling =
      t.ceiling === "unit"
        ? "the unit ceiling (e)"
        : t.scenario.startsWith("GET")
          ? "the SELECT ceiling (b)"
          : "the INSERT ceiling (c)"
    return {
      target: `${t.scenario}, 64 connections, PostgreSQL`,
      required: `>= ${t.ratio}x ${ceiling}`,
      measured:
        row === undefined
          ? "-"
          : `${ratioText(row.ratio)}x (${number(row.service.requestsPerSecond)} vs ${number(row.ceilingFigures.requestsPerSecond)} req/s)`,
      met: row === undefined ? "not measured" : row.ratio >= t.ratio,
    }
  })
  const appends = eventStore.find((line) => line.scenario.startsWith("32 writers, single"))
  out.push({
    target: "Event store appends, 32 writers, single events (packages/adapters-pg/bench/eventstore.ts)",
    required: `>= ${eventStoreTarget}x the plain INSERT baseline`,
    measured:
      appends === undefined
        ? "-"
        : `${ratioText(appends.ratio)}x (${number(appends.storePerSecond)} vs ${number(appends.baselinePerSecond)} events/s)`,
    met: appends === undefined ? "not measured" : appends.ratio >= eventStoreTarget,
  })
  const pglite = rows.filter((r) => r.database === "PGlite" && r.target !== undefined)
  out.push({
    target: "The same scenarios on PGlite",
    required: "reported",
    measured:
      pglite.length === 0
        ? "-"
        : pglite
            .map((r) => `${r.scenario} ${ratioText(r.ratio)}x ${r.ceiling === "unit" ? "(e)" : "(b)/(c)"}`)
            .join("; "),
    met: databases.includes("PGlite") && pglite.length > 0 ? "reported" : "not measured",
  })
  return out
}

const markdown = (report: {
  readonly rows: ReadonlyArray<Row>
  readonly targets: ReadonlyArray<TargetResult>
  readonly runs: ReadonlyArray<DatabaseRuns>
  readonly eventStore: ReadonlyArray<EventStoreLine>
  readonly benches: ReadonlyArray<PackageBench>
  readonly hooks: ReadonlyArray<Hook>
  readonly skipped: ReadonlyArray<string>
}) => {
  const metText = (met: TargetResult["met"]) => (met === true ? "**met**" : met === false ? "**NOT met**" : met)
  const lines: Array<string> = [
    `# partnerpay benchmarks (${quick ? `quick: 1 round of ${seconds} s loads` : `median of ${rounds} rounds of ${seconds} s loads`})`,
    "",
    `${new Date().toISOString()}, Node ${process.version}, ${process.platform}/${process.arch}. ` +
      "Service: `node packages/app/src/main.ts`, LOG_LEVEL=Warn, PARTNERPAY_RATE_LIMITING=off, workers idle " +
      "(KYB/settlement delays 24 h, no webhook URL). Ceilings: hand-written node:http servers (bench/baselines.ts) " +
      "on the same database, run while the service is stopped, rounds alternated service -> ceilings. " +
      "Load: autocannon in a separate process, the same requests for the service and its ceilings.",
    "",
    "Ceilings: (a) bare node:http, fixed JSON; (b) HS256 bearer check by hand (createHmac + timingSafeEqual, exp) + " +
      "the read-model SELECT by (collection, id), through @effect/sql-pg; (c) JSON body parsed + one single-row INSERT " +
      "in autocommit (one transaction) into an events-shaped table, through @effect/sql-pg; (d) the token endpoint's " +
      "essential work; (e) JSON body parsed + ONE statement bumping the stream's version, inserting the event, " +
      "upserting the read-model document and inserting the outbox row (tables LIKE the service's). PostgreSQL: pool " +
      `${servicePoolSize}, as the service; PGlite: its one session, on the service's data directory.`,
    "",
    "## Targets (issues 9 and 27)",
    "",
    "| target | required | measured | met? |",
    "|---|---|---|---|",
    ...report.targets.map((t) => `| ${t.target} | ${t.required} | ${t.measured} | ${metText(t.met)} |`),
    "",
    "## Service vs ceilings",
    "",
    "req/s counts 2xx answers; p50/p99 cover every answer; ratio = service req/s ÷ ceiling req/s (medians across rounds). " +
      "err = non-2xx answers + errors + timeouts over all rounds (should be 0).",
    "",
    "| db | scenario | conns | req/s | p50 | p99 | ceiling | ceiling req/s | ratio | target | met? | err | notes |",
    "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---|---:|---|",
  ]
  for (const row of report.rows) {
    const target = row.target === undefined ? "" : row.targetApplies === true ? `${row.target}` : `(${row.target})`
    const met =
      row.target === undefined ? "" : row.targetApplies === true ? (row.ratio >= row.target ? "yes" : "NO") : "reported"
    const err = (row.service.non2xx ?? 0) + (row.service.errors ?? 0)
    const ceilingErr = (row.ceilingFigures.non2xx ?? 0) + (row.ceilingFigures.errors ?? 0)
    const notes = [
      ...(row.firstCancelShare === undefined
        ? []
        : [
            `${Math.round(row.firstCancelShare * 100)}% first cancels; the load ran ${row.service.seconds?.toFixed(1)} s (ceiling ${row.ceilingFigures.seconds?.toFixed(1)} s) over the same requests`,
          ]),
      ...(ceilingErr === 0 ? [] : [`ceiling err ${ceilingErr}`]),
      `rounds: ${row.roundRatios.map(ratioText).join(", ")}`,
    ].join("; ")
    lines.push(
      `| ${row.database} | ${row.scenario} | ${row.connections} | ${number(row.service.requestsPerSecond)} | ${ms(row.service.p50)} | ${ms(row.service.p99)} | ${row.ceilingName} | ${number(row.ceilingFigures.requestsPerSecond)} | ${ratioText(row.ratio)} | ${target} | ${met} | ${err} | ${notes} |`,
    )
  }
  lines.push(...cpuSection(report.rows))
  lines.push(...budgetSection(report.rows))
  lines.push(...memorySection(report.runs))
  lines.push(...instancesSection(report.runs))
  lines.push("", "## Event store appends vs plain INSERT (packages/adapters-pg/bench/eventstore.ts, PostgreSQL)", "")
  if (report.eventStore.length === 0) lines.push("Not measured (see the raw output below).")
  else {
    lines.push("| scenario | store events/s | INSERT baseline events/s | ratio | target |", "|---|---:|---:|---:|---|")
    for (const line of report.eventStore) {
      const target = line.scenario.startsWith("32 writers, single")
        ? `**>= ${eventStoreTarget}: ${line.ratio >= eventStoreTarget ? "met" : "NOT met"}**`
        : ""
      lines.push(
        `| ${line.scenario} | ${number(line.storePerSecond)} | ${number(line.baselinePerSecond)} | ${ratioText(line.ratio)} | ${target} |`,
      )
    }
  }
  lines.push("", "## Optional hooks (bench/startup.ts, bench/webhooks.ts)", "")
  lines.push("| hook | figure | value |", "|---|---|---:|")
  for (const hook of report.hooks) {
    if (hook.status !== "ok") lines.push(`| ${hook.file} | ${hook.status}: ${hook.note ?? ""} | |`)
    for (const { figure, value } of hook.figures)
      lines.push(
        `| ${hook.file} | ${figure === "ratio" ? `**${figure}**` : figure} | ${typeof value === "number" && !Number.isInteger(value) ? value.toFixed(2) : String(value)} |`,
      )
  }
  for (const reason of report.skipped) lines.push("", `**Skipped:** ${reason}`)
  const uniqueNotes = [...new Set(notes)]
  if (uniqueNotes.length > 0) lines.push("", "## Notes", "", ...uniqueNotes.map((note) => `- ${note}`))
  for (const bench of report.benches)
    lines.push("", `## ${bench.name} (\`${bench.command}\`)`, "", "```", bench.output.trim(), "```")
  return `${lines.join("\n")}\n`
}

/**
 * Where each answer's CPU went, for the loads of 64 connections against their first ceiling:
 * under such a load the machine is busy, so its busy CPU per answer bounds the rate (2 CPUs ÷ it),
 * and a ratio cannot exceed ceiling machine µs ÷ service machine µs.
 */
/** The start-up and memory table: RSS and V8 heap in use, idle and after the loads, against issue 27's targets. */
const memorySection = (all: ReadonlyArray<DatabaseRuns>): ReadonlyArray<string> => {
  const lines: Array<string> = [
    "",
    "## Service start-up and memory",
    "",
    `Started as \`${[...Object.entries(serviceStart.env).map(([name, value]) => `${name}=${value}`), "node", ...serviceNodeFlags, "src/main.ts"].join(" ")}\` (\`pnpm start\`). RSS from /proc, V8 heap in use from the service's \`GET /metrics\`, idle 1 s after start and right after the loads. Targets (issue 27): PostgreSQL RSS idle <= ${memoryTargets.PostgreSQL.idle} MB, after load <= ${memoryTargets.PostgreSQL.loaded} MB; PGlite <= ${memoryTargets.PGlite.idle} MB and <= ${memoryTargets.PGlite.loaded} MB.`,
    "",
    "| db | first start (new database) | restarts (median) | RSS idle (median) | RSS after load (median) | heap used idle | heap used after load | RSS targets |",
    "|---|---:|---:|---:|---:|---:|---:|---|",
  ]
  for (const runs of all) {
    const [first, ...rest] = runs.starts
    const mb = (values: ReadonlyArray<number | undefined>) => {
      const known = values.filter((v): v is number => v !== undefined)
      return known.length === 0 ? "-" : `${median(known)} MB`
    }
    const medianOf = (values: ReadonlyArray<number | undefined>) => {
      const known = values.filter((v): v is number => v !== undefined)
      return known.length === 0 ? undefined : median(known)
    }
    const target = memoryTargets[runs.database]
    const idle = medianOf(runs.starts.map((s) => s.idleRssMb))
    const loaded = medianOf(runs.starts.map((s) => s.loadedRssMb))
    const verdict =
      idle === undefined || loaded === undefined
        ? "-"
        : idle <= target.idle && loaded <= target.loaded
          ? "met"
          : `NOT met (idle ${idle <= target.idle ? "met" : "over"}, after load ${loaded <= target.loaded ? "met" : "over"})`
    lines.push(
      `| ${runs.database} | ${first === undefined ? "-" : `${number(first.startupMillis)} ms`} | ${rest.length === 0 ? "-" : `${number(median(rest.map((s) => s.startupMillis)))} ms`} | ${mb(runs.starts.map((s) => s.idleRssMb))} | ${mb(runs.starts.map((s) => s.loadedRssMb))} | ${mb(runs.starts.map((s) => s.idleHeapMb))} | ${mb(runs.starts.map((s) => s.loadedHeapMb))} | ${verdict} |`,
    )
  }
  return lines
}

/** Issue 27: the write scenario on 1, 2 and 3 instances, ratios to one instance. */
const instancesSection = (runs: ReadonlyArray<DatabaseRuns>): ReadonlyArray<string> => {
  const measured = runs.filter((r) => r.instances.some((figures) => figures.length > 0))
  if (measured.length === 0) return []
  const lines = [
    "",
    "## Several instances (issue 27): POST /Company/Create, 64 connections, one PostgreSQL",
    "",
    `The connections spread evenly over 1, 2 and 3 instances of the service (each started afresh), one load process; medians of ${rounds} round(s). **On a machine of ${cpus().length} cores this measures contention**: the instances, PostgreSQL and the load generator share the same CPUs, so more instances cannot answer more; the ratio says what running several instances costs there (coordination through PostgreSQL, heartbeats, workers polling), not how instances scale on machines of their own.`,
    "",
    "| db | instances | req/s | ratio to 1 instance | p50 | p99 | non-2xx + errors | service CPU µs/answer (all instances) | machine CPU µs/answer |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ]
  for (const r of measured) {
    const one = r.instances[0]!.length === 0 ? undefined : medianFigures(r.instances[0]!)
    instanceCounts.forEach((count, i) => {
      const figures = r.instances[i]!
      if (figures.length === 0) return
      const m = medianFigures(figures)
      const errors = (m.non2xx ?? 0) + (m.errors ?? 0) + (m.timeouts ?? 0)
      lines.push(
        `| ${r.database} | ${count} | ${number(m.requestsPerSecond)} | ${one === undefined ? "-" : ratioText(m.requestsPerSecond / one.requestsPerSecond)} | ${ms(m.p50)} | ${ms(m.p99)} | ${number(errors)} | ${m.cpuMicrosPerAnswer === undefined ? "-" : number(m.cpuMicrosPerAnswer.server)} | ${m.cpuMicrosPerAnswer === undefined ? "-" : number(m.cpuMicrosPerAnswer.machine)} |`,
      )
    })
  }
  return lines
}

const cpuSection = (rows: ReadonlyArray<Row>): ReadonlyArray<string> => {
  const shown = rows.filter(
    (row) =>
      row.connections === 64 &&
      row.service.cpuMicrosPerAnswer !== undefined &&
      row.ceilingFigures.cpuMicrosPerAnswer !== undefined &&
      scenarios.find((s) => s.name === row.scenario)?.ceilings[0] === row.ceiling,
  )
  if (shown.length === 0) return []
  const parts = (cpu: CpuPerAnswer) =>
    `${number(cpu.server)} | ${number(cpu.postgres)} | ${number(cpu.loadGenerator)} | ${number(cpu.machine)}`
  return [
    "",
    "## CPU per answer (µs, medians across rounds, 64 connections)",
    "",
    "Read from /proc around each load by the load generator: the answering process (service or ceiling server, " +
      "all its threads), every postgres process, the load generator, and the whole machine's busy time " +
      "(all CPUs). A load that keeps the machine busy is bounded by its machine CPU per answer, so " +
      "`bound` = ceiling machine ÷ service machine is about the ratio the service can reach here while each answer " +
      "costs what it costs; a target above it needs less work per answer, not less waiting.",
    "",
    "| db | scenario | service: server | postgres | load | machine | ceiling: server | postgres | load | machine | bound | ratio |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...shown.map((row) => {
      const service = row.service.cpuMicrosPerAnswer!
      const ceiling = row.ceilingFigures.cpuMicrosPerAnswer!
      return `| ${row.database} | ${row.scenario} | ${parts(service)} | ${parts(ceiling)} | ${ratioText(ceiling.machine / Math.max(1, service.machine))} | ${ratioText(row.ratio)} |`
    }),
  ]
}

/**
 * What each target leaves the service process, in µs of CPU per answer (PostgreSQL, 64
 * connections): at the target ratio on a busy machine an answer may cost the machine at most
 * ceiling machine ÷ target; even if PostgreSQL and the load generator cost the service's answers
 * no more than the ceiling's, the service process gets at most the rest. A service above its
 * budget cannot meet the target here by waiting less: only by working less per answer.
 */
const budgetSection = (rows: ReadonlyArray<Row>): ReadonlyArray<string> => {
  const lines: Array<string> = []
  for (const target of targets) {
    const ceiling = target.ceiling ?? scenarios.find((s) => s.name === target.scenario)?.ceilings[0]
    const row = rows.find(
      (r) =>
        r.database === "PostgreSQL" && r.connections === 64 && r.scenario === target.scenario && r.ceiling === ceiling,
    )
    const service = row?.service.cpuMicrosPerAnswer
    const limit = row?.ceilingFigures.cpuMicrosPerAnswer
    if (row === undefined || service === undefined || limit === undefined) continue
    const machine = limit.machine / target.ratio
    const budget = machine - limit.postgres - limit.loadGenerator
    lines.push(
      `| ${target.scenario} | ${row.ceilingName} | ${target.ratio}x | ${number(machine)} | ${number(budget)} | ${number(service.server)} | ${budget <= 0 ? "none left" : ratioText(service.server / budget)} |`,
    )
  }
  if (lines.length === 0) return []
  return [
    "",
    "## What the targets leave the service (µs of CPU per answer, PostgreSQL, 64 connections)",
    "",
    "At a target ratio on a busy machine an answer may cost the machine at most ceiling machine ÷ target; " +
      "even if PostgreSQL and the load generator cost the service's answers no more than the ceiling's, the " +
      "service process may spend at most the rest (`budget`). `over` = the service's own CPU per answer ÷ its " +
      "budget: above 1, the target needs less work per answer, not less waiting.",
    "",
    "| scenario | ceiling | target | machine µs at the target | service budget | service now | over |",
    "|---|---|---:|---:|---:|---:|---:|",
    ...lines,
  ]
}

// ---------------------------------------------------------------------------------------------
// main

/** CPU time (user + system) of the given processes, in ms, from /proc (0 where unreadable). */
const cpuMillis = (pids: ReadonlyArray<number>): number =>
  pids.reduce((sum, pid) => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
        .replace(/^.*\) /, "")
        .split(" ")
      return sum + ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
    } catch {
      return sum
    }
  }, 0)
const postgresPids = (): ReadonlyArray<number> =>
  readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "postgres"
      } catch {
        return false
      }
    })

/** --profile[=create|cancel|status|transaction]: one scenario x64 against the service under `node --cpu-prof`, on PostgreSQL. */
const profileRun = async (target: Target) => {
  const profileDir = join(resultsDir, "profile")
  rmSync(profileDir, { recursive: true, force: true })
  const scenario = profiledScenario()
  const fixture = await prepareFixture(target)
  const service = await startService(target, measureOnly ? undefined : profileDir)
  let headline = ""
  try {
    const [cancellable] =
      scenario.cancellable === undefined ? [[]] : await createCancellable(service.base, fixture, [scenario.cancellable])
    // A read's load first, unmeasured, so that the measured one runs on warmed (JIT-compiled) code.
    if (scenario.cancellable === undefined && process.env.BENCH_WARM_UP !== "off")
      await loadAll(service.base, [scenario.spec(fixture, [])])
    // Transactions the database counted (each autocommit statement is one): statements per answer.
    const transactions = () => {
      if (target.kind !== "postgres") return Number.NaN
      const read = psql(
        target.url,
        "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()",
      )
      return read.ok ? Number(read.stdout) : Number.NaN
    }
    // The service's garbage collections (its /metrics): how much a request allocates, whatever the machine's load.
    const collections = async () => {
      try {
        const text = await (await fetch(`${service.base}/metrics`, { signal: AbortSignal.timeout(5000) })).text()
        const of = (what: string, kind: string) =>
          Number(new RegExp(`^nodejs_gc_duration_seconds_${what}\\{kind="${kind}"\\} (\\S+)`, "m").exec(text)?.[1] ?? 0)
        return {
          minor: of("count", "minor"),
          major: of("count", "major"),
          seconds: of("sum", "minor") + of("sum", "major") + of("sum", "incremental"),
        }
      } catch {
        return { minor: Number.NaN, major: Number.NaN, seconds: Number.NaN }
      }
    }
    await sleep(1500)
    // The idle service (its workers only), for as long as the load will run: what it spends without requests.
    const idle = { gc: await collections(), cpu: cpuMillis([service.child.pid!]), transactions: transactions() }
    await sleep(seconds * 1000)
    const idleGc = await collections()
    console.error(
      `idle, per second: service CPU ${((cpuMillis([service.child.pid!]) - idle.cpu) / seconds).toFixed(1)} ms, ${((idleGc.minor - idle.gc.minor) / seconds).toFixed(2)} minor GCs, ${((transactions() - idle.transactions - 1) / seconds).toFixed(1)} transactions`,
    )
    const gcBefore = await collections()
    const transactionsBefore = transactions()
    const before = { service: cpuMillis([service.child.pid!]), postgres: cpuMillis(postgresPids()) }
    const figures = await loadAll(service.base, [scenario.spec(fixture, cancellable!)])
    const ok = figures[0]!.ok ?? 0
    await sleep(1500)
    // The two reads of pg_stat_database are transactions too.
    console.error(
      `transactions per answer: ${((transactions() - transactionsBefore - 1) / Math.max(1, ok)).toFixed(2)}`,
    )
    const gcAfter = await collections()
    console.error(
      `GC per 1000 answers: ${((1000 * (gcAfter.minor - gcBefore.minor)) / Math.max(1, ok)).toFixed(2)} minor, ${((1000 * (gcAfter.major - gcBefore.major)) / Math.max(1, ok)).toFixed(2)} major; GC time per answer ${((1e6 * (gcAfter.seconds - gcBefore.seconds)) / Math.max(1, ok)).toFixed(1)} µs`,
    )
    const perRequest = (now: number, then: number) => `${((1000 * (now - then)) / Math.max(1, ok)).toFixed(0)} µs`
    headline = `${scenario.name} x64: ${number(figures[0]!.requestsPerSecond)} req/s; CPU per request: service ${perRequest(cpuMillis([service.child.pid!]), before.service)}, PostgreSQL ${perRequest(cpuMillis(postgresPids()), before.postgres)}`
    console.error(headline)
  } finally {
    await stopChild(service.child)
  }
  if (measureOnly) return
  const summary = summariseProfile(profileDir)
  console.log(summary)
  // The summary, kept beside the results (the .cpuprofile itself is large: open it in DevTools).
  const which = process.argv.find((arg) => /^--profile=/.test(arg))?.replace(/^--profile=/, "") ?? "create"
  writeFileSync(
    join(resultsDir, `profile-${which}.md`),
    `# CPU profile of the service: ${scenario.name}, 64 connections, PostgreSQL\n\n` +
      `\`node bench/run.ts --profile=${which}\` on ${new Date().toISOString()} (Node ${process.version}, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} when written; the service under \`node --cpu-prof\` from its start to its stop: start-up included, ${seconds} s of load). Self times are shares of the sampled time: compare shares, not the req/s of a shared machine.\n\n` +
      `${headline}\n\n${summary}\n`,
  )
}

/** --memory: one round of the service's loads on each database (no ceilings); prints the memory table. */
const memoryRun = async (targetList: ReadonlyArray<Target>) => {
  if (heapSnapshotDir !== undefined) mkdirSync(heapSnapshotDir, { recursive: true })
  const runs: Array<DatabaseRuns> = []
  for (const target of targetList) {
    if (memoryDatabase !== undefined && memoryDatabase !== target.name) continue
    const measured = emptyRuns(target.name)
    runs.push(measured)
    await benchDatabase(target, measured)
  }
  console.log(
    [
      `\`node bench/run.ts --memory\` on ${new Date().toISOString()} (Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)}): one round, ${seconds} s loads.`,
      ...memorySection(runs),
      "",
      "| db | scenario | conns | req/s | service CPU µs/answer |",
      "|---|---|---:|---:|---:|",
      ...runs.flatMap((database) =>
        scenarios.flatMap((scenario, i) =>
          (database.service[i] ?? []).map(
            (f) =>
              `| ${database.database} | ${scenario.name} | ${scenario.connections} | ${number(f.requestsPerSecond)} | ${f.cpuMicrosPerAnswer?.server ?? "-"} |`,
          ),
        ),
      ),
      ...(notes.length === 0 ? [] : ["", ...new Set(notes)]),
    ].join("\n"),
  )
}

const main = async () => {
  const startedAt = Date.now()
  mkdirSync(resultsDir, { recursive: true })
  const skipped: Array<string> = []
  const database = freshDatabase()
  const postgres = "url" in database ? database : undefined
  if (postgres === undefined) {
    const message = `PostgreSQL at ${adminUrl.replace(/:[^:@/]*@/, ":***@")} unavailable (${"problem" in database ? database.problem : ""})`
    console.error(`\n${"!".repeat(80)}\n!!! ${message}: SKIPPING the PostgreSQL runs\n${"!".repeat(80)}`)
    skipped.push(message)
  }
  const dataDir = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), `partnerpay-bench-${name}-`))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    return dir
  }
  const targetList: Array<Target> = [
    ...(postgres === undefined
      ? []
      : [{ name: "PostgreSQL" as const, kind: "postgres" as const, dataDir: dataDir("pg"), url: postgres.url }]),
    { name: "PGlite", kind: "pglite", dataDir: dataDir("pglite") },
  ]
  if (profile) {
    const target = targetList.find((t) => t.kind === "postgres")
    if (target === undefined) throw new Error("--profile needs the PostgreSQL server")
    return profileRun(target)
  }
  if (memoryOnly) return memoryRun(targetList)
  if (readsOnly) {
    const target = targetList.find((t) => t.kind === "postgres")
    if (target === undefined) throw new Error("--reads needs the PostgreSQL server")
    const measured = emptyRuns(target.name)
    await benchDatabase(target, measured)
    const rows = rowsOf(measured)
    for (const row of rows)
      console.log(
        `${row.scenario} x${row.connections} vs ${row.ceilingName}: ${number(row.service.requestsPerSecond)} vs ${number(row.ceilingFigures.requestsPerSecond)} req/s, ratio ${row.ratio.toFixed(2)}`,
      )
    console.log(
      JSON.stringify({
        at: new Date().toISOString(),
        load: loadavg()[0],
        rows: rows.map((r) => ({
          scenario: r.scenario,
          ceiling: r.ceiling,
          service: r.service.requestsPerSecond,
          ceilingRps: r.ceilingFigures.requestsPerSecond,
          ratio: r.ratio,
        })),
      }),
    )
    return
  }
  // PostgreSQL first: it holds the issue's targets.
  const runs: Array<DatabaseRuns> = []
  for (const target of targetList) {
    const measured = emptyRuns(target.name)
    runs.push(measured)
    try {
      await benchDatabase(target, measured)
      await benchInstances(target, measured)
    } catch (error) {
      const message = `${target.name}: the run failed, only the rounds before the failure are reported: ${error instanceof Error ? error.message : String(error)}`
      console.error(`\n!!! ${message}`)
      skipped.push(message.slice(0, 2000))
      process.exitCode = 1
    }
  }
  const benches = await packageBenches(postgres?.url)
  const hooks = [await runHook("startup.ts", postgres?.url), await runHook("webhooks.ts", postgres?.url)]
  const rows = runs.flatMap(rowsOf)
  const eventStore = parseEventStore(benches.find((b) => b.name === "adapters-pg: event store")?.output ?? "")
  const targetsMet = targetResults(
    rows,
    eventStore,
    runs.map((r) => r.database),
  )
  const report = markdown({ rows, targets: targetsMet, runs, eventStore, benches, hooks, skipped })
  writeFileSync(join(resultsDir, "latest.md"), report)
  writeFileSync(
    join(resultsDir, "latest.json"),
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        node: process.version,
        quick,
        rounds,
        secondsPerLoad: seconds,
        servicePoolSize,
        targets: targetsMet,
        rows,
        databases: runs,
        eventStore,
        hooks,
        packageBenches: benches,
        notes: [...new Set(notes)],
        skipped,
        totalSeconds: (Date.now() - startedAt) / 1000,
      },
      null,
      2,
    )}\n`,
  )
  writeFileSync(
    join(resultsDir, "latest.svg"),
    chart({ at: new Date().toISOString(), node: process.version, quick, rounds, rows, eventStore }),
  )
  console.log(`\n${report}`)
  console.log(
    `(${((Date.now() - startedAt) / 1000).toFixed(0)} s in total; written to bench/results/latest.md, latest.json and latest.svg)`,
  )
}

try {
  await main()
} catch (error) {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error))
  process.exitCode = 1
} finally {
  cleanUp()
}
