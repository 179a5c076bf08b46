/**
 * The kinds of value an environment variable holds (Settings.ts declares which
 * variable holds which): each a Schema from the variable's text, whose refusal
 * is the sentence an operator reads. A refusal quotes what was written (cut
 * at 60 characters), except for secrets and URLs that may hold a password:
 * of those it says only what is expected, or their length.
 */
import { isIP } from "node:net"
import { ClientAddress } from "@partnerpay/adapters-http"
import { PgPersonalDataVault } from "@partnerpay/adapters-pg"
import { Effect, LogLevel, Predicate, Redacted, Result, Schema, SchemaIssue, SchemaTransformation } from "effect"

/**
 * A codec from a variable's text: `parse` gives the value or the sentence saying what is expected; `format`
 * writes a value as the variable would hold it.
 */
const fromText = <A>(
  type: Schema.Codec<A>,
  parse: (text: string) => Result.Result<A, string>,
  format: (value: A) => string = String,
): Schema.Codec<A, string> =>
  Schema.String.pipe(
    Schema.decodeTo(
      Schema.toType(type),
      SchemaTransformation.transformEffect({
        decode: (text: string) =>
          Result.match(parse(text), {
            onSuccess: (value) => Effect.succeed(value),
            onFailure: (message) => Effect.fail(new SchemaIssue.InvalidValue({ message })),
          }),
        encode: (value: A) => Effect.succeed(format(value)),
      }),
    ),
  ) as unknown as Schema.Codec<A, string>

const quote = (value: string) => JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value)

const refuse = (message: string) => Result.fail(message)

const isHttpUrl = (text: string): boolean => {
  try {
    const url = new URL(text)
    return url.protocol === "http:" || url.protocol === "https:"
  } catch {
    return false
  }
}

const RedactedString = Schema.Redacted(Schema.String)

/** A whole number in `minimum..maximum`; `describe` is the sentence of a refusal. */
const wholeNumber = (minimum: number, maximum: number, describe: string) =>
  fromText(Schema.Int, (text) => {
    const value = Number(text)
    return /^\d+$/.test(text.trim()) && Number.isSafeInteger(value) && value >= minimum && value <= maximum
      ? Result.succeed(value)
      : refuse(`${describe} (got ${quote(text)})`)
  })

/** A TCP port; 0 lets the OS choose. */
export const Port = wholeNumber(0, 65535, "must be an integer between 0 and 65535")

/** Milliseconds, at most a day. */
export const Millis = wholeNumber(0, 86_400_000, "must be a whole number of milliseconds between 0 and 86400000")

/** A session timeout: never off (issue 34), at most an hour. */
export const TimeoutMillis = wholeNumber(
  100,
  3_600_000,
  "must be a whole number of milliseconds between 100 and 3600000",
)

export const bounded = (minimum: number, maximum: number, unit: string) =>
  wholeNumber(minimum, maximum, `must be a whole number of ${unit} between ${minimum} and ${maximum}`)

/** Trimmed text without spaces or slashes. */
export const HostName = fromText(Schema.String, (text) => {
  const host = text.trim()
  return /[\s/]/.test(host) ? refuse(`must be a host name or IP address (got ${quote(host)})`) : Result.succeed(host)
})

/** `on` or `off`, any case. */
export const OnOff = fromText(
  Schema.Boolean,
  (text) => {
    const word = text.trim().toLowerCase()
    return word === "on" || word === "off"
      ? Result.succeed(word === "on")
      : refuse(`must be "on" or "off" (got ${quote(text)})`)
  },
  (on) => (on ? "on" : "off"),
)

/** An absolute http(s) URL, trimmed. */
export const HttpUrl = fromText(Schema.String, (text) => {
  const url = text.trim()
  return isHttpUrl(url)
    ? Result.succeed(url)
    : refuse(`must be an absolute http:// or https:// URL (got ${quote(url)})`)
})

