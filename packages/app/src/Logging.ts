/**
 * Structured logs: one JSON object per line on stdout (`Logger.consoleJson`),
 * filtered by LOG_LEVEL. Secrets travel as `Redacted` values, which every
 * logger renders as "<redacted>"; request headers and bodies are never logged.
 */
import { Layer, Logger, type LogLevel, References } from "effect"

/** JSON lines at or above `level`. */
export const layer = (level: LogLevel.LogLevel): Layer.Layer<never> =>
  Layer.merge(Logger.layer([Logger.consoleJson]), Layer.succeed(References.MinimumLogLevel, level))
