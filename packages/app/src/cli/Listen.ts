/**
 * `partnerpay listen --forward-to <url>`: a local webhook loop, as `stripe
 * listen` gives. It reads the partner's events over the API (`GET /Events`,
 * oldest first after the last one seen), so it works against a remote service
 * and needs no inbound port nor a configured webhook endpoint, and forwards
 * each new event to a local URL as the service's webhooks are delivered: the
 * same body `{ Live, Event, Data }` and headers (`X-Partnerpay-Event-Id`,
 * `X-HMAC-Signature`, `X-Partnerpay-Signature` and the Standard Webhooks
 * `webhook-id`, `webhook-timestamp`, `webhook-signature`), signed with the
 * listen secret of the partner: stable per partner and data directory (kept in
 * `<data dir>/listen-secrets.json`, mode 0600), printed at start. `--events`
 * forwards only the types named. One line per delivery says the event and the
 * local answer's status. Only events recorded after the start are forwarded.
 * It authenticates with the partner's credentials (renewing the token as it
 * expires) or with a token.
 */
import { randomBytes } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Traced } from "@partnerpay/domain"
import { Console, Data, Effect, Redacted, Schedule } from "effect"
import { signatureHeaders } from "../workers/WebhookDispatcher.ts"

export interface ListenOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:3000`. */
  readonly base: string
  /** Where events are forwarded. */
  readonly forwardTo: string
  readonly credentials?: { readonly clientId: string; readonly clientSecret: Redacted.Redacted<string> } | undefined
  readonly token?: Redacted.Redacted<string> | undefined
  /** Between two reads of the events. */
  readonly pollMillis: number
  /** `Live` of the forwarded bodies (the service's environment). */
  readonly live: boolean
  /** Where the lines go (stdout by default). */
  readonly print?: (line: string) => Effect.Effect<void>
  /** The signing secret of the forwarded deliveries (default: one for this session). */
  readonly secret?: Redacted.Redacted<string> | undefined
  /** Only these event types are forwarded (default: every type). */
  readonly events?: ReadonlyArray<string> | undefined
}

/** A failure to reach or use the service (printed in one line by the CLI). */
export class ListenFailed extends Data.TaggedError("ListenFailed")<{ readonly message: string }> {}

const failed = (message: string) => new ListenFailed({ message })

interface EventItem {
  readonly id: string
  readonly event: string
  readonly data: unknown
}

const trimmed = (url: string) => url.replace(/\/+$/, "")

/** The service cannot be reached at `base`: says how to point listen at it. */
const unreachable = (base: string, error: unknown) =>
  failed(
    `cannot reach ${base}: ${error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error)} (is the service running? give its URL with --base, or set PORT and HOST as for start)`,
  )

/** A new listen signing secret. */
export const sessionSecret = (): Redacted.Redacted<string> =>
  Redacted.make(`whsec_${randomBytes(32).toString("base64url")}`)

/** The file keeping each partner's listen secret in a data directory. */
export const secretsFile = (dataDir: string): string => join(dataDir, "listen-secrets.json")

/**
 * The listen secret of partner `clientId` in `dataDir`: the one kept there, else a new one, kept (the file is
 * readable by its owner only). Stable across sessions, so a receiver configured once keeps verifying.
 */
export const stableSecret = (dataDir: string, clientId: string): Redacted.Redacted<string> => {
  const file = secretsFile(dataDir)
  let kept: Record<string, unknown> = {}
  if (existsSync(file)) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(file, "utf8"))
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
        kept = parsed as Record<string, unknown>
    } catch {
      kept = {}
    }
  }
  const existing = kept[clientId]
  if (typeof existing === "string" && existing.length > 0) return Redacted.make(existing)
  const secret = sessionSecret()
  mkdirSync(dataDir, { recursive: true })
  writeFileSync(file, `${JSON.stringify({ ...kept, [clientId]: Redacted.value(secret) }, null, 2)}\n`, { mode: 0o600 })
  chmodSync(file, 0o600)
  return secret
}

/** The forwarded request of one event: its body and headers, signed with `secret`. */
export const delivery = (item: EventItem, live: boolean, secret: Redacted.Redacted<string>, unixSeconds: number) => {
  const body = JSON.stringify({ Live: live, Event: item.event, Data: item.data })
  return {
    body,
    headers: {
      "content-type": "application/json",
      "user-agent": "partnerpay-listen/1",
      "x-partnerpay-event-id": item.id,
      "x-partnerpay-delivery-attempt": "1",
      ...signatureHeaders(body, item.id, unixSeconds, [secret]),
    },
  }
}

/** Runs until interrupted: prints the secret, then forwards every new event. */
export const listen = Traced.fn("Listen.listen")(function* (options: ListenOptions) {
  const print = options.print ?? ((line: string) => Console.log(line))
  const base = trimmed(options.base)
  let token = options.token
  const authenticate = Effect.tryPromise({
    try: async () => {
      const credentials = options.credentials
      if (credentials === undefined) throw failed("the token was refused (401): get a new one")
      const answer = await fetch(`${base}/auth/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          ClientId: credentials.clientId,
          ClientSecret: Redacted.value(credentials.clientSecret),
        }),
      })
      if (answer.status !== 200) throw failed(`POST ${base}/auth/token answered ${answer.status}`)
      const body = (await answer.json()) as { AccessToken: string }
      return Redacted.make(body.AccessToken)
    },
    catch: (error) => (error instanceof ListenFailed ? error : unreachable(base, error)),
  })
  const get = Traced.fn("Listen.get")(function* (path: string) {
    if (token === undefined) token = yield* authenticate
    const read = (bearer: Redacted.Redacted<string>) =>
      Effect.tryPromise({
        try: () => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${Redacted.value(bearer)}` } }),
        catch: (error) => unreachable(base, error),
      })
    let answer = yield* read(token)
    if (answer.status === 401) {
      token = yield* authenticate
      answer = yield* read(token)
    }
    if (answer.status !== 200) return yield* failed(`GET ${base}${path} answered ${answer.status}`)
    return (yield* Effect.promise(() => answer.json())) as { data: ReadonlyArray<EventItem>; hasMore: boolean }
  })

  // Only what happens from now on: the newest event so far is where reading starts.
  const newest = yield* get("/Events?limit=1")
  let cursor: string | undefined = newest.data[0]?.id
  const secret = options.secret ?? sessionSecret()
  const events = options.events
  yield* print(
    `Ready! Forwarding your events${events === undefined ? "" : ` of type ${events.join(", ")}`} to ${options.forwardTo}`,
  )
  yield* print(`Your webhook signing secret is ${Redacted.value(secret)}`)

  const forward = Traced.fn("Listen.forward")(function* (item: EventItem) {
    const request = delivery(item, options.live, secret, Math.floor(Date.now() / 1000))
    const status = yield* Effect.tryPromise(() =>
      fetch(options.forwardTo, { method: "POST", headers: request.headers, body: request.body }).then(
        async (answer) => {
          await answer.arrayBuffer()
          return String(answer.status)
        },
      ),
    ).pipe(Effect.orElseSucceed(() => "no answer"))
    yield* print(
      `${new Date().toISOString()}  --> ${item.event} [${item.id}]  <-- [${status}] POST ${options.forwardTo}`,
    )
  })

  const poll = Effect.gen(function* () {
    for (;;) {
      const after = cursor === undefined ? "" : `&startingAfter=${encodeURIComponent(cursor)}`
      const page = yield* get(`/Events?order=asc&limit=100${after}`)
      for (const item of page.data) {
        if (events === undefined || events.includes(item.event)) yield* forward(item)
        cursor = item.id
      }
      if (!page.hasMore) return
    }
  })
  return yield* poll.pipe(Effect.repeat(Schedule.spaced(options.pollMillis)), Effect.asVoid)
})

export interface TriggerOptions {
  readonly base: string
  readonly credentials?: { readonly clientId: string; readonly clientSecret: Redacted.Redacted<string> } | undefined
  readonly token?: Redacted.Redacted<string> | undefined
  /** The webhook Event to record a sample of. */
  readonly event: string
}

/**
 * `partnerpay trigger <EVENT>` (sandbox): asks the service to record a sample event of that type for the
 * partner (`POST /Sandbox/Webhooks/Test`); `listen` forwards it and a configured endpoint receives it.
 * Answers the recorded event's id.
 */
export const trigger = Traced.fn("Listen.trigger")(function* (options: TriggerOptions) {
  const base = trimmed(options.base)
  const answer = yield* Effect.tryPromise({
    try: async () => {
      let bearer = options.token === undefined ? undefined : Redacted.value(options.token)
      if (bearer === undefined) {
        const credentials = options.credentials
        if (credentials === undefined) throw failed("no partner credentials")
        const issued = await fetch(`${base}/auth/token`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            ClientId: credentials.clientId,
            ClientSecret: Redacted.value(credentials.clientSecret),
          }),
        })
        if (issued.status !== 200) throw failed(`POST ${base}/auth/token answered ${issued.status}`)
        bearer = ((await issued.json()) as { AccessToken: string }).AccessToken
      }
      const response = await fetch(`${base}/Sandbox/Webhooks/Test`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
        body: JSON.stringify({ type: options.event }),
      })
      const text = await response.text()
      if (response.status !== 202) {
        const detail = (() => {
          try {
            return (JSON.parse(text) as { detail?: string }).detail ?? text
          } catch {
            return text
          }
        })()
        throw failed(`POST ${base}/Sandbox/Webhooks/Test answered ${response.status}: ${detail}`)
      }
      return JSON.parse(text) as { id: string; event: string }
    },
    catch: (error) => (error instanceof ListenFailed ? error : unreachable(base, error)),
  })
  return answer
})
