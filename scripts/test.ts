/**
 * `pnpm test`: every check of the project, each run and reported even when an
 * earlier one failed (a failing test must not hide whether the embedding and
 * client checks pass), in order: the type check, the linter, the test suite
 * (vitest), the embedding check and the client check. It ends with one
 * summary line naming each step and its outcome, and exits non-zero when any
 * step failed. Interrupted (Ctrl-C), it stops after the running step.
 */
import { spawn } from "node:child_process"

interface Step {
  readonly name: string
  readonly args: ReadonlyArray<string>
}

const steps: ReadonlyArray<Step> = [
  { name: "typecheck", args: ["--silent", "run", "typecheck"] },
  { name: "lint", args: ["--silent", "run", "lint"] },
  { name: "vitest", args: ["exec", "vitest", "run"] },
  { name: "embed", args: ["--silent", "run", "test:embed"] },
  { name: "client", args: ["--silent", "run", "test:client"] },
]

/** Set by Ctrl-C or SIGTERM: the running step gets the signal and no further step starts. */
let interrupted = false

/** Runs `pnpm ...args` with this terminal; resolves with its exit code (a signal counts as a failure). */
const run = (args: ReadonlyArray<string>): Promise<number> =>
  new Promise((resolve) => {
    const child = spawn("pnpm", args, { stdio: "inherit" })
    const forward = (signal: NodeJS.Signals) => {
      interrupted = true
      child.kill(signal)
    }
    process.on("SIGINT", forward).on("SIGTERM", forward)
    child.on("error", (error) => {
      console.error(`cannot run pnpm ${args.join(" ")}: ${error.message}`)
      resolve(127)
    })
    child.on("exit", (code, signal) => {
      process.off("SIGINT", forward).off("SIGTERM", forward)
      resolve(code ?? (signal === null ? 1 : 128))
    })
  })

const seconds = (since: number) => `${Math.round((performance.now() - since) / 1000)} s`

const outcomes: Array<string> = []
let failed = 0
for (const step of steps) {
  console.log(`\n=== pnpm test: ${step.name} ===`)
  const started = performance.now()
  const code = await run(step.args)
  if (code !== 0) failed++
  outcomes.push(`${step.name} ${code === 0 ? "passed" : `FAILED (exit ${code})`} in ${seconds(started)}`)
  if (interrupted) break
}
const verdict = interrupted
  ? "INTERRUPTED (the steps after it did not run)"
  : failed === 0
    ? "all passed"
    : `${failed} of ${steps.length} steps FAILED`
console.log(`\npnpm test: ${verdict}: ${outcomes.join("; ")}`)
process.exitCode = interrupted ? 130 : failed === 0 ? 0 : 1
