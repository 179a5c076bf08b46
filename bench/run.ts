/**
 * End-to-end benchmarks of the running service (`pnpm bench`, `pnpm bench --quick`).
 *
 * Starts the real service process (`node packages/app/src/main.ts`, LOG_LEVEL=Warn,
 * PARTNERPAY_RATE_LIMITING=off so that the figures are the service's, not the per-caller
 * rate limiter's; the limiter is not benchmarked here) once per database, for all
 * scenarios: on the embedded PGlite database in a temporary directory, and on a fresh
 * database of the PostgreSQL server at DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/test; created and dropped here). Against each,
 * autocannon runs in its own child process (bench/load.ts) and measures:
 *
 *   write path  POST /Company/Create (unique companyReferenceId per request) and
 *               PUT /Payment/{id}/Cancel (round-robin over pre-created requests;
 *               repeats are idempotent 200s) under 1, 16 and 64 connections, beside
 *               the durable-write ceiling: single-row INSERT transactions on the same
 *               database with the same pool size (bench/baselines.ts insert);
 *   read path   GET /company/status and GET /Transaction/{id} under 64 connections,
 *               beside a bare node:http server answering a fixed JSON body
 *               (bench/baselines.ts http; measured once per run, shared by both databases);
 *   tokens      POST /auth/token under 4 connections (scrypt-bound), beside the same bare server;
 *   memory      the service's VmRSS after start and at the end of the load.
 *
 * Then it runs the two package micro-benchmarks (event store append/read, rehydrate)
 * as child processes and folds their output into the report. Each figure is the
 * median of 3 runs of 5 s (--quick: 1 run of 2 s, fewer connection levels, shorter
 * package benches; under 2 minutes). The scenarios run one after the other in one load
 * process, and the INSERT baselines at every level in one process per database.
 *
 * Output: a Markdown table on stdout, bench/results/latest.md and latest.json.
 * Flags: --quick; --profile (only the heaviest write scenario on PostgreSQL, with the
 * service under `node --cpu-prof`; prints the top frames by self time).
 *
 * Bounded: every load is bounded in time and count, every child has a kill timer,
 * the whole run has a deadline, and every child process is killed on exit, on error
 * and on SIGINT/SIGTERM. Only 127.0.0.1 is contacted.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const resultsDir = join(root, "bench", "results")
const quick = process.argv.includes("--quick")
const profile = process.argv.includes("--profile")
const runs = quick || profile ? 1 : 3
const seconds = quick ? 2 : profile ? 10 : 5
const servicePoolSize = 10 // the service's PostgreSQL pool (PgDatabase.layerPostgres default)
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const clientId = "bench-client"
const clientSecret = "bench-client-secret-0123456789"
const overallDeadlineMillis = (quick ? 6 : profile ? 5 : 30) * 60_000

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
// PostgreSQL databases (psql, synchronous so that the exit handler can drop them)

const psql = (statement: string): { ok: boolean; message: string } => {
  const result = spawnSync("psql", [adminUrl, "-v", "ON_ERROR_STOP=1", "-qAtc", statement], {
    encoding: "utf8",
    timeout: 15_000,
    env: { ...process.env, PGCONNECT_TIMEOUT: "5" },
  })
  return {
    ok: result.status === 0,
    message: (result.stderr || result.error?.message || "").trim().split("\n")[0] ?? "",
  }
}

const freshDatabase = (): string | { problem: string } => {
  const host = new URL(adminUrl).hostname
  if (host !== "127.0.0.1" && host !== "localhost") return { problem: `DATABASE_URL host ${host} is not local` }
  const name = `bench_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`
  const created = psql(`CREATE DATABASE ${name}`)
  if (!created.ok) return { problem: created.message }
  cleanups.push(() => {
    psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  })
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
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

interface Fixture {
  readonly token: string
  readonly companyId: string
  readonly transferId: string
  readonly cancellable: ReadonlyArray<string>
}

/** A company, a customer with a linked account, one accepted payment (its transfer) and payment requests to cancel. */
const prepare = async (base: string, cancellableCount: number): Promise<Fixture> => {
  const token = (await call(base, "POST", "/auth/token", undefined, { ClientId: clientId, ClientSecret: clientSecret }))
    .AccessToken as string
  const companyId = (await call(base, "POST", "/Company/Create", token, companyBody("bench-fixture")))
    .companyId as string
  const phoneNumber = "+14155550123"
  await call(base, "POST", "/Login/SendOtp", token, { phoneNumber })
  const login = await call(base, "PUT", "/Login/CheckOtp", token, { phoneNumber, code: "123456" })
  const customerToken = login.accessToken as string
  const payerRegistrationId = login.registrationId as string
  const kyc = await call(base, "POST", "/Verification/StartKyc", customerToken, { deviceId: "bench-device" })
  const link = await call(base, "PUT", "/Account/Link", customerToken, {
    tokenId: kyc.tokenId,
    publicToken: "public-sandbox-bench",
    linkAccountsMetadata: { linkSessionId: "bench-link-session", institutionId: "ins_bench", accountIds: ["acc-1"] },
  })
  if (link.isOk !== true) throw new Error(`account link failed: ${JSON.stringify(link)}`)
  const accounts = (await call(base, "GET", "/Account/List", customerToken)).accounts as Array<{ accountId: string }>
  const dueDate = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10)
  const payment = (description: string) => ({
    companyId,
    payerRegistrationId,
    amount: { value: 10.5, currencyCode: "USD" },
    description,
    dueDate,
  })
  const paid = (await call(base, "POST", "/Payment/Create", token, payment("bench transfer")))
    .paymentRequestId as string
  await call(base, "POST", `/Transaction/PaymentRequest/${paid}/Accept`, customerToken, {
    bankAccountId: accounts[0]!.accountId,
    acceptDebitAuth: false,
    transferDescription: "bench",
  })
  const transferId = (await call(base, "GET", `/Payment/${paid}`, token)).transferId as string
  // Payment requests to cancel: bounded in count and time, 16 at a time.
  const cancellable: Array<string> = []
  const until = Date.now() + 60_000
  let issued = 0
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (issued < cancellableCount && Date.now() < until) {
        issued++
        const created = await call(base, "POST", "/Payment/Create", token, payment(`bench cancel ${issued}`))
        cancellable.push(created.paymentRequestId as string)
      }
    }),
  )
  return { token, companyId, transferId, cancellable }
}

