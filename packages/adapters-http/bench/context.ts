/**
 * The Context benchmark (issue 36): is a version of effect's `dist/Context.js` (a patch like the removed
 * `patches/effect@4.1.0.patch`, or none) worth it? Paired rounds: each round runs `measure.ts` once
 * per variant, in alternating order, each in a fresh process; the report gives, per scenario, each
 * variant's median CPU and bytes allocated per request and the median of the paired differences.
 *
 *   node bench/context.ts [rounds] name=[dir][@maxDepth] ...
 *
 * `dir` holds that variant's `Context.js` (none: the installed file), or is a patch of effect's
 * `dist/Context.js` (`*.patch`, applied with `patch` to a copy of the installed file, e.g.
 * `context-add-merge.patch`: the two hunks issue 36 weighed); `maxDepth` is the request contexts'
 * overlay budget (none: the server's, `OverlayBudget.requestMaxDepth`). Issue 36's run:
 *
 *   node bench/context.ts 9 none=@32 hunks=bench/context-add-merge.patch@32 budget8=@8
 */
import { execFileSync } from "node:child_process"
import { copyFileSync, mkdtempSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"

/** A directory holding the installed `dist/Context.js` with `patch` applied. */
const patched = (patch: string): string => {
  const installed = join(dirname(createRequire(import.meta.url).resolve("effect")), "Context.js")
  const dir = mkdtempSync(join(tmpdir(), "context-variant-"))
  copyFileSync(installed, join(dir, "Context.js"))
  execFileSync("patch", ["--quiet", join(dir, "Context.js"), resolve(patch)])
  return dir
}

const args = process.argv.slice(2)
const rounds = /^\d+$/.test(args[0] ?? "") ? Number(args.shift()) : 7
const variants = args.map((arg) => {
  const [name, spec = ""] = arg.split("=")
  const [dir, maxDepth] = spec.split("@")
  return {
    name: name!,
    dir: dir === "" || dir === undefined ? undefined : dir.endsWith(".patch") ? patched(dir) : dir,
    maxDepth,
  }
})
type Sample = { cpuMicros: number; bytes: number | null }
type Result = { create: Sample; status: Sample }
const results = new Map<string, Array<Result>>(variants.map((variant) => [variant.name, []]))

for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? variants : [...variants].reverse()
  for (const variant of order) {
    const output = execFileSync(
      process.execPath,
      [
        "--expose-gc",
        "--max-semi-space-size=256",
        "--min-semi-space-size=256",
        "--import",
        "./bench/variant.mjs",
        "bench/measure.ts",
      ],
      {
        cwd: new URL("..", import.meta.url),
        env: {
          ...process.env,
          CONTEXT_VARIANT: variant.name,
          ...(variant.dir === undefined ? {} : { CONTEXT_VARIANT_DIR: variant.dir }),
          ...(variant.maxDepth === undefined ? {} : { CONTEXT_MAX_DEPTH: variant.maxDepth }),
        },
        encoding: "utf8",
      },
    )
    results.get(variant.name)!.push(JSON.parse(output.trim().split("\n").at(-1)!) as Result)
  }
  process.stderr.write(`round ${round + 1}/${rounds}\n`)
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
const [first] = variants
for (const scenario of ["create", "status"] as const) {
  for (const metric of ["cpuMicros", "bytes"] as const) {
    const line = variants.map((variant) => {
      const values = results.get(variant.name)!.map((result) => result[scenario][metric] ?? Number.NaN)
      const paired = results
        .get(variant.name)!
        .map(
          (result, index) =>
            (result[scenario][metric] ?? Number.NaN) -
            (results.get(first!.name)![index]![scenario][metric] ?? Number.NaN),
        )
      const base = median(results.get(first!.name)!.map((result) => result[scenario][metric] ?? Number.NaN))
      const difference = median(paired)
      return `${variant.name} ${median(values).toFixed(0)}${variant === first ? "" : ` (paired ${difference >= 0 ? "+" : ""}${difference.toFixed(0)}, ${((100 * difference) / base).toFixed(1)}%)`}`
    })
    console.log(`${scenario} ${metric}: ${line.join("; ")}`)
  }
}
