/**
 * The integrator's loop on the command line, as `stripe listen` and `stripe trigger`:
 * - `partnerpay listen --forward-to <url> [--events TYPE,...] [--print-secret]` forwards the partner's new
 *   events to a local URL, signed with the partner's stable listen secret (`Listen.ts`);
 * - `partnerpay trigger <EVENT>` (sandbox) makes the service record a sample event of that type for the
 *   partner, which `listen` then forwards (no webhook endpoint needed).
 *
 * Both find the service as `start` serves it: `--base`, else `http://<HOST>:<PORT>` of the configuration
 * (a wildcard HOST is reached on loopback). They follow, in this order, the partner of `--client-id` and
 * `--client-secret`, of `--credentials <file>`, of `PARTNERPAY_SANDBOX_CLIENT_ID`/`_SECRET`, else the first
 * start's partner (`sandbox-partner.json` in PARTNERPAY_DATA_DIR), and print which.
 */
import { existsSync, readFileSync } from "node:fs"
import { WebhookEvents } from "@partnerpay/adapters-http"
import { Traced } from "@partnerpay/domain"
import { Console, Effect, Option, Redacted } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as Config from "../config/Config.ts"
import * as Operations from "../operator/Operations.ts"
import * as Partners from "../sandbox/Partners.ts"
import { testEvent } from "../sandbox/SandboxWebhooks.ts"
import * as Listen from "./Listen.ts"

/** The service's URL as `start` serves it (a wildcard host is reached on loopback). */
export const baseOf = (config: { readonly host: string; readonly port: number }): string => {
  const host =
    config.host === "0.0.0.0" || config.host === ""
      ? "127.0.0.1"
      : config.host === "::"
        ? "[::1]"
        : config.host.includes(":")
          ? `[${config.host}]`
          : config.host
  return `http://${host}:${config.port}`
}

/** The partner a command follows, and where it came from (printed). */
export interface Followed {
  readonly credentials?: { readonly clientId: string; readonly clientSecret: Redacted.Redacted<string> } | undefined
  readonly source: string
}

const invalid = (field: string, message: string) => new Operations.InvalidInput({ issues: [{ field, message }] })

/** The partner of a `{ ClientId, ClientSecret }` file. */
const fromFile = Traced.fn("ListenCommands.fromFile")(function* (file: string, source: string) {
  const parsed = JSON.parse(readFileSync(file, "utf8")) as { ClientId?: unknown; ClientSecret?: unknown }
  if (typeof parsed.ClientId !== "string" || typeof parsed.ClientSecret !== "string")
    return yield* Effect.fail(invalid("--credentials", "must hold ClientId and ClientSecret"))
  const followed: Followed = {
    credentials: { clientId: parsed.ClientId, clientSecret: Redacted.make(parsed.ClientSecret) },
    source,
  }
  return followed
})

/** The partner the flags, the configuration or the first start name (see the module comment). */
export const followedPartner = Traced.fn("ListenCommands.followedPartner")(function* (
  flags: {
    readonly clientId: Option.Option<string>
    readonly clientSecret: Option.Option<Redacted.Redacted<string>>
    readonly token: Option.Option<Redacted.Redacted<string>>
    readonly credentialsFile: Option.Option<string>
  },
  config: Config.AppConfig,
) {
  if (Option.isSome(flags.clientId) && Option.isSome(flags.clientSecret))
    return {
      credentials: { clientId: flags.clientId.value, clientSecret: flags.clientSecret.value },
      source: "--client-id",
    } satisfies Followed
  if (Option.isSome(flags.clientId) !== Option.isSome(flags.clientSecret))
    return yield* Effect.fail(invalid("--client-id/--client-secret", "go together"))
  if (Option.isSome(flags.token) && Option.isNone(flags.credentialsFile))
    return { source: "--token" } satisfies Followed
  if (Option.isSome(flags.credentialsFile)) return yield* fromFile(flags.credentialsFile.value, "--credentials")
  if (Option.isSome(config.sandboxPartner)) {
    const partner = config.sandboxPartner.value
    return {
      credentials: { clientId: partner.clientId, clientSecret: partner.clientSecret },
      source: "PARTNERPAY_SANDBOX_CLIENT_ID",
    } satisfies Followed
  }
  const file = Partners.firstStartFile(config.dataDir)
  if (!existsSync(file))
    return yield* Effect.fail(
      invalid(
        "--client-id/--client-secret",
        `or --token are needed (no PARTNERPAY_SANDBOX_CLIENT_ID and no first-start partner in ${file})`,
      ),
    )
  return yield* fromFile(file, `the first start's partner (${file})`)
})

