/**
 * Operator CLI entry point: `node src/cli.ts <command>` (`pnpm partnerpay <command>`; see README.md "Operators").
 *
 * As `src/main.ts` does for the service, it turns Node's module compile cache on, then loads the CLI
 * (`cli/CliProcess.ts`): a command whose modules are in the cache neither strips their types again nor
 * compiles them from scratch (a command starts in about half the CPU time). The cache is Node's: in
 * `NODE_COMPILE_CACHE` if set, else `<tmpdir>/node-compile-cache`, shared with the service's; keyed by
 * each file's content and the Node version; `NODE_DISABLE_COMPILE_CACHE=1` turns it off.
 */
import * as Module from "node:module"

// Absent before Node 22.1 (the bundle, compiled JavaScript, also runs on an older Node: no cache there).
const cache = Module as Partial<Pick<typeof Module, "enableCompileCache" | "flushCompileCache">>
cache.enableCompileCache?.()
await import("./cli/CliProcess.ts")
// Written now that the CLI's modules are loaded, not only at exit.
cache.flushCompileCache?.()
