import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "adapters-http",
    include: ["test/**/*.test.ts"],
  },
})
