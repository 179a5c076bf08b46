/**
 * The sandbox clocks: each partner has its own sandbox time (as a payment
 * sandbox's test clocks), which `POST /Sandbox/Clock/Advance` moves forward
 * so that a payment plan's next instalment, a due date, a KYB or settlement
 * delay, or an OTP expiry can be reached without waiting. Moving one
 * partner's time never moves another's.
 *
 * Each partner's offset (milliseconds, only ever growing) is stored in the
 * database (`sandbox_clocks`, migration 0013; PgSandboxClocks.ts), moved by
 * an atomic increment, and kept in memory, so it survives a restart. With
 * several instances, each reads the stored offsets again every
 * `refreshMillis` (2 s): an advance made through one instance reaches the
 * others within that bound (and at once on the instance that made it).
 *
 * Where the partner's time applies (a `Clock` running "real time + offset",
 * provided with `within(partnerId, effect)`; everything inside reading
 * `Clock.currentTimeMillis` or `DateTime.now` sees it):
 * - a request with a bearer token runs on the clock of the token's partner
 *   (`requestClock`, from the token's unverified partner claim: only the
 *   clock is chosen from it, the token is then verified against that clock,
 *   so the partner's tokens expire on the partner's time);
 * - tokens are issued and renewed on their partner's clock (`partnerTokens`),
 *   whatever the request (`POST /auth/token` has no bearer yet);
 * - the workers look for work up to the furthest-ahead partner's time
 *   (`latestMillis`), keep what is due on its own partner's time and do it on
 *   that partner's clock (plans, autopay, reminders, KYB, settlement).
 * Not affected: `Effect.sleep`, timeouts and polling intervals (real time),
 * requests without a token, and the webhook dispatcher (database clock).
 *
 * Production has no sandbox clocks (`none`): nothing is looked up, `within`
 * returns the effect unchanged.
 *
 * HTTP (sandbox only; in production the paths do not exist: 404), partner
 * token required (a customer token: 403), not part of the OpenAPI document:
 * - `GET /Sandbox/Clock` -> `{ now, offsetSeconds }` of the caller's partner
 * - `POST /Sandbox/Clock/Advance` with `{ "seconds": n }` or `{ "days": n }`
 *   (exactly one; a whole number, 1 .. 400 days) -> `{ now, offsetSeconds }`.
 * - `POST /Sandbox/Clock/Reset` (no body) -> `{ now, offsetSeconds: 0 }`: the
 *   partner's time is real time again, a new epoch of its clock (migration
 *   0060): objects created afterwards are dated in real time; what was
 *   scheduled on the advanced time (instalments, due dates, reminders,
 *   settlements) stays dated as it was and happens when real time reaches it
 *   (docs/api/sandbox.md).
 */

import { Problem, RequestRecord, Tokens } from "@partnerpay/adapters-http"
import { PgSandboxClocks } from "@partnerpay/adapters-pg"
import type { EventStore, Ids } from "@partnerpay/domain"
import { Traced } from "@partnerpay/domain"
import { Clock, Context, type Duration, Effect, Layer, Option, Schedule, Semaphore } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql/SqlClient"

/** Largest single advance: 400 days. */
export const maxAdvanceSeconds = 400 * 24 * 60 * 60

