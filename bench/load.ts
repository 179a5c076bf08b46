/**
 * Load generator child process (started by bench/run.ts, never by hand):
 * runs autocannon scenarios against 127.0.0.1 and prints one JSON line
 * of figures per scenario. Running it in its own process keeps the load generator's
 * CPU out of the service's and the orchestrator's event loops.
 *
 * Argument: a JSON object, or a JSON array of them (run one after the other, one
 * output line each, in order; saves a process start-up per scenario)
 *   { url, connections, seconds, maxRequests, method, headers, body?, idReplacement?, paths: [string] }
 * `paths` are used round-robin (e.g. one payment request id per request).
 * `urls` (optional, instead of `url`): several instances of the service, loaded at once, the
 * connections split evenly between them (one autocannon per instance, in this process); the
 * figures are their sums (latencies: the slowest instance's), `serverPids` their processes.
 * Bounded: autocannon stops after `seconds` or `maxRequests`, whichever comes first; the
 * printed `seconds` is how long it actually ran, and `requestsPerSecond` = 2xx ÷ that.
 *
 * CPU per 2xx answer (µs), read from /proc around each load (Linux; left out elsewhere): `server`
 * (the process of `serverPid`, every thread), `postgres` (every process named postgres: the
 * backends, WAL writer and checkpointer), `loadGenerator` (this process) and `machine` (every CPU
 * of the machine, busy time). A load that keeps the machine busy is bounded by `machine`: two loads
 * of the same request compare by it, and its parts say who spent it.
 */
import { readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"

interface LoadSpec {
  readonly url: string
  readonly connections: number
  readonly seconds: number
  readonly maxRequests: number
  readonly method: string
  readonly headers: Record<string, string>
  readonly body?: string
  readonly idReplacement?: boolean
  readonly paths: ReadonlyArray<string>
  /** The process serving the load (the service or a ceiling server), for its CPU time. */
  readonly serverPid?: number
  /** Several instances (see the module comment): overrides `url`. */
  readonly urls?: ReadonlyArray<string>
  readonly serverPids?: ReadonlyArray<number>
}

interface Histogram {
  readonly p50: number
  readonly p99: number
  readonly average: number
}
interface AutocannonResult {
  readonly duration: number
  readonly latency: Histogram
  readonly requests: Histogram & { readonly total: number }
  readonly errors: number
  readonly timeouts: number
  readonly non2xx: number
  readonly "2xx": number
  readonly statusCodeStats?: Record<string, { readonly count: number }>
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>

// The scenarios arrive as JSON, inline or (from bench/run.ts) in a file named by the argument.
const raw = process.argv[2] ?? "{}"
const argument = JSON.parse(raw.startsWith("{") || raw.startsWith("[") ? raw : readFileSync(raw, "utf8")) as
  | LoadSpec
  | ReadonlyArray<LoadSpec>
const specs: ReadonlyArray<LoadSpec> = Array.isArray(argument) ? argument : [argument as LoadSpec]
for (const spec of specs)
  for (const url of spec.urls ?? [spec.url])
    if (new URL(url).hostname !== "127.0.0.1") throw new Error("the benchmark only loads 127.0.0.1")

const require = createRequire(import.meta.url)
const autocannon = require("autocannon") as Autocannon

/** Clock ticks of /proc/<pid>/stat and /proc/stat (USER_HZ: 100 on Linux). */
const tickMicros = 10_000

/** CPU time (user + system) of a process, in µs; 0 when it cannot be read. */
const processMicros = (pid: number): number => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
      .replace(/^.*\) /, "")
      .split(" ")
    return (Number(fields[11]) + Number(fields[12])) * tickMicros
  } catch {
    return 0
  }
}

const postgresMicros = (): number =>
  readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .reduce((sum, name) => {
      try {
        return readFileSync(`/proc/${name}/comm`, "utf8").trim() === "postgres"
          ? sum + processMicros(Number(name))
          : sum
      } catch {
        return sum
      }
    }, 0)

/** Busy CPU time of the whole machine (every CPU), in µs, from the first line of /proc/stat. */
const machineMicros = (): number => {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync("/proc/stat", "utf8")
    .split("\n")[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number)
  return (user! + nice! + system! + irq! + softirq! + (steal ?? 0)) * tickMicros
}

interface CpuReading {
  readonly server: number
  readonly postgres: number
  readonly loadGenerator: number
  readonly machine: number
}