// ---------------------------------------------------------------------------------------------
// measuring

interface Figures {
  /** 2xx answers per second. */
  readonly requestsPerSecond: number
  /** All answers per second, 429s included. */
  readonly answeredPerSecond?: number
  readonly rateLimited?: number
  readonly p50: number
  readonly p99: number
  readonly non2xx?: number
  readonly errors?: number
  readonly timeouts?: number
}

interface Row {
  readonly database: string
  readonly scenario: string
  readonly connections: number
  readonly service: Figures
  readonly baselineName: string
  readonly baseline: Figures
  /** service req/s ÷ baseline req/s */
  readonly ratio: number
  readonly runs: ReadonlyArray<Figures>
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}
const medianFigures = (all: ReadonlyArray<Figures>): Figures => ({
  requestsPerSecond: median(all.map((f) => f.requestsPerSecond)),
  p50: median(all.map((f) => f.p50)),
  p99: median(all.map((f) => f.p99)),
  answeredPerSecond: median(all.map((f) => f.answeredPerSecond ?? f.requestsPerSecond)),
  rateLimited: all.reduce((sum, f) => sum + (f.rateLimited ?? 0), 0),
  non2xx: all.reduce((sum, f) => sum + (f.non2xx ?? 0), 0),
  errors: all.reduce((sum, f) => sum + (f.errors ?? 0) + (f.timeouts ?? 0), 0),
})

interface LoadSpec {
  readonly method: string
  readonly paths: ReadonlyArray<string>
  readonly token?: string
  readonly body?: string
  readonly idReplacement?: boolean
}

/**
 * Runs the scenarios one after the other in one load-generator child (one process start-up
 * for all of them); resolves with their figures, in order.
 */
