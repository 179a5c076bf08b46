import { defineConfig } from "vitest/config"

/** The fault-injection suite: `pnpm test:faults` (real service processes on PostgreSQL). */
export default defineConfig({
  test: {
    name: "faults",
    root: import.meta.dirname,
    include: ["*.faults.test.ts"],
    testTimeout: 240_000,
    hookTimeout: 120_000,
    maxWorkers: 3,
    fileParallelism: true,
    // The scenarios drive real processes against wall-clock time (kill -9, outages, retry spacing);
    // one retry absorbs a load spike of the machine, while a real defect fails both attempts.
    retry: 1,
  },
})