const partnerFlags = {
  base: Flag.String("base").pipe(
    Flag.withDescription(
      "The service's base URL (a remote one works too); default: http://HOST:PORT as start serves it",
    ),
    Flag.optional,
  ),
  clientId: Flag.String("client-id").pipe(Flag.withDescription("The partner's ClientId"), Flag.optional),
  clientSecret: Flag.Redacted("client-secret").pipe(
    Flag.withDescription("The partner's ClientSecret (never printed)"),
    Flag.optional,
  ),
  token: Flag.Redacted("token").pipe(
    Flag.withDescription("A partner token instead of the credentials (not renewed)"),
    Flag.optional,
  ),
  credentialsFile: Flag.String("credentials").pipe(
    Flag.withDescription(
      "A JSON file { ClientId, ClientSecret }; default: PARTNERPAY_SANDBOX_CLIENT_ID/_SECRET, else the first start's sandbox-partner.json in PARTNERPAY_DATA_DIR",
    ),
    Flag.optional,
  ),
}

/** The event types `--events` and `trigger` accept. */
const eventTypes = (): ReadonlyArray<string> => [...WebhookEvents.eventNames, testEvent]

const parseEvents = (text: string) => {
  const named = text
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "")
  const unknown = named.filter((name) => !eventTypes().includes(name))
  return unknown.length > 0 || named.length === 0
    ? Effect.fail(invalid("--events", `must name event types among ${eventTypes().join(", ")}`))
    : Effect.succeed(named)
}

const who = (followed: Followed) =>
  followed.credentials === undefined
    ? `the partner of the token (${followed.source})`
    : `partner ${followed.credentials.clientId} (from ${followed.source})`

export const listenCommand = Command.make(
  "listen",
  {
    ...partnerFlags,
    forwardTo: Flag.String("forward-to").pipe(
      Flag.withDescription("Where to forward each event, e.g. http://localhost:4000/hook"),
      Flag.optional,
    ),
    events: Flag.String("events").pipe(
      Flag.withDescription("Forward only these event types, comma-separated (e.g. PAYMENT_REQUEST_STATUS_CHANGED)"),
      Flag.optional,
    ),
    printSecret: Flag.Boolean("print-secret").pipe(
      Flag.withDescription("Print the partner's listen signing secret alone and exit (for scripts)"),
      Flag.withDefault(false),
    ),
    pollMillis: Flag.Int("poll-ms").pipe(
      Flag.withDescription("Between two reads of the events"),
      Flag.withDefault(1000),
    ),
    live: Flag.Boolean("live").pipe(
      Flag.withDescription("Forward with Live: true (the service is a production one)"),
      Flag.withDefault(false),
    ),
  },
  Traced.fn("ListenCommands.listen")(function* (flags) {
    const config = yield* Config.load
    const followed = yield* followedPartner(flags, config)
    const secret =
      followed.credentials === undefined
        ? Listen.sessionSecret()
        : Listen.stableSecret(config.dataDir, followed.credentials.clientId)
    if (flags.printSecret) return yield* Console.log(Redacted.value(secret))
    if (Option.isNone(flags.forwardTo)) return yield* Effect.fail(invalid("--forward-to", "is required"))
    const events = Option.isSome(flags.events) ? yield* parseEvents(flags.events.value) : undefined
    const base = Option.getOrElse(flags.base, () => baseOf(config))
    yield* Console.log(`Following ${who(followed)} on ${base}`)
    return yield* Listen.listen({
      base,
      forwardTo: flags.forwardTo.value,
      credentials: followed.credentials,
      token: Option.getOrUndefined(flags.token),
      pollMillis: Math.max(100, flags.pollMillis),
      live: flags.live,
      secret,
      events,
    })
  }),
).pipe(
  Command.withDescription(
    "Forward your events live to a local URL, signed with your listen secret (stable per partner and data directory; printed at start), one line per delivery; Ctrl-C stops it",
  ),
)

export const triggerCommand = Command.make(
  "trigger",
  {
    ...partnerFlags,
    event: Argument.String("event").pipe(
      Argument.withDescription("The webhook Event to record a sample of, e.g. PAYMENT_REQUEST_STATUS_CHANGED"),
    ),
  },
  Traced.fn("ListenCommands.trigger")(function* (flags) {
    const config = yield* Config.load
    if (!eventTypes().includes(flags.event))
      return yield* Effect.fail(invalid("event", `must be one of ${eventTypes().join(", ")}`))
    const followed = yield* followedPartner(flags, config)
    const base = Option.getOrElse(flags.base, () => baseOf(config))
    const recorded = yield* Listen.trigger({
      base,
      credentials: followed.credentials,
      token: Option.getOrUndefined(flags.token),
      event: flags.event,
    })
    yield* Console.log(`Triggered ${recorded.event} [${recorded.id}] for ${who(followed)}`)
  }),
).pipe(
  Command.withDescription(
    "Sandbox: make the service record a sample event of this type for your partner (listen forwards it; a configured endpoint receives it)",
  ),
)