export const minimumTokenSecretBytes = 32
export const minimumAdminTokenLength = 32
export const minimumProviderSecretLength = 32

/** A secret of at least 32 bytes (UTF-8); a refusal tells its length, never its value. */
export const LongSecret = fromText(
  RedactedString,
  (text) => {
    const bytes = new TextEncoder().encode(text).byteLength
    return bytes >= minimumTokenSecretBytes
      ? Result.succeed(Redacted.make(text))
      : refuse(
          `must be at least ${minimumTokenSecretBytes} bytes long (got ${bytes}); e.g. \`openssl rand -base64 48\``,
        )
  },
  Redacted.value,
)

/** A secret of at least `length` characters. */
export const secretOf = (length: number) =>
  fromText(
    RedactedString,
    (text) =>
      text.length >= length
        ? Result.succeed(Redacted.make(text))
        : refuse(`must be at least ${length} characters long (got ${text.length})`),
    Redacted.value,
  )

export const AnySecret = fromText(RedactedString, (text) => Result.succeed(Redacted.make(text)), Redacted.value)

/** Text as given. */
export const Text = fromText(Schema.String, (text) => Result.succeed(text))

/** Text without surrounding spaces. */
export const TrimmedText = fromText(Schema.String, (text) => Result.succeed(text.trim()))

export type Environment = "sandbox" | "production"

export const Environment = fromText<Environment>(Schema.Literals(["sandbox", "production"]), (text) => {
  const word = text.trim().toLowerCase()
  return word === "sandbox" || word === "production"
    ? Result.succeed(word)
    : refuse(`must be "sandbox" or "production" (got ${quote(text)})`)
})

/** The URL may hold a password: a refusal never echoes it. */
export const DatabaseUrl = fromText(
  RedactedString,
  (text) =>
    /^postgres(ql)?:\/\/\S+$/.test(text.trim())
      ? Result.succeed(Redacted.make(text.trim()))
      : refuse("must be a PostgreSQL connection URL (postgres://user:password@host:port/database)"),
  Redacted.value,
)

/** Most statements pipelined on one pooled session (the client keeps at most 128 on the wire). */
export const maxStatementsPerSession = 128

/** Concurrent statements sharing one pooled PostgreSQL session (packages/adapters-pg/README.md). */
export const StatementsPerSession = wholeNumber(
  1,
  maxStatementsPerSession,
  `must be a whole number between 1 and ${maxStatementsPerSession}`,
)

export const DataKey = fromText(
  RedactedString,
  (text) => {
    try {
      PgPersonalDataVault.parseMasterKey(text)
      return Result.succeed(Redacted.make(text))
    } catch (error) {
      return refuse((error as Error).message)
    }
  },
  Redacted.value,
)

export const TrustedProxies = fromText(
  Schema.declare((u): u is ClientAddress.TrustedProxies => Predicate.hasProperty(u, "_tag")),
  ClientAddress.fromString,
  ClientAddress.format,
)

/** One address or network of PARTNERPAY_OUTBOUND_ALLOW: an IP literal, or one with a /prefix. */
const allowedEntry = (entry: string): boolean => {
  const [address = "", prefix, ...more] = entry.split("/")
  const family = isIP(address)
  if (family === 0 || more.length > 0) return false
  if (prefix === undefined) return true
  const bits = Number(prefix)
  return /^\d{1,3}$/.test(prefix) && bits <= (family === 4 ? 32 : 128)
}

/** Addresses and networks an outbound call may reach although not public, comma-separated ("10.0.0.5,fd00::/64"). */
export const OutboundAllow = fromText(
  Schema.Array(Schema.String),
  (text) => {
    const entries = text
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== "")
    const bad = entries.filter((entry) => !allowedEntry(entry))
    return bad.length === 0
      ? Result.succeed(entries)
      : refuse(
          `must be IP addresses or networks (a.b.c.d, a.b.c.d/n, IPv6 likewise), comma-separated (got ${quote(text)})`,
        )
  },
  (entries) => entries.join(","),
)

