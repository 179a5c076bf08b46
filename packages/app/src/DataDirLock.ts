/**
 * The lock file of an embedded (PGlite) data directory: PGlite is
 * single-process and does not lock its directory, so two processes opening
 * one directory would corrupt it.
 *
 * `<dataDir>.lock` holds the owner's pid and is only ever CREATED
 * exclusively (written aside, then hard-linked into place: atomic, fails if
 * it exists, never seen empty): whoever creates it owns the directory. A live owner
 * means `DatabaseInUse`. A lock left by a dead process (crash, SIGKILL) is
 * taken over without any window in which two processes could both own it:
 *
 * 1. the taker exclusively creates a takeover marker named after the stale
 *    lock's content (`<dataDir>.lock.takeover-<stale pid>`), so at most one
 *    process takes over a given stale lock;
 * 2. holding the marker, it checks that the lock still holds that stale pid
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
      "Stop that process first, or use the running service's operator API (/admin), or a PostgreSQL server (DATABASE_URL). " +
      `If no such process exists any more, delete ${lockPathOf(this.dataDir)}.`
    )
  }
}

/** The lock file of an embedded database directory. */
export const lockPathOf = (dataDir: string): string => `${dataDir.replace(/\/+$/, "")}.lock`

/** The takeover marker of a stale lock whose content is `owner`. */
export const takeoverPathOf = (lockPath: string, owner: string): string =>
  `${lockPath}.takeover-${/^\d{1,10}$/.test(owner) ? owner : "unknown"}`

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** A pid in a lock or marker file that belongs to another running process. */
const liveOwner = (content: string): number | undefined => {
  const pid = Number(content)
  return /^\d{1,10}$/.test(content) && pid > 0 && pid !== process.pid && isAlive(pid) ? pid : undefined
}

/**
 * Creates `path` holding our pid, only if it does not exist. The pid is
 * written to a private file first, then hard-linked to `path` (atomic, fails
 * if `path` exists): a reader never sees a lock without its pid.
 */
const createExclusive = (path: string): boolean => {
  const draft = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`
  writeFileSync(draft, String(process.pid), { flag: "wx", mode: 0o600 })
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
          if (taker !== undefined && liveOwner(taker) === undefined && taker !== String(process.pid)) {
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
        if (read(held) === String(process.pid)) rmSync(held, { force: true })
      } catch {
        // already gone
      }
    }),
  ).pipe(Effect.asVoid)
}