export class SandboxClock extends Context.Service<
  SandboxClock,
  {
    /** How far ahead of real time the partner's sandbox runs, in milliseconds (0 when it never advanced). */
    readonly offsetOf: (partnerId: string) => number
    /** Brings the partner's time back to real time (a new epoch of its clock), stored; answers 0. */
    readonly reset: (partnerId: Ids.PartnerId) => Effect.Effect<number, EventStore.EventStoreUnavailable>
    /** Moves the partner's time forward (millis > 0), stored; answers the partner's new offset. */
    readonly advance: (
      partnerId: Ids.PartnerId,
      millis: number,
    ) => Effect.Effect<number, EventStore.EventStoreUnavailable>
    /** The partner's clock (real time plus its offset). */
    readonly clockFor: (partnerId: string) => Clock.Clock
    /** Runs `self` on the partner's clock (unchanged without a partner, and always in production). */
    readonly within: <A, E, R>(partnerId: string | undefined, self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /** The time of the furthest-ahead partner: how far the workers look for due work. */
    readonly latestMillis: Effect.Effect<number>
  }
>()("partnerpay/app/SandboxClock") {}

/** A `Clock` running `offset()` milliseconds ahead of `base` (sleeping and monotonic time are the base's). */
export const offsetClock = (base: Clock.Clock, offset: () => number): Clock.Clock => {
  const millis = () => base.currentTimeMillisUnsafe() + offset()
  const nanos = () => base.currentTimeNanosUnsafe() + BigInt(offset()) * 1_000_000n
  return {
    currentTimeMillisUnsafe: millis,
    currentTimeMillis: Effect.sync(millis),
    currentTimeNanosUnsafe: nanos,
    currentTimeNanos: Effect.sync(nanos),
    monotonicTimeNanosUnsafe: () => base.monotonicTimeNanosUnsafe(),
    monotonicTimeNanos: base.monotonicTimeNanos,
    sleep: (duration: Duration.Duration) => base.sleep(duration),
  }
}

/**
 * The real clock (Effect's default, the very instance a fiber reads when no clock is provided), e.g. for
 * a worker that must not follow the sandbox clock.
 */
export const realClock: Clock.Clock = Context.get(Context.empty(), Clock.Clock)

/** How often an instance reads the stored offsets again (the bound on an advance made elsewhere). */
export const refreshMillis = 2_000

/** Sandbox clocks, and how they learn an offset stored by another instance. */
export type Clocks = SandboxClock["Service"] & {
  /**
   * An offset read from the store: kept if it is of a newer epoch (a reset), or of the same epoch and ahead
   * of the one known (within an epoch offsets only grow).
   */
  readonly learn: (partnerId: string, offsetMillis: number, epoch?: number) => void
}

/** What the store answers after an advance or a reset. */
export interface StoredOffset {
  readonly offsetMillis: number
  readonly epoch: number
}

/** Where the offsets are kept (the database; in memory by default). */
export interface OffsetStore {
  readonly advance: (partnerId: string, millis: number) => Effect.Effect<StoredOffset, EventStore.EventStoreUnavailable>
  readonly reset: (partnerId: string) => Effect.Effect<StoredOffset, EventStore.EventStoreUnavailable>
}

/**
 * Sandbox clocks over `base` (the real clock), starting from `initial`
 * offsets; `store` moves a partner's stored offset forward by an advance and
 * answers the stored result, which then applies (the in-memory default adds).
 */
export const make = (
  base: Clock.Clock = realClock,
  initial: Iterable<readonly [string, number] | readonly [string, number, number]> = [],
  store?: OffsetStore,
): Clocks => {
  const offsets = new Map<string, number>()
  const epochs = new Map<string, number>()
  for (const [partnerId, offset, epoch] of initial) {
    offsets.set(partnerId, offset)
    epochs.set(partnerId, epoch ?? 0)
  }
  const clocks = new Map<string, Clock.Clock>()
  const offsetOf = (partnerId: string) => offsets.get(partnerId) ?? 0
  const epochOf = (partnerId: string) => epochs.get(partnerId) ?? 0
  // One advance at a time: two at once would both start from the same offset.
  const advancing = Semaphore.makeUnsafe(1)
  // Only partners that advanced are cached: any token can name any partner (the claim is read unverified).
  const clockFor = (partnerId: string): Clock.Clock => {
    const cached = clocks.get(partnerId)
    if (cached !== undefined) return cached
    const clock = offsetClock(base, () => offsetOf(partnerId))
    if (offsets.has(partnerId)) clocks.set(partnerId, clock)
    return clock
  }
  const learn = (partnerId: string, offsetMillis: number, epoch: number = epochOf(partnerId)) => {
    if (epoch > epochOf(partnerId) || (epoch === epochOf(partnerId) && offsetMillis > offsetOf(partnerId))) {
      offsets.set(partnerId, offsetMillis)
      epochs.set(partnerId, epoch)
    }
  }
  return {
    ...SandboxClock.of({
      offsetOf,
      advance: (partnerId, millis) =>
        advancing.withPermit(
          Effect.suspend(() => {
            const step = Math.max(0, Math.trunc(millis))
            const stored =
              store === undefined
                ? Effect.succeed({ offsetMillis: offsetOf(partnerId) + step, epoch: epochOf(partnerId) })
                : store.advance(partnerId, step)
            return stored.pipe(
              Effect.map((next) => {
                learn(partnerId, next.offsetMillis, next.epoch)
                return offsetOf(partnerId)
              }),
            )
          }),
        ),
      reset: (partnerId) =>
        advancing.withPermit(
          Effect.suspend(() => {
            const stored =
              store === undefined
                ? Effect.succeed({ offsetMillis: 0, epoch: epochOf(partnerId) + 1 })
                : store.reset(partnerId)
            return stored.pipe(
              Effect.map((next) => {
                learn(partnerId, next.offsetMillis, next.epoch)
                return offsetOf(partnerId)
              }),
            )
          }),
        ),
      clockFor,
      // A partner that never advanced runs on the base clock itself (no clock made per request), and a
      // fiber already on the wanted clock gets no second overlay (a request's token is verified on it).
      within: (partnerId, self) =>
        partnerId === undefined
          ? self
          : offsets.has(partnerId)
            ? Effect.provideService(self, Clock.Clock, clockFor(partnerId))
            : Effect.withFiber((fiber) =>
                fiber.getRef(Clock.Clock) === base ? self : Effect.provideService(self, Clock.Clock, base),
              ),
      latestMillis: Effect.sync(() => base.currentTimeMillisUnsafe() + Math.max(0, ...offsets.values())),
    }),
    learn,
  }
}

/** Production: no sandbox time; every effect runs on the surrounding clock. */
export const none: SandboxClock["Service"] = SandboxClock.of({
  offsetOf: () => 0,
  advance: () => Effect.succeed(0),
  reset: () => Effect.succeed(0),
  clockFor: () => Clock.Clock.defaultValue(),
  within: (_, self) => self,
  latestMillis: Clock.currentTimeMillis,
})

/** The service's sandbox clocks, or `none` where none is provided (workers run without one in tests). */
export const current: Effect.Effect<SandboxClock["Service"]> = Effect.map(
  Effect.serviceOption(SandboxClock),
  Option.getOrElse(() => none),
)

/** The partner's time now, in milliseconds (the surrounding clock's without sandbox clocks). */
export const nowFor = (clocks: SandboxClock["Service"], partnerId: string): Effect.Effect<number> =>
  clocks.within(partnerId, Clock.currentTimeMillis)

/**
 * The rows due on their own partner's time (`sort_key`, an ISO instant, at
 * least `delayMillis` before the partner's now), grouped by partner in order.
 */
export const duePerPartner = Traced.fn("SandboxClock.duePerPartner")(function* <
  Row extends { readonly partner_id: string; readonly sort_key: string },
>(
  clocks: SandboxClock["Service"],
  rows: ReadonlyArray<Row>,
  delayMillis: number,
): Effect.fn.Return<ReadonlyArray<readonly [string, ReadonlyArray<Row>]>> {
  const groups = new Map<string, Array<Row>>()
  for (const row of rows) {
    const cutoff = new Date((yield* nowFor(clocks, row.partner_id)) - delayMillis).toISOString()
    if (row.sort_key > cutoff) continue
    const group = groups.get(row.partner_id)
    if (group === undefined) groups.set(row.partner_id, [row])
    else group.push(row)
  }
  return [...groups.entries()]
})

/** Sandbox clocks with the given service (tests), or none. */
export const layer = (service: SandboxClock["Service"] = make()): Layer.Layer<SandboxClock> =>
  Layer.succeed(SandboxClock, service)

/**
 * The sandbox: the partners' offsets stored in the database, loaded at start and read again every
 * `refreshMillis` (what other instances advanced; a failed read is retried at the next round).
 */
export const layerStored: Layer.Layer<SandboxClock, never, SqlClient> = Layer.effect(
  SandboxClock,
  Effect.gen(function* () {
    const sql = yield* SqlClient
    const stored = yield* Effect.orDie(PgSandboxClocks.loadAll)
    const clocks = make(
      realClock,
      stored.map((row) => [row.partnerId, row.offsetMillis, row.epoch] as const),
      {
        advance: (partnerId, millis) =>
          Effect.provideService(PgSandboxClocks.advance(partnerId, millis), SqlClient, sql),
        reset: (partnerId) => Effect.provideService(PgSandboxClocks.reset(partnerId), SqlClient, sql),
      },
    )
    yield* PgSandboxClocks.loadAll.pipe(
      Effect.tap((rows) =>
        Effect.sync(() => {
          for (const row of rows) clocks.learn(row.partnerId, row.offsetMillis, row.epoch)
        }),
      ),
      Effect.catch((error) => Effect.logDebug("sandbox clocks refresh failed", error)),
      Effect.provideService(SqlClient, sql),
      Effect.repeat(Schedule.spaced(refreshMillis)),
      Effect.forkScoped,
    )
    return clocks
  }),
)

/** Makes a worker (or any layer) run on the real clock whatever clock surrounds it. */
export const onRealClock = <A, E, R>(self: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.provide(self, Layer.succeed(Clock.Clock, realClock))

/** Recent tokens' partner claims: a request reads its token's claim twice (clock, then verification). */
const claims = new Map<string, string | undefined>()
const claimCacheSize = 1024

/** The partner a bearer token names (its `sub` for a partner token, `pid` for a customer token), unverified. */
export const partnerClaimOf = (token: string): string | undefined => {
  if (claims.has(token)) return claims.get(token)
  const claim = readPartnerClaim(token)
  if (claims.size >= claimCacheSize) claims.clear()
  claims.set(token, claim)
  return claim
}

const readPartnerClaim = (token: string): string | undefined => {
  const payload = token.split(".")[1]
  if (payload === undefined || payload.length > 4096) return undefined
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>
    const partner = claims.scope === "partner" ? claims.sub : claims.pid
    return typeof partner === "string" ? partner : undefined
  } catch {
    return undefined
  }
}

/**
 * HTTP middleware (of every server, a no-op without `SandboxClock`): the request runs on the clock of its bearer token's
 * partner (chosen from the unverified claim; the token is then verified on
 * that clock, so an advanced partner's tokens expire on its time).
 */
export const requestClock = <E, R>(
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.withFiber((fiber) => {
    const clocks = Context.getOrUndefined(fiber.context, SandboxClock)
    if (clocks === undefined || clocks === none) return httpEffect
    const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "")
    return clocks.within(match === null ? undefined : partnerClaimOf(match[1]!), httpEffect)
  })

/** Tokens issued, renewed and verified on their partner's clock. */
export const partnerTokens: Layer.Layer<Tokens.Tokens, never, Tokens.Tokens | SandboxClock> = Layer.effect(
  Tokens.Tokens,
  Effect.gen(function* () {
    const tokens = yield* Tokens.Tokens
    const clocks = yield* SandboxClock
    return Tokens.Tokens.of({
      issue: (caller) => clocks.within(caller.partnerId, tokens.issue(caller)),
      verify: (token) => clocks.within(partnerClaimOf(token), tokens.verify(token)),
      renew: (token) => clocks.within(partnerClaimOf(token), tokens.renew(token)),
      revokeAll: tokens.revokeAll,
    })
  }),
)

// HTTP

export type AdvanceRequest = { readonly seconds: number } | { readonly days: number }

/** Validates an advance request body; the seconds to advance, or every bad field. */
export const parseAdvance = (body: unknown): { seconds: number } | { errors: Array<Problem.FieldError> } => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { errors: [{ field: "", message: 'must be an object: { "seconds": n } or { "days": n }' }] }
  }
  const record = body as Record<string, unknown>
  const errors: Array<Problem.FieldError> = []
  for (const key of Object.keys(record)) {
    if (key !== "seconds" && key !== "days") errors.push({ field: key, message: "is not a known field" })
  }
  const given = (["seconds", "days"] as const).filter((key) => record[key] !== undefined)
  if (given.length !== 1) {
    const message = given.length === 0 ? "one of seconds or days is required" : "give seconds or days, not both"
    errors.push({ field: "seconds", message }, { field: "days", message })
    return { errors }
  }
  const field = given[0]!
  const value = record[field]
  const unit = field === "days" ? 86_400 : 1
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    errors.push({ field, message: "must be a whole number greater than zero" })
  } else if (value * unit > maxAdvanceSeconds) {
    errors.push({ field, message: `must be at most ${maxAdvanceSeconds / unit} (400 days)` })
  }
  return errors.length > 0 ? { errors } : { seconds: (value as number) * unit }
}

