/**
 * The sandbox clock: lets a sandbox client move the service's notion of time
 * forward, so that a payment plan's next instalment, a KYB or settlement
 * delay, or an OTP expiry can be reached without waiting.
 *
 * One process-wide offset (milliseconds, only ever growing) is added to the
 * wall clock by a custom Effect `Clock` provided to the whole service (HTTP
 * handlers, use cases, workers): everything reading `Clock.currentTimeMillis`
 * or `DateTime.now` sees "now + offset". Consequences, on purpose:
 * - events, read models, due dates, the plan scheduler's "today", KYB and
 *   settlement delays, OTP expiry and the idempotency-key retention all follow
 *   the sandbox clock;
 * - access tokens too (issued and verified against the same clock): advancing
 *   by more than the token lifetime (3600 s) expires every token, get a new one.
 * Not affected: `Effect.sleep`, timeouts and polling intervals (they wait real
 * time), and the webhook dispatcher (it schedules retries with the database
 * clock, so it runs on the real clock).
 *
 * The offset is held in memory only: it is not persisted, a restart goes back
 * to real time (events already recorded keep their future instants), and
 * with several instances each has its own offset. Acceptable for a sandbox.
 *
 * HTTP (sandbox only; in production the paths do not exist: 404), partner
 * token required (a customer token: 403), not part of the OpenAPI document:
 * - `GET /Sandbox/Clock` -> `{ now, offsetSeconds }`
 * - `POST /Sandbox/Clock/Advance` with `{ "seconds": n }` or `{ "days": n }`
 *   (exactly one; a whole number, 1 .. 400 days) -> `{ now, offsetSeconds }`.
 */
import { Problem, RequestRecord, Tokens } from "@partnerpay/adapters-http"
import type { Ids } from "@partnerpay/domain"
import { Clock, Context, type Duration, Effect, Layer, Option } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"

/** Largest single advance: 400 days. */
export const maxAdvanceSeconds = 400 * 24 * 60 * 60

export class SandboxClock extends Context.Service<
  SandboxClock,
  {
    /** How far ahead of the wall clock the service runs, in milliseconds. */
    readonly offsetMillis: Effect.Effect<number>
    /** Moves time forward (millis > 0); answers the new offset. */
    readonly advance: (millis: number) => Effect.Effect<number>
    /** The `Clock` that adds the offset to the wall clock. */
    readonly clock: Clock.Clock
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

/** The real clock (Effect's default), e.g. for a worker that must not follow the sandbox clock. */
export const realClock: Clock.Clock = Clock.Clock.defaultValue()

/** A fresh sandbox clock starting at offset 0. */
export const make = (base: Clock.Clock = realClock): SandboxClock["Service"] => {
  let offset = 0
  return SandboxClock.of({
    offsetMillis: Effect.sync(() => offset),
    advance: (millis) =>
      Effect.sync(() => {
        offset += Math.max(0, Math.trunc(millis))
        return offset
      }),
    clock: offsetClock(base, () => offset),
  })
}

/**
 * The `SandboxClock` service and, in the same context, Effect's `Clock`
 * replaced by its offset clock. Provide it to the whole service.
 */
export const layer = (service: SandboxClock["Service"] = make()): Layer.Layer<SandboxClock> =>
  Layer.merge(Layer.succeed(SandboxClock, service), Layer.succeed(Clock.Clock, service.clock))

/** Makes a worker (or any layer) run on the real clock whatever clock surrounds it. */
export const onRealClock = <A, E, R>(self: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.provide(self, Layer.succeed(Clock.Clock, realClock))

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
  tokens: Tokens["Service"],
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

/** `GET /Sandbox/Clock` and `POST /Sandbox/Clock/Advance` (sandbox only: add this layer in the sandbox). */
export const routes: Layer.Layer<never, never, HttpRouter.HttpRouter | Tokens | SandboxClock> = HttpRouter.use(
  Effect.fnUntraced(function* (router) {
    const tokens = yield* Tokens
    const sandbox = yield* SandboxClock
    const answer = Effect.gen(function* () {
      const offset = yield* sandbox.offsetMillis
      return json({
        now: new Date(sandbox.clock.currentTimeMillisUnsafe()).toISOString(),
        offsetSeconds: Math.floor(offset / 1000),
      })
    })
    yield* router.add("GET", "/Sandbox/Clock", (request) => asPartner(tokens, request, () => answer))
    yield* router.add("POST", "/Sandbox/Clock/Advance", (request) =>
      asPartner(tokens, request, () =>
        Effect.gen(function* () {
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
          yield* sandbox.advance(parsed.seconds * 1000)
          yield* Effect.logInfo("sandbox clock advanced", { seconds: parsed.seconds })
          return yield* answer
        }).pipe(Effect.catch(problem)),
      ),
    )
  }),
)