/** Most days ahead a reminder may go out. */
export const maxReminderDays = 30

/** Distinct whole numbers of days 0..30, comma-separated ("3,0"); largest first. */
export const ReminderDays = fromText(
  Schema.Array(Schema.Int),
  (text) => {
    const parts = text.split(",").map((part) => part.trim())
    const days = parts.map(Number)
    const valid =
      parts.every((part) => /^\d{1,2}$/.test(part)) &&
      days.every((day) => day <= maxReminderDays) &&
      new Set(days).size === days.length
    return valid
      ? Result.succeed([...days].sort((a, b) => b - a))
      : refuse(
          `must be distinct whole numbers of days between 0 and ${maxReminderDays}, comma-separated, e.g. "3,0" (got ${quote(text)})`,
        )
  },
  (days) => days.join(","),
)

/** Currency codes, comma-separated ("USD,EUR"): the currencies the sandbox rail moves. */
export const Currencies = fromText(
  Schema.Array(Schema.String),
  (text) => {
    const codes = text.split(",").map((part) => part.trim().toUpperCase())
    return codes.length > 0 && codes.every((code) => /^[A-Z]{3}$/.test(code)) && new Set(codes).size === codes.length
      ? Result.succeed(codes)
      : refuse(`must be distinct ISO 4217 currency codes, comma-separated, e.g. "USD" (got ${quote(text)})`)
  },
  (codes) => codes.join(","),
)

const logLevels: ReadonlyArray<LogLevel.LogLevel> = ["All", "Fatal", "Error", "Warn", "Info", "Debug", "Trace", "None"]

/** A log level in any case ("warning" is Warn). */
export const Level = fromText(Schema.Literals(LogLevel.values), (text) => {
  const wanted = text.trim().toLowerCase()
  const found = logLevels.find((level) => level.toLowerCase() === wanted || (wanted === "warning" && level === "Warn"))
  return found === undefined
    ? refuse(`must be one of ${logLevels.join(", ")} (any case; got ${quote(text)})`)
    : Result.succeed(found)
})

/** How log lines are written: `json`, `pretty` (one readable line each), or `auto` (pretty on a terminal in sandbox). */
export type LogFormat = "auto" | "json" | "pretty"

export const LogFormat = fromText<LogFormat>(Schema.Literals(["auto", "json", "pretty"]), (text) => {
  const word = text.trim().toLowerCase()
  return word === "auto" || word === "json" || word === "pretty"
    ? Result.succeed(word)
    : refuse(`must be "auto", "json" or "pretty" (got ${quote(text)})`)
})

export const ClientId = fromText(Schema.String, (text) => {
  const id = text.trim()
  return /^[\x21-\x7e]{1,200}$/.test(id)
    ? Result.succeed(id)
    : refuse("must be 1 to 200 printable ASCII characters without spaces")
})

/** One of `words` (any case), written as given. */
export const oneOf = <const W extends string>(words: ReadonlyArray<W>) =>
  fromText<W>(Schema.Literals(words), (text) => {
    const word = text.trim().toLowerCase()
    const found = words.find((each) => each === word)
    return found === undefined
      ? refuse(`must be one of ${words.map((each) => `"${each}"`).join(", ")} (got ${quote(text)})`)
      : Result.succeed(found)
  })

/** An SMTP server URL (`smtp://` or `smtps://`); it may hold a password: a refusal never echoes it. */
export const SmtpUrl = fromText(
  RedactedString,
  (text) =>
    /^smtps?:\/\/\S+$/.test(text.trim())
      ? Result.succeed(Redacted.make(text.trim()))
      : refuse("must be an SMTP URL (smtp://user:password@host:587 or smtps://user:password@host:465)"),
  Redacted.value,
)
