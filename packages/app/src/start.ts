/**
 * The one way the service starts: `./pnpm start`, `pnpm start` and the bundle's `main.js` run this
 * file. Unless the runtime flags are applied already, it replaces its own process (`process.execve`:
 * same pid, so signals and the exit status are the service's own) with Node running `main` under the
 * flags of `RuntimeFlags.ts`; then it loads the service. Where `process.execve` is missing (Windows),
 * the service starts without the flags.
 */
import { fileURLToPath } from "node:url"
import * as RuntimeFlags from "./RuntimeFlags.ts"

const main = fileURLToPath(new URL(import.meta.url.endsWith(".js") ? "./main.js" : "./main.ts", import.meta.url))

if (process.env[RuntimeFlags.appliedMarker] === undefined && typeof process.execve === "function") {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value
  for (const [name, value] of Object.entries(RuntimeFlags.environment)) env[name] ??= value
  env.NODE_COMPILE_CACHE ??= fileURLToPath(new URL("../node_modules/.cache/node-compile-cache", import.meta.url))
  env[RuntimeFlags.appliedMarker] = "1"
  process.execve(process.execPath, [process.execPath, ...RuntimeFlags.nodeFlags, main, ...process.argv.slice(2)], env)
} else {
  await import("./main.ts")
}
