/**
 * Service entry point: `node src/main.ts` (see README.md for the environment variables).
 *
 * It turns Node's module compile cache on, then loads the service (`ServiceProcess.ts`): a start
 * whose modules are in the cache neither strips their types again nor compiles them from scratch,
 * and never loads Node's TypeScript stripper (a WebAssembly module whose memory stays resident:
 * about 14 MB less RSS idle, README.md "Memory"). The cache is Node's: in `NODE_COMPILE_CACHE` if
 * set, else `<tmpdir>/node-compile-cache`; keyed by each file's content and the Node version, so a
 * changed file is compiled again; `NODE_DISABLE_COMPILE_CACHE=1` turns it off.
 */
import * as Module from "node:module"

// Absent before Node 22.1 (the bundle, compiled JavaScript, also runs on an older Node: no cache there).
const cache = Module as Partial<Pick<typeof Module, "enableCompileCache" | "flushCompileCache">>
cache.enableCompileCache?.()
await import("./ServiceProcess.ts")
// Written now that the service's modules are loaded, not only at exit (a killed process writes nothing).
cache.flushCompileCache?.()