const loadAll = async (
  base: string,
  scenarios: ReadonlyArray<{ readonly connections: number; readonly spec: LoadSpec }>,
): Promise<ReadonlyArray<Figures>> => {
  // The scenarios (with every pre-created payment path) go through a file: as an argument they
  // can exceed the OS limit on argument size (E2BIG) in the full run.
  const specFile = join(mkdtempSync(join(tmpdir(), "partnerpay-load-")), "scenarios.json")
  writeFileSync(
    specFile,
    JSON.stringify(
      scenarios.map(({ connections, spec }) => ({
        url: base,
        connections,
        seconds,
        maxRequests: 2_000_000,
        method: spec.method,
        headers: {
          ...(spec.body === undefined ? {} : { "content-type": "application/json" }),
          ...(spec.token === undefined ? {} : { authorization: `Bearer ${spec.token}` }),
        },
        ...(spec.body === undefined ? {} : { body: spec.body }),
        idReplacement: spec.idReplacement ?? false,
        paths: spec.paths,
      })),
    ),
  )
  const output = await runNode([join(root, "bench", "load.ts"), specFile], {
    timeoutMillis: scenarios.length * (seconds * 1000 + 15_000) + 15_000,
  }).finally(() => rmSync(join(specFile, ".."), { recursive: true, force: true }))
  const figures = output
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Figures)
  if (figures.length !== scenarios.length)
    throw new Error(`bench/load.ts printed ${figures.length} results for ${scenarios.length} scenarios`)
  return figures
}

const repeat = async <A>(measure: () => Promise<A>): Promise<ReadonlyArray<A>> => {
  const all: Array<A> = []
  for (let i = 0; i < runs; i++) all.push(await measure())
  return all
}

/** The INSERT baseline at each connection level, one after the other in one child (the database opened once). */
const insertBaseline = async (
  target: { kind: "postgres"; url: string } | { kind: "pglite"; dataDir: string },
  connections: ReadonlyArray<number>,
): Promise<ReadonlyArray<Figures>> => {
  const output = await runNode(
    [
      join(root, "bench", "baselines.ts"),
      "insert",
      JSON.stringify({ ...target, poolSize: servicePoolSize, connections, seconds }),
    ],
    { timeoutMillis: connections.length * (seconds * 1000 + 10_000) + 60_000 },
  )
  const figures = output
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Figures)
  if (figures.length !== connections.length)
    throw new Error(`bench/baselines.ts printed ${figures.length} results for ${connections.length} levels`)
  return figures
}

/** The bare node:http baseline at each connection level, one after the other against one server. */
const httpBaselineOnce = async (connections: ReadonlyArray<number>): Promise<ReadonlyArray<Figures>> => {
  const server = await startNode([join(root, "bench", "baselines.ts"), "http"], {
    cwd: root,
    env: {},
    ready: /"port":(\d+)/,
    timeoutMillis: 15_000,
  })
  try {
    return await loadAll(
      `http://127.0.0.1:${server.match![1]}`,
      connections.map((c) => ({ connections: c, spec: { method: "GET", paths: ["/"] } })),
    )
  } finally {
    await stopChild(server.child, 2000)
  }
}

interface Scenario {
  readonly name: string
  readonly connections: number
  readonly baseline: "insert" | "http"
  readonly spec: (fixture: Fixture) => LoadSpec
}

const createCompany = (connections: number): Scenario => ({
  name: "POST /Company/Create",
  connections,
  baseline: "insert",
  spec: (f) => ({
    method: "POST",
    paths: ["/Company/Create"],
    token: f.token,
    body: JSON.stringify(companyBody("bench-[<id>]")),
    idReplacement: true,
  }),
})
const cancelPayment = (connections: number): Scenario => ({
  name: "PUT /Payment/{id}/Cancel",
  connections,
  baseline: "insert",
  spec: (f) => ({ method: "PUT", paths: f.cancellable.map((id) => `/Payment/${id}/Cancel`), token: f.token }),
})
const readScenarios: ReadonlyArray<Scenario> = [
  {
    name: "GET /company/status",
    connections: 64,
    baseline: "http",
    spec: (f) => ({ method: "GET", paths: [`/company/status?companyId=${f.companyId}`], token: f.token }),
  },
  {
    name: "GET /Transaction/{id}",
    connections: 64,
    baseline: "http",
    spec: (f) => ({ method: "GET", paths: [`/Transaction/${f.transferId}`], token: f.token }),
  },
  {
    name: "POST /auth/token",
    // Each token checks the client secret against its scrypt hash (CPU-bound, in libuv's pool of 4
    // threads): 64 connections would only queue, and in 2 s not one answer came back.
    connections: 4,
    baseline: "http",
    spec: () => ({
      method: "POST",
      paths: ["/auth/token"],
      body: JSON.stringify({ ClientId: clientId, ClientSecret: clientSecret }),
    }),
  },
]
const scenarios: ReadonlyArray<Scenario> = profile
  ? [createCompany(64)]
  : quick
    ? [createCompany(1), createCompany(64), cancelPayment(64), ...readScenarios]
    : [1, 16, 64].flatMap((c) => [createCompany(c), cancelPayment(c)]).concat(readScenarios)

