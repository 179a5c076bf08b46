/**
 * The embedded database's lock file: one owner at a time, a dead owner's lock
 * taken over (also when its pid now belongs to an unrelated process: the lock
 * records the owner's start time), and never two owners, even when several
 * processes take over the same stale lock at once.
 */
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { afterAll } from "vitest"
import * as DataDirLock from "../src/database/DataDirLock.ts"

const directories: Array<string> = []
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true })
})

const freshDataDir = () => {
  const directory = mkdtempSync(join(tmpdir(), "partnerpay-lock-"))
  directories.push(directory)
  return join(directory, "pglite")
}

/** The pid of a process that has exited (no process has it now). */
const deadPid = (): number => {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" })
  return Number(child.stdout)
}

const lockModule = fileURLToPath(new URL("../src/database/DataDirLock.ts", import.meta.url))

/**
 * A process that tries to lock `dataDir` at `startAt`: it prints its outcome at once (`acquired`, or
 * `in-use <pid>`), and a winner holds the lock until `releaseFile` exists, however late the others start.
 */
const contender = (dataDir: string, startAt: number, releaseFile: string) => {
  const script = `
      const { existsSync } = await import("node:fs")
      const { Effect } = await import("effect")
      const { lockDataDir } = await import(${JSON.stringify(lockModule)})
      while (Date.now() < ${startAt}) {}
      await Effect.runPromise(
        Effect.scoped(
          lockDataDir(${JSON.stringify(dataDir)}).pipe(
            Effect.andThen(Effect.sync(() => process.stdout.write("acquired"))),
            Effect.andThen(
              Effect.promise(async () => {
                while (!existsSync(${JSON.stringify(releaseFile)})) await new Promise((done) => setTimeout(done, 20))
              }),
            ),
            Effect.catchTag("DatabaseInUse", (error) => Effect.sync(() => process.stdout.write("in-use " + error.pid))),
          ),
        ),
      )
    `
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    stdio: ["ignore", "pipe", "pipe"],
  })
  let err = ""
  child.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString()
  })
  const outcome = new Promise<string>((resolve, reject) => {
    child.stdout.once("data", (chunk: Buffer) => resolve(`${chunk.toString()}|${child.pid}`))
    child.once("exit", (code) => reject(new Error(`exit ${code} before an outcome: ${err}`)))
  })
  const exited = new Promise<void>((resolve, reject) =>
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}: ${err}`)))),
  )
  return { outcome, exited }
}

/** Linux: processes' start times can be read from /proc. */
const linux = existsSync(`/proc/${process.pid}/stat`)

/** A process that runs until killed. */
const sleeper = () => spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "ignore" })

describe("a data directory without a lock", () => {
  it.effect("is locked for this process and released when the scope closes", () =>
    Effect.gen(function* () {
      const dataDir = freshDataDir()
      const scope = yield* Scope.make()
      yield* Scope.provide(scope)(DataDirLock.lockDataDir(dataDir))
      assert.strictEqual(readFileSync(DataDirLock.lockPathOf(dataDir), "utf8"), DataDirLock.ownerRecordOf(process.pid))
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(existsSync(DataDirLock.lockPathOf(dataDir)))
    }),
  )

  it.effect.skipIf(!linux)("records the owner's pid and its start time (Linux)", () =>
    Effect.gen(function* () {
      const dataDir = freshDataDir()
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* DataDirLock.lockDataDir(dataDir)
          const [pid, start] = readFileSync(DataDirLock.lockPathOf(dataDir), "utf8").split(" ")
          assert.strictEqual(pid, String(process.pid))
          assert.match(start ?? "", /^\d+$/)
          assert.strictEqual(start, DataDirLock.startTimeOf(process.pid))
        }),
      )
    }),
  )
})

describe("a data directory locked by a live process", () => {
  it.effect("is refused with DatabaseInUse naming the owner when the lock holds only its pid", () =>
    Effect.gen(function* () {
      const dataDir = freshDataDir()
      const owner = sleeper()
      try {
        writeFileSync(DataDirLock.lockPathOf(dataDir), String(owner.pid))
        const error = yield* Effect.flip(Effect.scoped(DataDirLock.lockDataDir(dataDir)))
        assert.strictEqual(error.pid, owner.pid)
        assert.include(error.message, `is in use by process ${owner.pid}`)
        assert.strictEqual(readFileSync(DataDirLock.lockPathOf(dataDir), "utf8"), String(owner.pid))
      } finally {
        owner.kill("SIGKILL")
      }
    }),
  )

  it.effect("says how to reach the running service's operator API instead: the variable that enables it, a call", () =>
    Effect.gen(function* () {
      const dataDir = freshDataDir()
      const owner = sleeper()
      try {
        writeFileSync(DataDirLock.lockPathOf(dataDir), String(owner.pid))
        const error = yield* Effect.flip(Effect.scoped(DataDirLock.lockDataDir(dataDir)))
        assert.include(error.message, "PARTNERPAY_ADMIN_TOKEN=")
        assert.include(error.message, "/admin/webhooks/deliveries")
        assert.include(error.message, "DATABASE_URL")
      } finally {
        owner.kill("SIGKILL")
      }
    }),
  )

  it.effect.skipIf(!linux)("is refused when the lock holds the owner's pid and start time", () =>
    Effect.gen(function* () {
      const dataDir = freshDataDir()
      const owner = sleeper()
      try {
        const record = yield* Effect.promise(async () => {
          // The child's start time is readable once it runs.
          for (;;) {
            const start = DataDirLock.startTimeOf(owner.pid!)
            if (start !== undefined) return `${owner.pid} ${start}`
            await new Promise((done) => setTimeout(done, 10))
          }
        })
        writeFileSync(DataDirLock.lockPathOf(dataDir), record)
        const error = yield* Effect.flip(Effect.scoped(DataDirLock.lockDataDir(dataDir)))
        assert.strictEqual(error.pid, owner.pid)
        assert.strictEqual(readFileSync(DataDirLock.lockPathOf(dataDir), "utf8"), record)
      } finally {
        owner.kill("SIGKILL")
      }
    }),
  )
})

describe("a data directory whose lock names a pid now used by an unrelated process", () => {
  it.effect.skipIf(!linux)("is taken over: the process started at another time than the lock's owner", () =>
    Effect.gen(function* () {
      const dataDir = freshDataDir()
      const lock = DataDirLock.lockPathOf(dataDir)
      // The lock as this service writes it, then its owner "crashed" and its pid went to another process.
      const written = yield* Effect.scoped(
        Effect.andThen(
          DataDirLock.lockDataDir(dataDir),
          Effect.sync(() => readFileSync(lock, "utf8")),
        ),
      )
      const unrelated = sleeper()
      try {
        writeFileSync(lock, written.replace(/^\d+/, String(unrelated.pid)))
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* DataDirLock.lockDataDir(dataDir)
            assert.strictEqual(readFileSync(lock, "utf8"), DataDirLock.ownerRecordOf(process.pid))
          }),
        )
        assert.isFalse(existsSync(lock))
      } finally {
        unrelated.kill("SIGKILL")
      }
    }),
  )
})

describe("a data directory locked by a dead process", () => {
  it.effect("is taken over, and no takeover marker is left", () =>
    Effect.gen(function* () {
      const dataDir = freshDataDir()
      const dead = deadPid()
      writeFileSync(DataDirLock.lockPathOf(dataDir), String(dead))
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* DataDirLock.lockDataDir(dataDir)
          assert.strictEqual(
            readFileSync(DataDirLock.lockPathOf(dataDir), "utf8"),
            DataDirLock.ownerRecordOf(process.pid),
          )
        }),
      )
      assert.isFalse(existsSync(DataDirLock.takeoverPathOf(DataDirLock.lockPathOf(dataDir), String(dead))))
    }),
  )

  it.effect("whose takeover was interrupted by a crash is refused, naming the files to delete", () =>
    Effect.gen(function* () {
      const dataDir = freshDataDir()
      const lock = DataDirLock.lockPathOf(dataDir)
      const dead = deadPid()
      writeFileSync(lock, String(dead))
      writeFileSync(DataDirLock.takeoverPathOf(lock, String(dead)), String(deadPid()))
      const error = yield* Effect.flip(Effect.scoped(DataDirLock.lockDataDir(dataDir)))
      assert.include(error.message, "stopped half-way")
      assert.include(error.message, `${lock}.takeover-${dead}`)
    }),
  )

  it("taken over by several processes at once has exactly one owner each time", { timeout: 60_000 }, async () => {
    for (let round = 0; round < 3; round++) {
      const dataDir = freshDataDir()
      writeFileSync(DataDirLock.lockPathOf(dataDir), String(deadPid()))
      const startAt = Date.now() + 1_500
      const releaseFile = join(dataDir, "..", `release-${round}-${crypto.randomUUID()}`)
      const contenders = [1, 2, 3].map(() => contender(dataDir, startAt, releaseFile))
      const outcomes = await Promise.all(contenders.map((c) => c.outcome))
      writeFileSync(releaseFile, "")
      await Promise.all(contenders.map((c) => c.exited))
      const winners = outcomes.filter((outcome) => outcome.startsWith("acquired|"))
      assert.strictEqual(winners.length, 1, outcomes.join(", "))
      const winner = (winners[0] as string).split("|")[1]
      for (const outcome of outcomes) {
        if (!outcome.startsWith("acquired|")) assert.match(outcome, new RegExp(`^in-use ${winner}\\|`))
      }
    }
  })
})
