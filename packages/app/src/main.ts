/** Service entry point: `node src/main.ts` (see README.md for the environment variables). */
import { NodeRuntime } from "@effect/platform-node"
import { Cause, Console, Effect } from "effect"
import { ConfigInvalid } from "./Config.ts"
import { DatabaseInUse } from "./Database.ts"
import { main } from "./Service.ts"

const startedAt = Date.now()

NodeRuntime.runMain(
  main(startedAt).pipe(
    Effect.tapCause((cause) => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.void
      const error = Cause.squash(cause)
      return Console.error(
        error instanceof ConfigInvalid || error instanceof DatabaseInUse
          ? `partnerpay cannot start: ${error.message}`
          : `partnerpay stopped with an error:\n${Cause.pretty(cause)}`,
      )
    }),
  ),
  { disableErrorReporting: true },
)