const uniqueConnections = (kind: Scenario["baseline"]) => [
  ...new Set(scenarios.filter((s) => s.baseline === kind).map((s) => s.connections)),
]

/**
 * The bare node:http baseline does not depend on the database: measured once per run (after
 * the first service stopped), every level in one load process, shared by both databases' rows.
 */
let httpBaselineRuns: Promise<ReadonlyArray<ReadonlyArray<Figures>>> | undefined
const httpBaseline = async (connections: number): Promise<ReadonlyArray<Figures>> => {
  const levels = uniqueConnections("http")
  if (httpBaselineRuns === undefined) {
    console.error(`\n[baseline] bare node:http x${levels.join(", x")}`)
    httpBaselineRuns = repeat(() => httpBaselineOnce(levels))
  }
  return (await httpBaselineRuns).map((run) => run[levels.indexOf(connections)]!)
}

interface ServiceReport {
  readonly database: string
  readonly startupMillis: number
  readonly idleRssMb: number | undefined
  readonly loadedRssMb: number | undefined
  readonly cancellable: number
  readonly rows: ReadonlyArray<Row>
}

const benchService = async (database: "PGlite" | "PostgreSQL", databaseUrl?: string): Promise<ServiceReport> => {
  const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-bench-"))
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }))
  const started = Date.now()
  console.error(`\n[${database}] starting the service...`)
  const profileDir = join(resultsDir, "profile")
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const service = await startNode([...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []), "src/main.ts"], {
    cwd: join(root, "packages", "app"),
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      PARTNERPAY_DATA_DIR: dataDir,
      PARTNERPAY_SANDBOX_CLIENT_ID: clientId,
      PARTNERPAY_SANDBOX_CLIENT_SECRET: clientSecret,
      // Keep the sandbox workers from deciding during the load (they still poll).
      PARTNERPAY_KYB_DELAY_MS: "3600000",
      PARTNERPAY_SETTLEMENT_DELAY_MS: "3600000",
      LOG_LEVEL: "Warn",
      // Measure the service, not the per-caller rate limiter (which would answer 429 at 100/s).
      PARTNERPAY_RATE_LIMITING: "off",
      ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
    },
    timeoutMillis: 120_000,
  })
  await waitForHttp(base, service.child, service.output, 120_000)
  const startupMillis = Date.now() - started
  const pid = service.child.pid
  await new Promise((done) => setTimeout(done, 1000))
  const idleRssMb = rssMegabytes(pid)
  console.error(`[${database}] listening at ${base} after ${startupMillis} ms, idle RSS ${idleRssMb} MB; preparing...`)
  const fixture = await prepare(base, profile ? 16 : quick ? 128 : 2000)
  const specs = scenarios.map((scenario) => ({ connections: scenario.connections, spec: scenario.spec(fixture) }))
  console.error(
    `[${database}] ${scenarios.length} scenarios of ${seconds} s, one after the other in one load process` +
      (runs > 1 ? `, ${runs} times` : ""),
  )
  const batches = await repeat(() => loadAll(base, specs))
  const measured = scenarios.map((scenario, i) => ({ scenario, all: batches.map((batch) => batch[i]!) }))
  const loadedRssMb = rssMegabytes(pid)
  const stopping = Date.now()
  await stopChild(service.child)
  console.error(`[${database}] service stopped in ${Date.now() - stopping} ms`)
  if (profile) return { database, startupMillis, idleRssMb, loadedRssMb, cancellable: 0, rows: [] }

  // Baselines after the service stopped (PGlite allows one process per data directory).
  const insertLevels = uniqueConnections("insert")
  console.error(`[${database}] baseline INSERT x${insertLevels.join(", x")}`)
  const insertRuns = await repeat(() =>
    insertBaseline(
      databaseUrl === undefined
        ? { kind: "pglite", dataDir: join(dataDir, "pglite") }
        : { kind: "postgres", url: databaseUrl },
      insertLevels,
    ),
  )
  const baselineFor = async (kind: "insert" | "http", connections: number) =>
    medianFigures(
      kind === "insert"
        ? insertRuns.map((run) => run[insertLevels.indexOf(connections)]!)
        : await httpBaseline(connections),
    )
  const rows: Array<Row> = []
  for (const { scenario, all } of measured) {
    const service = medianFigures(all)
    const baseline = await baselineFor(scenario.baseline, scenario.connections)
    rows.push({
      database,
      scenario: scenario.name,
      connections: scenario.connections,
      service,
      baselineName:
        scenario.baseline === "insert"
          ? `INSERT tx (${databaseUrl === undefined ? "PGlite direct" : `pool ${servicePoolSize}`})`
          : "bare node:http",
      baseline,
      ratio: service.requestsPerSecond / baseline.requestsPerSecond,
      runs: all,
    })
  }
  return { database, startupMillis, idleRssMb, loadedRssMb, cancellable: fixture.cancellable.length, rows }
}

