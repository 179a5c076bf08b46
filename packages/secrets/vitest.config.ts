import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "secrets",
    include: ["test/**/*.test.ts"],
  },
})