const readCpu = (serverPids: ReadonlyArray<number>): CpuReading | undefined => {
  try {
    const own = process.cpuUsage()
    return {
      server: serverPids.reduce((sum, pid) => sum + processMicros(pid), 0),
      postgres: postgresMicros(),
      loadGenerator: own.user + own.system,
      machine: machineMicros(),
    }
  } catch {
    return undefined
  }
}

/** µs of CPU per 2xx answer between two readings, by part. */
const perAnswer = (before: CpuReading | undefined, after: CpuReading | undefined, ok: number) => {
  if (before === undefined || after === undefined || ok === 0) return undefined
  const per = (key: keyof CpuReading) => Math.round((after[key] - before[key]) / ok)
  return {
    server: per("server"),
    postgres: per("postgres"),
    loadGenerator: per("loadGenerator"),
    machine: per("machine"),
  }
}

/** One autocannon load of `spec`'s requests against `url`. */
const load = (
  spec: LoadSpec,
  url: string,
  connections: number,
  maxOverallRequests: number,
  nextPath: () => string,
): Promise<AutocannonResult> =>
  autocannon({
    url,
    connections,
    duration: spec.seconds,
    maxOverallRequests: Math.max(maxOverallRequests, connections),
    // autocannon notices the end of a load (time or request count) at its next sample tick: at the
    // default 1 s, a load that runs out of requests after 1.2 s would report 2 s (req/s ÷ 1.7).
    sampleInt: 50,
    timeout: 10,
    idReplacement: spec.idReplacement ?? false,
    requests: [
      {
        method: spec.method,
        headers: spec.headers,
        ...(spec.body === undefined ? {} : { body: spec.body }),
        setupRequest: (request: { path: string }) => {
          request.path = nextPath()
          return request
        },
      },
    ],
  })

/** The figures of loads run at once against several instances, as one load's. */
const combine = (results: ReadonlyArray<AutocannonResult>): AutocannonResult => {
  if (results.length === 1) return results[0]!
  const sum = (f: (r: AutocannonResult) => number) => results.reduce((total, r) => total + f(r), 0)
  const statusCodeStats: Record<string, { count: number }> = {}
  for (const r of results)
    for (const [code, stats] of Object.entries(r.statusCodeStats ?? {}))
      statusCodeStats[code] = { count: (statusCodeStats[code]?.count ?? 0) + stats.count }
  return {
    duration: Math.max(...results.map((r) => r.duration)),
    latency: {
      p50: Math.max(...results.map((r) => r.latency.p50)),
      p99: Math.max(...results.map((r) => r.latency.p99)),
      average: sum((r) => r.latency.average) / results.length,
    },
    requests: { ...results[0]!.requests, total: sum((r) => r.requests.total) },
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    non2xx: sum((r) => r.non2xx),
    "2xx": sum((r) => r["2xx"]),
    statusCodeStats,
  }
}

/** Runs one scenario and prints its JSON line. */
const run = async (spec: LoadSpec) => {
  let next = 0
  const nextPath = () => spec.paths[next++ % spec.paths.length]!
  const urls = spec.urls ?? [spec.url]
  const pids = spec.serverPids ?? (spec.serverPid === undefined ? [] : [spec.serverPid])
  const before = readCpu(pids)
  const total = Math.max(spec.maxRequests, spec.connections)
  const results = await Promise.all(
    urls.map((url, i) =>
      // The connections split evenly, the first instances taking the remainder.
      load(
        spec,
        url,
        Math.floor(spec.connections / urls.length) + (i < spec.connections % urls.length ? 1 : 0),
        Math.ceil(total / urls.length),
        nextPath,
      ),
    ),
  )
  const result = combine(results)
  const cpu = perAnswer(before, readCpu(pids), result["2xx"])
  const statusCodes: Record<string, number> = {}
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats.count
  process.stdout.write(
    `${JSON.stringify({
      seconds: result.duration,
      ok: result["2xx"],
      requestsPerSecond: result["2xx"] / result.duration,
      answeredPerSecond: (result["2xx"] + result.non2xx) / result.duration,
      rateLimited: statusCodes["429"] ?? 0,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      statusCodes,
      ...(cpu === undefined ? {} : { cpuMicrosPerAnswer: cpu }),
    })}\n`,
  )
}

// One after the other, never overlapping: one process start-up for a whole list of scenarios.
for (const spec of specs) await run(spec)