// ---------------------------------------------------------------------------------------------
// the package micro-benchmarks

interface PackageBench {
  readonly name: string
  readonly command: string
  readonly output: string
}

const packageBenches = async (databaseUrl: string | undefined): Promise<ReadonlyArray<PackageBench>> => {
  const out: Array<PackageBench> = []
  const rehydrateArgs = ["bench/rehydrate.ts", ...(quick ? ["50000"] : [])]
  console.error(`\n[packages] node ${rehydrateArgs.join(" ")}`)
  try {
    out.push({
      name: "domain: rehydrate",
      command: `node ${rehydrateArgs.join(" ")}`,
      output: await runNode(rehydrateArgs, { cwd: join(root, "packages", "domain"), timeoutMillis: 180_000 }),
    })
  } catch (error) {
    out.push({ name: "domain: rehydrate", command: rehydrateArgs.join(" "), output: `FAILED: ${String(error)}` })
  }
  if (databaseUrl === undefined) {
    out.push({ name: "adapters-pg: eventstore", command: "-", output: "skipped: no PostgreSQL server" })
    return out
  }
  console.error("[packages] node bench/eventstore.ts")
  try {
    out.push({
      name: "adapters-pg: event store",
      command: `node bench/eventstore.ts${quick ? " (BENCH_SECONDS_PER_RUN=0.25)" : ""}`,
      output: await runNode(["bench/eventstore.ts"], {
        cwd: join(root, "packages", "adapters-pg"),
        env: { DATABASE_URL: databaseUrl, ...(quick ? { BENCH_SECONDS_PER_RUN: "0.25" } : {}) },
        timeoutMillis: 300_000,
      }),
    })
  } catch (error) {
    out.push({ name: "adapters-pg: event store", command: "bench/eventstore.ts", output: `FAILED: ${String(error)}` })
  }
  return out
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
    const where = frame.url.replace(/^file:\/\//, "").replace(root, "")
    const key = `${frame.functionName || "(anonymous)"} ${where}:${frame.lineNumber + 1}`
    const delta = cpu.timeDeltas[i] ?? 0
    self.set(key, (self.get(key) ?? 0) + delta)
    total += delta
  })
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25)
  return [
    `profile ${join(dir, file)} (${(total / 1e6).toFixed(1)} s sampled), top frames by self time:`,
    ...top.map(([key, micros]) => `${((100 * micros) / total).toFixed(1).padStart(5)}%  ${key}`),
  ].join("\n")
}

// ---------------------------------------------------------------------------------------------
// report

const number = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "-")
const ms = (n: number) => (Number.isFinite(n) ? `${n < 10 ? n.toFixed(1) : Math.round(n)} ms` : "-")

