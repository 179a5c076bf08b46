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
  },
})
