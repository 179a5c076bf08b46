/**
 * Gives back the memory start-up used, once the service is up (README.md "Memory").
 *
 * Loading and compiling the service's modules, migrating and building its layers allocate far more
 * than the service keeps: V8 grows its young generation to its ceiling (`--max-semi-space-size`,
 * RuntimeFlags.ts) and its old generation past what stays live, and keeps both committed while the
 * service is idle, since an idle process collects nothing. One memory-reducing full collection
 * (V8's "last resort" collection, the one it runs itself under memory pressure) right after
 * start-up shrinks both to what is live: about 35 MB less RSS idle on PostgreSQL, for a pause of
 * about 100 ms before the service announces itself.
 *
 * V8 offers that collection only through its `gc` extension (`--expose-gc`). It is taken here in a
 * context of its own (`vm`), so the service's global scope never holds a `gc` function.
 */
import * as v8 from "node:v8"
import * as vm from "node:vm"
import { Effect } from "effect"

interface CollectOptions {
  readonly type: "major"
  readonly execution: "sync"
  readonly flavor: "last-resort"
}

/** V8's collector, or undefined where the runtime does not offer it (another engine). */
const collector = (): ((options: CollectOptions) => void) | undefined => {
  try {
    v8.setFlagsFromString("--expose-gc")
    const gc: unknown = vm.runInNewContext("typeof gc === 'function' ? gc : undefined")
    return typeof gc === "function" ? (gc as (options: CollectOptions) => void) : undefined
  } catch {
    return undefined
  } finally {
    v8.setFlagsFromString("--no-expose-gc")
  }
}

/** The process's resident memory in MB. */
const residentMegabytes = (): number => Math.round(process.memoryUsage.rss() / 1_048_576)

/**
 * One memory-reducing full collection, now; logged at debug level with the RSS before and after.
 * Nothing happens where V8's collector is not available.
 */
export const release: Effect.Effect<void> = Effect.suspend(() => {
  const collect = collector()
  if (collect === undefined) return Effect.void
  const before = residentMegabytes()
  const startedAt = performance.now()
  collect({ type: "major", execution: "sync", flavor: "last-resort" })
  return Effect.logDebug("start-up memory released").pipe(
    Effect.annotateLogs({
      rssBeforeMb: before,
      rssAfterMb: residentMegabytes(),
      pauseMs: Math.round(performance.now() - startedAt),
    }),
  )
})