const json = (body: unknown) => HttpServerResponse.jsonUnsafe(body)

/** Renders a problem with the request's correlation id (these routes are outside the API's ProblemHandling). */
export const problem = (value: Problem.Problem) =>
  Effect.withFiber((fiber) => Problem.toResponse(value, RequestRecord.correlationIdOf(fiber)))

const bearerOf = (request: HttpServerRequest.HttpServerRequest): string => {
  const header = request.headers.authorization ?? ""
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  return match === null ? "" : match[1]!
}

/** Runs `then` with the partner a bearer token proves; a 401 problem without one, 403 for a customer token. */
export const asPartner = (
  tokens: Tokens.Tokens["Service"],
  request: HttpServerRequest.HttpServerRequest,
  then: (partnerId: Ids.PartnerId) => Effect.Effect<HttpServerResponse.HttpServerResponse>,
) =>
  tokens.verify(bearerOf(request)).pipe(
    Effect.matchEffect({
      onFailure: () => problem(Problem.unauthorized()),
      onSuccess: (caller) =>
        caller._tag === "Partner"
          ? then(caller.partnerId)
          : problem(Problem.forbidden("Sandbox operations are partner operations; a customer token cannot use them.")),
    }),
  )

/** The JSON body, or a 400 problem. */
export const jsonBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.option(request.json).pipe(
    Effect.flatMap((body) =>
      Option.isSome(body)
        ? Effect.succeed(body.value as unknown)
        : Effect.fail(
            new Problem.BadRequest({
              detail: "The request body must be JSON.",
              code: "BAD_REQUEST",
              errors: [{ field: "", message: "is not valid JSON" }],
            }),
          ),
    ),
  )

