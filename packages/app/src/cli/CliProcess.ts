/**
 * The operator CLI's process, loaded by its entry point `src/cli.ts` once Node's compile cache is on:
 * runs the command line (`pnpm partnerpay <command>`; see README.md "Operators").
 * `listen` runs until Ctrl-C, which ends it quietly with status 0 (any other interrupted command: 130).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, Console, Effect, Exit, Runtime } from "effect"
import { CliError } from "effect/cli"
import { describeFailure, run } from "./CliCommands.ts"

NodeRuntime.runMain(
  run.pipe(
    Effect.provide(NodeServices.layer),
    Effect.tapCause((cause) =>
      // Parse errors and help were already rendered by the CLI module.
      Cause.hasInterruptsOnly(cause) || CliError.isCliError(Cause.squash(cause))
        ? Effect.void
        : Console.error(`partnerpay: ${describeFailure(cause)}`),
    ),
  ),
  {
    disableErrorReporting: true,
    teardown: (exit, onExit) =>
      Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) && process.argv.slice(2).includes("listen")
        ? onExit(0)
        : Runtime.defaultTeardown(exit, onExit),
  },
)
