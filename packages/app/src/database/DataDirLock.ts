/**
 * The lock file of an embedded (PGlite) data directory: PGlite is
 * single-process and does not lock its directory, so two processes opening
 * one directory would corrupt it.
 *
 * `<dataDir>.lock` holds the owner's pid and, on Linux, its start time
 * (`<pid> <start>`, field 22 of `/proc/<pid>/stat`, clock ticks since boot)
 * and is only ever CREATED exclusively (written aside, then hard-linked into
 * place: atomic, fails if it exists, never seen empty): whoever creates it
 * owns the directory. A live owner means `DatabaseInUse`. The owner is live
 * when its pid runs AND, when the lock recorded a start time and the
 * process's can be read, the two are equal: a pid that now belongs to
 * another process (pids are reused after a crash or a container restart)
 * is not the owner. Without a start time (a lock written before it was
 * recorded, or no `/proc`), a running pid counts as the owner. A lock left
 * by a dead owner (crash, SIGKILL) is taken over without any window in which
 * two processes could both own it:
 *
 * 1. the taker exclusively creates a takeover marker named after the stale
 *    lock's content (`<dataDir>.lock.takeover-<stale pid>[-<start>]`), so at
 *    most one process takes over a given stale lock;
 * 2. holding the marker, it checks that the lock still holds that stale owner
 *    (nobody else removes a lock: a new lock can only appear once the stale
 *    one is gone) and removes it;
 * 3. it creates the lock exclusively like any first start (another process
 *    may win that fairly: then this one sees a live owner), and removes the
 *    marker.
 * A process that finds a marker waits for the takeover to finish and looks
 * again. A marker whose taker died (a crash during a takeover) is reported
 * with the files to delete.
 *
 * The owner removes its lock when it closes (after PGlite closed).
 */
import { randomBytes } from "node:crypto"
import { linkSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { Effect, Schema, type Scope } from "effect"

/** The embedded database's directory is held by another live process (pid -1: could not be determined). */
export class DatabaseInUse extends Schema.TaggedError<DatabaseInUse>()("DatabaseInUse", {
  dataDir: Schema.String,
  pid: Schema.Number,
  /** Leftover files an operator should delete (an interrupted takeover). */
  leftovers: Schema.optional(Schema.Array(Schema.String)),
}) {
  override get message(): string {
    if (this.leftovers !== undefined && this.leftovers.length > 0) {
      return (
        `the embedded database in ${this.dataDir} could not be locked: a process that was taking over its stale ` +
        `lock stopped half-way. If no partnerpay process uses it, delete ${this.leftovers.join(" and ")}.`
      )
    }
    return (
      `the embedded database in ${this.dataDir} is in use by process ${this.pid} (PGlite allows one process at a time). ` +
      "Stop that process first, or do it through the running service's operator API: start the service with " +
      "PARTNERPAY_ADMIN_TOKEN=<a secret of 32+ characters> and call it, e.g. " +
      'curl -H "Authorization: Bearer $PARTNERPAY_ADMIN_TOKEN" http://localhost:3000/admin/webhooks/deliveries ' +
      '(packages/app/README.md, "Operator API"); or use a PostgreSQL server (DATABASE_URL), which many processes share. ' +
      `If no such process exists any more, delete ${lockPathOf(this.dataDir)}.`
    )
  }
}

/** The lock file of an embedded database directory. */
export const lockPathOf = (dataDir: string): string => `${dataDir.replace(/\/+$/, "")}.lock`

/** A lock's or marker's content: `<pid>`, or `<pid> <start time>`. */
const ownerFormat = /^(\d{1,10})(?: (\d{1,20}))?$/

/** The takeover marker of a stale lock whose content is `owner`. */
export const takeoverPathOf = (lockPath: string, owner: string): string =>
  `${lockPath}.takeover-${ownerFormat.test(owner) ? owner.replace(" ", "-") : "unknown"}`

/**
 * The start time of process `pid` (field 22 of `/proc/<pid>/stat`: clock
 * ticks after boot), or undefined where it cannot be read (no such process,
 * not Linux). The command name (field 2) may hold spaces and parentheses, so
 * fields are counted after its closing parenthesis.
 */
export const startTimeOf = (pid: number): string | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]
    return start !== undefined && /^\d{1,20}$/.test(start) ? start : undefined
  } catch {
    return undefined
  }
}

