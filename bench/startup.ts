/**
 * Start-up benchmark of the service on the embedded PGlite database (`node bench/startup.ts [--runs N]`).
 *
 * Starts the real service process (`node packages/app/src/main.ts`, sandbox, LOG_LEVEL=Info, PORT=0)
 * and measures the time from spawn to its "partnerpay listening" log line (and the CPU time the
 * process used until then, less sensitive to a busy machine), then its VmRSS after 3 s of idling,
 * in these situations:
 *
 *   coldImage  a fresh data directory and an EMPTY data-directory image cache (XDG_CACHE_HOME
 *              pointed at a new temporary directory): the first start of a fresh clone or CI
 *              machine, which runs initdb once and writes the image;
 *   fresh      a fresh data directory with the image cached by the run above (N runs): every
 *              later first start of a new data directory;
 *   restart    the data directory of the last fresh run again (N runs): a restart.
 *
 * Prints one JSON object on stdout (medians, and every run), progress on stderr. Self-contained
 * and bounded: every child is killed after 120 s and on exit; temporary directories are removed.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const runsArg = process.argv.indexOf("--runs")
const runs = runsArg === -1 ? 5 : Math.max(1, Number(process.argv[runsArg + 1]) || 5)
const idleMillis = 3000

const children = new Set<ChildProcess>()
const temporary: Array<string> = []
const cleanUp = () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true })
}
process.on("exit", cleanUp)
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    cleanUp()
    process.exit(130)
  })
}

const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  temporary.push(dir)
  return dir
}

const rssMegabytes = (pid: number): number | undefined => {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
    return match === null ? undefined : Math.round(Number(match[1]) / 1024)
  } catch {
    return undefined
  }
}

/** CPU time (user + system) the process used so far, in ms (less sensitive to a busy machine than wall time). */
const cpuMillis = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10 // utime, stime in clock ticks (100 Hz)
  } catch {
    return undefined
  }
}

interface Run {
  readonly listeningMs: number
  readonly cpuAtListeningMs: number | undefined
  readonly rssAtListeningMb: number | undefined
  readonly idleRssMb: number | undefined
}

/** One start of the service on `dataDir` with its image cache under `cacheHome`; stopped afterwards. */
const startOnce = (dataDir: string, cacheHome: string): Promise<Run> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, ["packages/app/src/main.ts"], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        XDG_CACHE_HOME: cacheHome,
        PORT: "0",
        HOST: "127.0.0.1",
        PARTNERPAY_DATA_DIR: dataDir,
        PARTNERPAY_KYB_DELAY_MS: "3600000",
        PARTNERPAY_SETTLEMENT_DELAY_MS: "3600000",
        LOG_LEVEL: "Info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    })
    children.add(child)
    const output: Array<string> = []
    let listening = false
    const killTimer = setTimeout(() => child.kill("SIGKILL"), 120_000)
    const onLine = (line: string) => {
      if (output.length < 200) output.push(line)
      if (listening || !line.includes("partnerpay listening")) return
      listening = true
      const listeningMs = Math.round(performance.now() - started)
      const pid = child.pid ?? -1
      const cpuAtListeningMs = cpuMillis(pid)
      const rssAtListeningMb = rssMegabytes(pid)
      setTimeout(() => {
        const idleRssMb = rssMegabytes(pid)
        child.once("exit", () => resolve({ listeningMs, cpuAtListeningMs, rssAtListeningMb, idleRssMb }))
        child.kill("SIGTERM")
      }, idleMillis)
    }
    for (const stream of [child.stdout, child.stderr]) {
      let buffer = ""
      stream.setEncoding("utf8").on("data", (chunk: string) => {
        buffer += chunk
        for (let newline = buffer.indexOf("\n"); newline !== -1; newline = buffer.indexOf("\n")) {
          onLine(buffer.slice(0, newline))
          buffer = buffer.slice(newline + 1)
        }
      })
    }
    child.once("exit", (code, signal) => {
      clearTimeout(killTimer)
      children.delete(child)
      if (!listening)
        reject(new Error(`the service exited (${code ?? signal}) before listening:\n${output.join("\n")}`))
    })
  })

const median = (values: ReadonlyArray<number | undefined>): number | undefined => {
  const sorted = values.filter((value): value is number => value !== undefined).sort((a, b) => a - b)
  if (sorted.length === 0) return undefined
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : Math.round((sorted[middle - 1]! + sorted[middle]!) / 2)
}

const summary = (all: ReadonlyArray<Run>) => ({
  medianListeningMs: median(all.map((run) => run.listeningMs)),
  medianCpuAtListeningMs: median(all.map((run) => run.cpuAtListeningMs)),
  medianIdleRssMb: median(all.map((run) => run.idleRssMb)),
  runs: all,
})

const main = async () => {
  const cacheHome = tempDir("partnerpay-startup-cache-")
  const dataDirOf = () => join(tempDir("partnerpay-startup-"), "data")

  const coldImage = await startOnce(dataDirOf(), cacheHome)
  console.error(`coldImage: ${JSON.stringify(coldImage)}`)
  const fresh: Array<Run> = []
  let lastDataDir = ""
  for (let i = 0; i < runs; i++) {
    lastDataDir = dataDirOf()
    fresh.push(await startOnce(lastDataDir, cacheHome))
    console.error(`fresh ${i + 1}/${runs}: ${JSON.stringify(fresh.at(-1))}`)
  }
  const restart: Array<Run> = []
  for (let i = 0; i < runs; i++) {
    restart.push(await startOnce(lastDataDir, cacheHome))
    console.error(`restart ${i + 1}/${runs}: ${JSON.stringify(restart.at(-1))}`)
  }
  const report = {
    benchmark: "startup",
    database: "PGlite",
    node: process.version,
    idleMillis,
    coldImage,
    fresh: summary(fresh),
    restart: summary(restart),
  }
  // one line: bench/run.ts folds the last JSON line of a hook into its report
  process.stdout.write(`${JSON.stringify(report)}\n`)
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  },
)
