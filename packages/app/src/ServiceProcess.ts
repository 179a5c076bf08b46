/**
 * The service process, loaded by the entry point `src/main.ts` (see README.md for the environment
 * variables): runs the service until it is stopped.
 *
 * A start that cannot happen says why in one line (bad configuration, the
 * embedded database held by another process, the port already in use), and a
 * stop asked for with Ctrl-C or SIGTERM is a clean stop: exit code 0, so that
 * `./pnpm start` ends quietly (no package-manager failure lines).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Console, Effect, Exit } from "effect"
import { ConfigInvalid } from "./config/Config.ts"
import { DatabaseInUse } from "./database/Database.ts"
import { ProvidersNotConfigured } from "./providers/ProviderPorts.ts"
import { main } from "./Service.ts"

const startedAt = Date.now()

/** The first error of `error`'s `cause` chain (itself included) that Node raised with this `code`. */
const findCode = (
  error: unknown,
  code: string,
): (Error & { readonly port?: number; readonly address?: string }) | undefined => {
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 10; depth++) {
    if (current instanceof Error && (current as NodeJS.ErrnoException).code === code) return current
    current = (current as { readonly cause?: unknown }).cause
  }
  return undefined
}

/** The variable that chose the port a listener could not bind: the operator listener's, or PORT. */
const portVariable = (error: { readonly port?: number }): string =>
  error.port !== undefined && String(error.port) === process.env.PARTNERPAY_ADMIN_PORT?.trim()
    ? "PARTNERPAY_ADMIN_PORT"
    : "PORT"

/** The one-line reason for a start that failed, or undefined for an unexpected failure. */
const startFailure = (error: unknown): string | undefined => {
  if (error instanceof ConfigInvalid || error instanceof DatabaseInUse || error instanceof ProvidersNotConfigured) {
    return error.message
  }
  const inUse = findCode(error, "EADDRINUSE")
  if (inUse !== undefined) return `port ${inUse.port ?? process.env.PORT ?? 3000} is in use; set ${portVariable(inUse)}`
  const denied = findCode(error, "EACCES")
  if (denied !== undefined) {
    return `port ${denied.port ?? process.env.PORT ?? 3000} needs privileges; set ${portVariable(denied)}`
  }
  const address = findCode(error, "EADDRNOTAVAIL")
  if (address !== undefined) {
    const admin = address.address !== undefined && address.address === process.env.PARTNERPAY_ADMIN_HOST?.trim()
    return admin
      ? `PARTNERPAY_ADMIN_HOST ${address.address} is not an address of this machine; set PARTNERPAY_ADMIN_HOST`
      : `HOST ${process.env.HOST ?? ""} is not an address of this machine; set HOST`
  }
  return undefined
}

NodeRuntime.runMain(
  main(startedAt).pipe(
    Effect.tapCause((cause) => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.void
      const reason = startFailure(Cause.squash(cause))
      return Console.error(
        reason !== undefined
          ? `partnerpay cannot start: ${reason}`
          : `partnerpay stopped with an error:\n${Cause.pretty(cause)}`,
      )
    }),
  ),
  {
    disableErrorReporting: true,
    // Interrupted (Ctrl-C, SIGTERM): a requested stop, exit 0; a failure: 1.
    teardown: (exit, onExit) => onExit(Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause) ? 0 : 1),
  },
)
