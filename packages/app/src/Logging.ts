/**
 * Structured logs: one JSON object per line on stdout (Effect's
 * `Logger.formatJson`: message, level, timestamp, annotations, spans),
 * filtered by LOG_LEVEL. Secrets travel as `Redacted` values, which the
 * formatter renders as "<redacted>"; request headers and bodies are never
 * logged.
 */
import { Layer, Logger, type LogLevel, References } from "effect"

/** Where log lines go (stdout by default; tests capture them). */
export type Write = (line: string) => void

const stdout: Write = (line) => {
  process.stdout.write(`${line}\n`)
}

/** JSON lines at or above `level`. */
export const layer = (level: LogLevel.LogLevel, write: Write = stdout): Layer.Layer<never> =>
  Layer.merge(Logger.layer([Logger.map(Logger.formatJson, write)]), Layer.succeed(References.MinimumLogLevel, level))
