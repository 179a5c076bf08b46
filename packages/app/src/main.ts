/**
 * Service entry point. Until the HTTP and persistence adapters land, this
 * placeholder only says so; `./pnpm start` keeps working throughout.
 */
import { Console, Effect } from "effect"
import { NodeRuntime } from "@effect/platform-node"

const program = Console.log(
  "partnerpay: the HTTP service is not wired yet (see the open issues). The domain core is in packages/domain.",
)

NodeRuntime.runMain(Effect.asVoid(program))