/** `GET /Sandbox/Clock`, `POST /Sandbox/Clock/Advance` and `/Reset` (sandbox only: add this layer in the sandbox). */
export const routes: Layer.Layer<never, never, HttpRouter.HttpRouter | Tokens.Tokens | SandboxClock> = HttpRouter.use(
  Effect.fnUntraced(function* (router) {
    const tokens = yield* Tokens.Tokens
    const sandbox = yield* SandboxClock
    const answer = (partnerId: Ids.PartnerId) =>
      Effect.sync(() =>
        json({
          now: new Date(sandbox.clockFor(partnerId).currentTimeMillisUnsafe()).toISOString(),
          offsetSeconds: Math.floor(sandbox.offsetOf(partnerId) / 1000),
        }),
      )
    yield* router.add("GET", "/Sandbox/Clock", (request) => asPartner(tokens, request, answer))
    const advance = Traced.fn("SandboxClock.advance")(
      function* (request: HttpServerRequest.HttpServerRequest, partnerId: Ids.PartnerId) {
        const body = yield* jsonBody(request)
        const parsed = parseAdvance(body)
        if ("errors" in parsed) {
          return yield* problem(
            new Problem.ValidationProblem({
              detail: "The advance is not valid.",
              code: "VALIDATION_FAILED",
              errors: parsed.errors,
            }),
          )
        }
        yield* sandbox.advance(partnerId, parsed.seconds * 1000).pipe(Effect.mapError(Problem.fromDomain))
        yield* Effect.logInfo("sandbox clock advanced", { partnerId, seconds: parsed.seconds })
        return yield* answer(partnerId)
      },
      (effect) => effect.pipe(Effect.catch(problem)),
    )
    yield* router.add("POST", "/Sandbox/Clock/Advance", (request) =>
      asPartner(tokens, request, (partnerId) => advance(request, partnerId)),
    )
    const reset = Traced.fn("SandboxClock.reset")(
      function* (partnerId: Ids.PartnerId) {
        yield* sandbox.reset(partnerId).pipe(Effect.mapError(Problem.fromDomain))
        yield* Effect.logInfo("sandbox clock reset", { partnerId })
        return yield* answer(partnerId)
      },
      (effect) => effect.pipe(Effect.catch(problem)),
    )
    yield* router.add("POST", "/Sandbox/Clock/Reset", (request) => asPartner(tokens, request, reset))
  }),
)