const markdown = (
  services: ReadonlyArray<ServiceReport>,
  benches: ReadonlyArray<PackageBench>,
  skipped: ReadonlyArray<string>,
) => {
  const lines: Array<string> = [
    `# partnerpay benchmarks (${quick ? "quick: 1 run of 2 s" : `median of ${runs} runs of ${seconds} s`})`,
    "",
    `${new Date().toISOString()}, Node ${process.version}, ${process.platform}/${process.arch}. ` +
      "Service: `node packages/app/src/main.ts`, LOG_LEVEL=Warn; load: autocannon in a separate process. " +
      "PARTNERPAY_RATE_LIMITING=off: the rows measure the service, not the per-caller rate limiter (not benchmarked here). " +
      "ratio = service req/s ÷ baseline req/s measured in the same run.",
    "",
    "req/s counts 2xx answers; answers/s counts every answer, 429s included; p50/p99 cover every answer. " +
      "The 429 column should read 0 (limiter off); a non-zero count means a limiter capped the scenario.",
    "",
    "| database | scenario | connections | req/s | p50 | p99 | baseline | baseline req/s | baseline p50 | ratio | answers/s | 429 | other non-2xx/errors |",
    "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|",
  ]
  for (const service of services) {
    for (const row of service.rows) {
      lines.push(
        `| ${row.database} | ${row.scenario} | ${row.connections} | ${number(row.service.requestsPerSecond)} | ${ms(row.service.p50)} | ${ms(row.service.p99)} | ${row.baselineName} | ${number(row.baseline.requestsPerSecond)} | ${ms(row.baseline.p50)} | ${row.ratio.toFixed(2)} | ${number(row.service.answeredPerSecond ?? Number.NaN)} | ${row.service.rateLimited ?? 0} | ${(row.service.non2xx ?? 0) - (row.service.rateLimited ?? 0) + (row.service.errors ?? 0)} |`,
      )
    }
  }
  lines.push("", "| database | start-up | RSS idle | RSS after load | payment requests cancelled round-robin |")
  lines.push("|---|---:|---:|---:|---:|")
  for (const service of services) {
    lines.push(
      `| ${service.database} | ${number(service.startupMillis)} ms | ${service.idleRssMb ?? "-"} MB | ${service.loadedRssMb ?? "-"} MB | ${service.cancellable} |`,
    )
  }
  for (const reason of skipped) lines.push("", `**Skipped:** ${reason}`)
  for (const bench of benches)
    lines.push("", `## ${bench.name} (\`${bench.command}\`)`, "", "```", bench.output.trim(), "```")
  return `${lines.join("\n")}\n`
}

// ---------------------------------------------------------------------------------------------
// main

const main = async () => {
  const startedAt = Date.now()
  mkdirSync(resultsDir, { recursive: true })
  const services: Array<ServiceReport> = []
  const skipped: Array<string> = []
  const database = freshDatabase()
  const databaseUrl = typeof database === "string" ? database : undefined
  if (typeof database !== "string") {
    const message = `PostgreSQL at ${adminUrl.replace(/:[^:@/]*@/, ":***@")} unavailable (${database.problem})`
    console.error(`\n${"!".repeat(80)}\n!!! ${message}: SKIPPING the PostgreSQL runs\n${"!".repeat(80)}`)
    skipped.push(message)
  }
  if (profile) {
    if (databaseUrl === undefined) throw new Error("--profile needs the PostgreSQL server")
    rmSync(join(resultsDir, "profile"), { recursive: true, force: true })
    await benchService("PostgreSQL", databaseUrl)
    console.log(summariseProfile(join(resultsDir, "profile")))
    return
  }
  services.push(await benchService("PGlite"))
  if (databaseUrl !== undefined) services.push(await benchService("PostgreSQL", databaseUrl))
  const benches = await packageBenches(databaseUrl)
  const report = markdown(services, benches, skipped)
  writeFileSync(join(resultsDir, "latest.md"), report)
  writeFileSync(
    join(resultsDir, "latest.json"),
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        node: process.version,
        quick,
        runs,
        secondsPerRun: seconds,
        servicePoolSize,
        services,
        packageBenches: benches,
        skipped,
        totalSeconds: (Date.now() - startedAt) / 1000,
      },
      null,
      2,
    )}\n`,
  )
  console.log(`\n${report}`)
  console.log(
    `(${((Date.now() - startedAt) / 1000).toFixed(0)} s in total; written to bench/results/latest.md and latest.json)`,
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
