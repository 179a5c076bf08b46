/**
 * Structured logs: one JSON object per line on stdout (Effect's
 * `Logger.formatStructured` as JSON: message, level, timestamp, annotations, spans;
 * `message` always a string, other logged values in `details`),
 * filtered by LOG_LEVEL. Secrets travel as `Redacted` values, which the
 * formatter renders as "<redacted>"; request headers and bodies are never
 * logged. A SQL error that reaches a log line (as a logged value, or in the
 * cause of an unexpected failure) is replaced by its operation, kind and
 * SQLSTATE code (`SqlErrors.redact`): its message, detail and query may
 * quote data.
 *
 * The access line (one per HTTP request, `accessLine`) has the same shape
 * but is built by hand from a few strings and numbers and written straight
 * to the same sink: it is the one line written per request, so it skips the
 * logger's generic work (collecting annotations and spans, formatting the
 * whole structure). Lines reach stdout in batches: at most one write per
 * event-loop turn (or every 64 KiB), and whatever is pending is written when
 * the process exits.
 */
import { SqlErrors } from "@partnerpay/adapters-pg"
import { Cause, Context, Formatter, Layer, Logger, LogLevel, References } from "effect"
import { isSqlError } from "effect/sql/SqlError"

/** Where log lines go (stdout by default; tests capture them). */
export type Write = (line: string) => void

const flushAtBytes = 64 * 1024

/** A `Write` that gathers lines and writes them once per event-loop turn (and at exit). */
export const batched = (sink: (chunk: string) => void): Write => {
  let pending = ""
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (pending === "") return
    const chunk = pending
    pending = ""
    sink(chunk)
  }
  process.once("exit", flush)
  return (line) => {
    pending += `${line}\n`
    if (pending.length >= flushAtBytes) flush()
    else if (!scheduled) {
      scheduled = true
      setImmediate(flush)
    }
  }
}

let stdoutWrite: Write | undefined
/** The process's stdout, batched (one writer for every logger and the access log, so lines keep their order). */
const stdout: Write = (line) => {
  stdoutWrite ??= batched((chunk) => {
    process.stdout.write(chunk)
  })
  stdoutWrite(line)
}

/** The sink of the access log lines (the same as the logger's once `layer` is provided). */
export const AccessLog = Context.Reference<Write>("partnerpay/app/AccessLog", { defaultValue: () => stdout })

/**
 * A structured log entry whose `message` is always a string: a log call with
 * several values (`Effect.logInfo("webhooks delivered", { count })`) keeps
 * the first as the message (a non-string one as its JSON) and the others in
 * `details`.
 */
export const withStringMessage = <A extends { readonly message: unknown }>(
  entry: A,
): Omit<A, "message"> & { readonly message: string; readonly details?: unknown } => {
  const message = entry.message
  if (typeof message === "string") return entry as A & { readonly message: string }
  const [first, ...rest] = Array.isArray(message) ? message : [message]
  const text = typeof first === "string" ? first : (JSON.stringify(first) ?? String(first))
  const details = typeof first === "string" ? (rest.length === 1 ? rest[0] : rest) : message
  return { ...entry, message: text, details }
}

/** The structured formatter, with a string `message`. */
const structured = Logger.map(Logger.formatStructured, (entry) => Formatter.formatJson(withStringMessage(entry)))

/** A SQL error failure or defect in `reason`. */
const holdsSqlError = (reason: Cause.Reason<unknown>): boolean =>
  (reason._tag === "Fail" && isSqlError(reason.error)) || (reason._tag === "Die" && isSqlError(reason.defect))

/** `cause` with every SQL error replaced by its redacted stand-in. */
export const redactCause = (cause: Cause.Cause<unknown>): Cause.Cause<unknown> =>
  cause.reasons.some(holdsSqlError)
    ? Cause.fromReasons(
        cause.reasons.map((reason) =>
          reason._tag === "Fail"
            ? Cause.makeFailReason(SqlErrors.redact(reason.error))
            : reason._tag === "Die"
              ? Cause.makeDieReason(SqlErrors.redact(reason.defect))
              : reason,
        ),
      )
    : cause

/** The logged values with every SQL error replaced by its redacted stand-in. */
const redactMessage = (message: unknown): unknown =>
  Array.isArray(message) ? message.map(SqlErrors.redact) : SqlErrors.redact(message)

/** The logger's JSON lines (Effect's `formatStructured`, with a string `message`; SQL errors redacted). */
export const formatJson: Logger.Logger<unknown, string> = Logger.make((options) =>
  structured.log({ ...options, message: redactMessage(options.message), cause: redactCause(options.cause) }),
)

/** JSON lines at or above `level` (the logger and the access log). */
export const layer = (level: LogLevel.LogLevel, write: Write = stdout): Layer.Layer<never> =>
  Layer.mergeAll(
    Logger.layer([Logger.map(formatJson, write)]),
    Layer.succeed(References.MinimumLogLevel, level),
    Layer.succeed(AccessLog, write),
  )

/** True when lines at Info are written under the minimum level `minimum`. */
export const infoEnabled = (minimum: LogLevel.LogLevel): boolean => !LogLevel.isGreaterThan(minimum, "Info")

/** What the access line records for one request. */
export interface AccessEntry {
  /** The request's one id (also in `X-Correlation-Id`). */
  readonly requestId: string
  readonly method: string
  /** The matched route's template (`/Payment/:id`); undefined when no route matched. */
  readonly route: string | undefined
  /** The request's path, without the query string. */
  readonly path: string
  readonly status: number
  readonly durationMs: number
  /** The partner of a valid bearer token (undefined without one). */
  readonly partnerId: string | undefined
}

const jsonOrNull = (value: string | undefined): string => (value === undefined ? "null" : JSON.stringify(value))

/**
 * The access line, shaped like the logger's JSON lines (message "request",
 * level INFO, timestamp, annotations, spans). Strings from the request (the
 * path, the client's id) go through `JSON.stringify`, so no input can break the line.
 */
export const accessLine = (entry: AccessEntry, timestamp: Date): string =>
  `{"message":"request","level":"INFO","timestamp":"${timestamp.toISOString()}","annotations":{` +
  `"requestId":${JSON.stringify(entry.requestId)},"method":${JSON.stringify(entry.method)},` +
  `"route":${jsonOrNull(entry.route)},"path":${JSON.stringify(entry.path)},"status":${entry.status},` +
  `"durationMs":${entry.durationMs},"partnerId":${jsonOrNull(entry.partnerId)}},"spans":{}}`
