/**
 * The embedded database's lock file: one owner at a time, a dead owner's lock
 * taken over, and never two owners, even when several processes take over
 * the same stale lock at once.
 */
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { afterAll } from "vitest"
import * as DataDirLock from "../src/DataDirLock.ts"

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

const lockModule = fileURLToPath(new URL("../src/DataDirLock.ts", import.meta.url))

/**
 * A separate process that waits until `startAt`, tries to take the lock, prints
 * "acquired" or "in-use <pid>", and holds a lock it got for `holdMillis`.
 */
const contender = (dataDir: string, startAt: number, holdMillis: number) =>
  new Promise<string>((resolve, reject) => {
    const script = `
      const { Effect } = await import("effect")
      const { lockDataDir } = await import(${JSON.stringify(lockModule)})
      while (Date.now() < ${startAt}) {}
      const outcome = await Effect.runPromise(
        Effect.scoped(
          lockDataDir(${JSON.stringify(dataDir)}).pipe(
            Effect.andThen(Effect.sync(() => process.stdout.write("acquired"))),
            Effect.andThen(Effect.sleep(${holdMillis})),
            Effect.as("ok"),
            Effect.catchTag("DatabaseInUse", (error) => Effect.sync(() => process.stdout.write("in-use " + error.pid))),
          ),
        ),
      )
    `
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      stdio: ["ignore", "pipe", "pipe"],
    })
    let out = ""
    let err = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString()
    })
    child.on("exit", (code) =>
      code === 0 ? resolve(`${out}|${child.pid}`) : reject(new Error(`exit ${code}: ${err}`)),
    )
  })

describe("a data directory without a lock", () => {
  it.effect("is locked for this process and released when the scope closes", () =>
    Effect.gen(function* () {
      const dataDir = freshDataDir()
      const scope = yield* Scope.make()
      yield* Scope.provide(scope)(DataDirLock.lockDataDir(dataDir))
      assert.strictEqual(readFileSync(DataDirLock.lockPathOf(dataDir), "utf8"), String(process.pid))
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(existsSync(DataDirLock.lockPathOf(dataDir)))
    }),
  )
})

describe("a data directory locked by a live process", () => {
  it.effect("is refused with DatabaseInUse naming the owner", () =>
    Effect.gen(function* () {
      const dataDir = freshDataDir()
      const owner = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "ignore" })
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
          assert.strictEqual(readFileSync(DataDirLock.lockPathOf(dataDir), "utf8"), String(process.pid))
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
      const outcomes = await Promise.all([1, 2, 3].map(() => contender(dataDir, startAt, 1_000)))
      const winners = outcomes.filter((outcome) => outcome.startsWith("acquired|"))
      assert.strictEqual(winners.length, 1, outcomes.join(", "))
      const winner = (winners[0] as string).split("|")[1]
      for (const outcome of outcomes) {
        if (!outcome.startsWith("acquired|")) assert.match(outcome, new RegExp(`^in-use ${winner}\\|`))
      }
    }
  })
})