/** What a lock or marker written by process `pid` holds: its pid and, where readable, its start time. */
export const ownerRecordOf = (pid: number): string => {
  const start = startTimeOf(pid)
  return start === undefined ? String(pid) : `${pid} ${start}`
}

const ownRecord = ownerRecordOf(process.pid)

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * The pid of the other running process that wrote `content`, or undefined:
 * no pid, our own, a pid no process has, or one whose process started at
 * another time than the lock recorded (the pid was reused).
 */
const liveOwner = (content: string): number | undefined => {
  const match = ownerFormat.exec(content)
  if (match === null) return undefined
  const pid = Number(match[1])
  if (pid <= 0 || pid === process.pid || !isAlive(pid)) return undefined
  const recorded = match[2]
  if (recorded === undefined) return pid
  const current = startTimeOf(pid)
  return current === undefined || current === recorded ? pid : undefined
}

/**
 * Creates `path` holding our pid and start time, only if it does not exist.
 * They are written to a private file first, then hard-linked to `path`
 * (atomic, fails if `path` exists): a reader never sees a lock without them.
 */
const createExclusive = (path: string): boolean => {
  const draft = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`
  writeFileSync(draft, ownRecord, { flag: "wx", mode: 0o600 })
  try {
    linkSync(draft, path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
    throw error
  } finally {
    rmSync(draft, { force: true })
  }
}

/** The file's trimmed content, or undefined when it does not exist. */
const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8").trim()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw error
  }
}

type Step =
  | { readonly _tag: "Acquired" }
  | { readonly _tag: "InUse"; readonly pid: number }
  | { readonly _tag: "Again" }
  | { readonly _tag: "Wait"; readonly marker: string }

/** One attempt at the protocol of the module doc. */
const step = (path: string): Step => {
  if (createExclusive(path)) return { _tag: "Acquired" }
  const owner = read(path)
  if (owner === undefined) return { _tag: "Again" } // released meanwhile
  const live = liveOwner(owner)
  if (live !== undefined) return { _tag: "InUse", pid: live }
  const marker = takeoverPathOf(path, owner)
  if (!createExclusive(marker)) return { _tag: "Wait", marker }
  try {
    // Only the marker's holder removes a lock holding `owner`; its content cannot have changed but by removal.
    if (read(path) === owner) rmSync(path, { force: true })
    return createExclusive(path) ? { _tag: "Acquired" } : { _tag: "Again" }
  } finally {
    rmSync(marker, { force: true })
  }
}

const attempts = 50
const waitMillis = 20

/** Takes the lock file of `dataDir` for this process (see the module doc); released when the scope closes. */
export const lockDataDir = (dataDir: string): Effect.Effect<void, DatabaseInUse, Scope.Scope> => {
  const path = lockPathOf(dataDir)
  const acquire = Effect.gen(function* () {
    let lastMarker: string | undefined
    for (let attempt = 0; attempt < attempts; attempt++) {
      const outcome = yield* Effect.try({ try: () => step(path), catch: (error) => error }).pipe(Effect.orDie)
      switch (outcome._tag) {
        case "Acquired":
          return path
        case "InUse":
          return yield* new DatabaseInUse({ dataDir, pid: outcome.pid })
        case "Again":
          continue
        case "Wait": {
          const taker = read(outcome.marker)
          if (taker !== undefined && liveOwner(taker) === undefined && taker !== ownRecord) {
            // The taker died half-way: nobody will finish its takeover.
            return yield* new DatabaseInUse({ dataDir, pid: -1, leftovers: [outcome.marker, path] })
          }
          lastMarker = outcome.marker
          yield* Effect.sleep(waitMillis)
        }
      }
    }
    return yield* new DatabaseInUse({
      dataDir,
      pid: -1,
      ...(lastMarker === undefined ? {} : { leftovers: [lastMarker, path] }),
    })
  })
  return Effect.acquireRelease(acquire, (held) =>
    Effect.sync(() => {
      try {
        if (read(held) === ownRecord) rmSync(held, { force: true })
      } catch {
        // already gone
      }
    }),
  ).pipe(Effect.asVoid)
}
