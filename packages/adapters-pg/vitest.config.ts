import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "adapters-pg",
    include: ["test/**/*.test.ts"],
  },
})
