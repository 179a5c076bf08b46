import { defineConfig } from "vitest/config"

/**
 * The production walk: `pnpm test:production` (the real service process with PARTNERPAY_ENV=production on
 * PostgreSQL, against local fakes of the providers checked with their published documents).
 */
export default defineConfig({
  test: {
    name: "production",
    root: import.meta.dirname,
    include: ["*.production.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
})
