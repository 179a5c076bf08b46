/**
 * Structured logs: one JSON object per line on stdout (Effect's
 * `Logger.formatStructured` as JSON: message, level, timestamp, annotations, spans;
 * `message` always a string, other logged values in `details`),
 * filtered by LOG_LEVEL. With LOG_FORMAT=pretty (the default on a terminal in
 * sandbox) the same entries are one readable line each instead:
 * `09:15:00.123 INFO  message  key=value ...`, the level coloured on a terminal. Secrets travel as `Redacted` values, which the
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

/** Writes one access entry (as a JSON line by default; `layer` sets the service's format and sink). */
export type AccessWrite = (entry: AccessEntry, at: Date) => void

/** The sink of the access log lines (the same as the logger's once `layer` is provided). */
export const AccessLog = Context.Reference<AccessWrite>("partnerpay/app/AccessLog", {
  defaultValue: () => (entry, at) => stdout(accessLine(entry, at)),
})

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

// ---------------------------------------------------------------------------
// Pretty lines (LOG_FORMAT=pretty)

const levelColours: Readonly<Record<string, number>> = { FATAL: 35, ERROR: 31, WARN: 33, INFO: 32, DEBUG: 36 }

const clock = (at: Date): string => at.toISOString().slice(11, 23)

const levelText = (level: string, colour: boolean): string => {
  const padded = level.padEnd(5)
  const code = levelColours[level]
  return colour && code !== undefined ? `\u001b[${code}m${padded}\u001b[0m` : padded
}

const valueText = (value: unknown): string =>
  typeof value === "string" && /^[^\s"=]+$/.test(value) ? value : (JSON.stringify(value) ?? String(value))

/** `key=value` pairs of an object, in order (strings without spaces unquoted). */
const pairs = (values: Readonly<Record<string, unknown>>): string =>
  Object.entries(values)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${valueText(value)}`)
    .join(" ")

/** One readable line: time, level, message, then the annotations, details and cause. */
export const prettyLine = (
  entry: {
    readonly message: string
    readonly level: string
    readonly timestamp: string
    readonly annotations?: Readonly<Record<string, unknown>>
    readonly details?: unknown
    readonly cause?: unknown
  },
  colour: boolean,
): string => {
  const parts = [clock(new Date(entry.timestamp)), levelText(entry.level, colour), entry.message]
  const annotations = pairs(entry.annotations ?? {})
  if (annotations !== "") parts.push(` ${annotations}`)
  if (entry.details !== undefined)
    parts.push(
      typeof entry.details === "object" && entry.details !== null && !Array.isArray(entry.details)
        ? pairs(entry.details as Record<string, unknown>)
        : valueText(entry.details),
    )
  const line = parts.join(" ")
  return entry.cause === undefined || entry.cause === "" ? line : `${line}\n${String(entry.cause)}`
}

/** The logger's readable lines (the same entries as `formatJson`, SQL errors redacted). */
const formatPretty = (colour: boolean): Logger.Logger<unknown, string> =>
  Logger.make((options) => {
    const entry = withStringMessage(
      Logger.formatStructured.log({
        ...options,
        message: redactMessage(options.message),
        cause: redactCause(options.cause),
      }),
    )
    return prettyLine(entry as Parameters<typeof prettyLine>[0], colour)
  })

/** The access entry as a readable line: `09:15:00.123 INFO  POST /Payment/Create 200 12.5ms`. */
export const prettyAccessLine = (entry: AccessEntry, at: Date, colour: boolean): string =>
  `${clock(at)} ${levelText("INFO", colour)} ${entry.method} ${entry.path} ${entry.status} ${entry.durationMs}ms` +
  ` requestId=${valueText(entry.requestId)}${entry.partnerId === undefined ? "" : ` partnerId=${entry.partnerId}`}`

/** The lines at or above `level` (the logger and the access log), JSON or readable, to `write`. */
export const layer = (
  level: LogLevel.LogLevel,
  write: Write = stdout,
  format: "json" | "pretty" = "json",
): Layer.Layer<never> => {
  const colour = format === "pretty" && write === stdout && process.stdout.isTTY === true
  return Layer.mergeAll(
    Logger.layer([Logger.map(format === "pretty" ? formatPretty(colour) : formatJson, write)]),
    Layer.succeed(References.MinimumLogLevel, level),
    Layer.succeed(
      AccessLog,
      format === "pretty"
        ? (entry: AccessEntry, at: Date) => write(prettyAccessLine(entry, at, colour))
        : (entry: AccessEntry, at: Date) => write(accessLine(entry, at)),
    ),
  )
}

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
