/**
 * The runtime flags of the service, in one place: `./pnpm start`, `pnpm start` and the operator's bundle
 * (`node DIR/main.js`) all start it through `start.ts`, which applies them (README.md "Memory"):
 * - V8: a bounded young generation (`--max-semi-space-size=16`), an old-space ceiling
 *   (`--max-old-space-size=1024`) and one background compiler thread (`--v8-pool-size=1`);
 * - glibc malloc: two arenas, trimming and mmap thresholds that give freed memory back
 *   (`MALLOC_ARENA_MAX`, `MALLOC_TRIM_THRESHOLD_`, `MALLOC_MMAP_THRESHOLD_`), read by the C library
 *   at process start, hence the re-exec;
 * - Node's module compile cache (`NODE_COMPILE_CACHE`) next to the code, unless one is set.
 * A value already in the environment is kept (an operator may tune it).
 */

/** The V8 flags, before the entry point. */
export const nodeFlags: ReadonlyArray<string> = [
  "--max-semi-space-size=16",
  "--max-old-space-size=1024",
  "--v8-pool-size=1",
]

/** The environment the process starts with (a value already set wins). */
export const environment: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: "2",
  MALLOC_TRIM_THRESHOLD_: "65536",
  MALLOC_MMAP_THRESHOLD_: "131072",
}

/** Set in the re-executed process: the flags are applied. */
export const appliedMarker = "PARTNERPAY_RUNTIME_FLAGS_APPLIED"
