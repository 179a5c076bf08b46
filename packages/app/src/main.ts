/**
 * Service entry point. Until the HTTP and persistence adapters land, this
 * placeholder only says so; `./pnpm start` keeps working throughout.
 */

import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect } from "effect"

const program = Console.log(
  "partnerpay: the HTTP service is not wired yet (see the open issues). The domain core is in packages/domain.",
)

NodeRuntime.runMain(Effect.asVoid(program))
