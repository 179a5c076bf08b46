/**
 * Every error the HTTP adapter answers with, as RFC 9457 problem details
 * (`application/problem+json`).
 *
 * Each problem has a `type`, the path of the served page documenting it
 * (`/docs/problems/{slug}`, a relative reference resolved against the request
 * URI, RFC 9457 §3.1.1; API versions before 2026-11-28 answer the identifier
 * `https://partnerpay.dev/problems/{slug}` instead, `ApiVersions.ts`), a
 * `title`, the HTTP `status`, a human `detail`, a stable machine `code`, and an
 * `instance` (`urn:uuid:<correlation id>`, also sent as `X-Correlation-Id`)
 * that the `ProblemHandling` middleware fills in. Validation problems add
 * `errors: [{ field, message }]`.
 *
 * Handlers map domain errors with `fromDomain` and declare `DomainProblems` on
 * their endpoints; anything else that escapes becomes a 500 with no internals.
 */
import { DomainError, EventStore } from "@partnerpay/domain"
import { type Cause, Effect, Option, Schema, SchemaIssue } from "effect"
import { HttpServerRespondable, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"

/**
 * The base of every problem `type`: the path of the served documentation pages (ProblemPages.ts), so a
 * type resolved against the URI of the request it answers dereferences to its page.
 */
export const typeBase = "/docs/problems/"

/** The base of the problem `type`s of API versions before 2026-11-28: an identifier that does not resolve. */
export const legacyTypeBase = "https://partnerpay.dev/problems/"

/** One refused input field: a dotted path (`owner.emailAddress`, `employees[1].emailAddress`) and why. */
export const FieldError = Schema.Struct({
  field: Schema.String,
  message: Schema.String,
})
export type FieldError = typeof FieldError.Type

const common = {
  detail: Schema.String,
  code: Schema.String,
  instance: Schema.optionalKey(Schema.String),
}

/** 400: the request cannot be decoded (malformed JSON, wrong types, missing fields in body, path or query). */
export class BadRequest extends HttpApiError.Problem<BadRequest>()(
  "BadRequest",
  { type: `${typeBase}bad-request`, status: 400, title: "Bad Request" },
  { ...common, errors: Schema.Array(FieldError) },
) {}

/** 401: missing, malformed, forged or expired bearer token, or wrong client credentials. */
export class Unauthorized extends HttpApiError.Problem<Unauthorized>()(
  "Unauthorized",
  { type: `${typeBase}unauthorized`, status: 401, title: "Unauthorized" },
  common,
) {}

/** 403: authenticated, but this kind of caller (partner or customer) may not use the operation. */
export class Forbidden extends HttpApiError.Problem<Forbidden>()(
  "Forbidden",
  { type: `${typeBase}forbidden`, status: 403, title: "Forbidden" },
  common,
) {}

/** 404: the addressed resource (or route) does not exist. */
export class ResourceNotFound extends HttpApiError.Problem<ResourceNotFound>()(
  "ResourceNotFound",
  { type: `${typeBase}not-found`, status: 404, title: "Not Found" },
  common,
) {}

/** 405: the path exists but is not served with this method; the response carries `Allow`. */
export class MethodNotAllowed extends HttpApiError.Problem<MethodNotAllowed>()(
  "MethodNotAllowed",
  { type: `${typeBase}method-not-allowed`, status: 405, title: "Method Not Allowed" },
  { ...common, allow: Schema.Array(Schema.String) },
) {}

/** 409: the resource to create already exists. */
export class AlreadyExistsProblem extends HttpApiError.Problem<AlreadyExistsProblem>()(
  "AlreadyExistsProblem",
  { type: `${typeBase}already-exists`, status: 409, title: "Already Exists" },
  common,
) {}

/** 409: the resource's current state forbids the operation. */
export class IllegalTransitionProblem extends HttpApiError.Problem<IllegalTransitionProblem>()(
  "IllegalTransitionProblem",
  { type: `${typeBase}illegal-transition`, status: 409, title: "Illegal State Transition" },
  { ...common, state: Schema.optionalKey(Schema.String) },
) {}

/** 409: another request changed the resource at the same time; retrying is safe. */
export class ConcurrentModification extends HttpApiError.Problem<ConcurrentModification>()(
  "ConcurrentModification",
  { type: `${typeBase}concurrent-modification`, status: 409, title: "Concurrent Modification" },
  common,
) {}

/** 413: the request body is larger than allowed. */
export class PayloadTooLarge extends HttpApiError.Problem<PayloadTooLarge>()(
  "PayloadTooLarge",
  { type: `${typeBase}payload-too-large`, status: 413, title: "Payload Too Large" },
  common,
) {}

/** 415: the request body has a content type the operation does not accept. */
export class UnsupportedMediaType extends HttpApiError.Problem<UnsupportedMediaType>()(
  "UnsupportedMediaType",
  { type: `${typeBase}unsupported-media-type`, status: 415, title: "Unsupported Media Type" },
  common,
) {}

/** 422: the request is well-formed but its values break validation rules; every bad field is listed. */
export class ValidationProblem extends HttpApiError.Problem<ValidationProblem>()(
  "ValidationProblem",
  { type: `${typeBase}validation`, status: 422, title: "Validation Failed" },
  { ...common, errors: Schema.Array(FieldError) },
) {}

/** 422: a business rule refuses the operation; `code` names the rule, `errors` the field it refuses (when one). */
export class RuleViolation extends HttpApiError.Problem<RuleViolation>()(
  "RuleViolation",
  { type: `${typeBase}rule-violated`, status: 422, title: "Business Rule Violated" },
  { ...common, errors: Schema.optionalKey(Schema.Array(FieldError)) },
) {}

/** 429: too many requests; the response carries `Retry-After` (seconds). */
export class TooManyRequests extends HttpApiError.Problem<TooManyRequests>()(
  "TooManyRequests",
  { type: `${typeBase}rate-limited`, status: 429, title: "Too Many Requests" },
  { ...common, retryAfterSeconds: Schema.Int },
) {}

/** 500: an unexpected failure; the body carries only the correlation id. */
export class InternalError extends HttpApiError.Problem<InternalError>()(
  "InternalError",
  { type: `${typeBase}internal`, status: 500, title: "Internal Server Error" },
  common,
) {}

/** 503: a dependency (event store, database) is unavailable; retry later. */
export class ServiceUnavailable extends HttpApiError.Problem<ServiceUnavailable>()(
  "ServiceUnavailable",
  { type: `${typeBase}unavailable`, status: 503, title: "Service Unavailable" },
  common,
) {}

/** Every problem class of the adapter. */
export const all = [
  BadRequest,
  Unauthorized,
  Forbidden,
  ResourceNotFound,
  MethodNotAllowed,
  AlreadyExistsProblem,
  IllegalTransitionProblem,
  ConcurrentModification,
  PayloadTooLarge,
  UnsupportedMediaType,
  ValidationProblem,
  RuleViolation,
  TooManyRequests,
  InternalError,
  ServiceUnavailable,
] as const

export type Problem = InstanceType<(typeof all)[number]>

export const isProblem = (u: unknown): u is Problem => all.some((C) => u instanceof C)

// ---------------------------------------------------------------------------
// Constructors

export const unauthorized = (detail = "A valid bearer token is required."): Unauthorized =>
  new Unauthorized({ detail, code: "UNAUTHORIZED" })

export const forbidden = (detail: string): Forbidden => new Forbidden({ detail, code: "FORBIDDEN" })

export const internalError = (): InternalError =>
  new InternalError({
    detail: "An unexpected error occurred. Quote the instance id when contacting support.",
    code: "INTERNAL_ERROR",
  })

export const routeNotFound = (): ResourceNotFound =>
  new ResourceNotFound({ detail: "No operation exists at this method and path.", code: "ROUTE_NOT_FOUND" })

export const methodNotAllowed = (method: string, allow: ReadonlyArray<string>): MethodNotAllowed =>
  new MethodNotAllowed({
    detail: `This path is not served with ${method}; it is served with ${allow.join(", ")}.`,
    code: "METHOD_NOT_ALLOWED",
    allow,
  })

export const tooManyRequests = (retryAfterSeconds: number): TooManyRequests =>
  new TooManyRequests({
    detail: `Too many requests; retry after ${retryAfterSeconds} seconds.`,
    code: "RATE_LIMITED",
    retryAfterSeconds,
  })

// ---------------------------------------------------------------------------
// Domain errors

/** The errors the domain (deciders, command handler, event store) can return. */
export type DomainFailure =
  | DomainError.ValidationFailed
  | DomainError.IllegalTransition
  | DomainError.RuleViolated
  | DomainError.NotFound
  | DomainError.AlreadyExists
  | EventStore.VersionConflict
  | EventStore.EventStoreUnavailable

/** The problems `fromDomain` produces: declare them as an endpoint's `error` when its handler uses `fromDomain`. */
export const DomainProblems = [
  ValidationProblem,
  IllegalTransitionProblem,
  RuleViolation,
  ResourceNotFound,
  AlreadyExistsProblem,
  ConcurrentModification,
  ServiceUnavailable,
] as const

export type DomainProblem = InstanceType<(typeof DomainProblems)[number]>

/** Maps a domain error to its problem; use as `Effect.mapError(Problem.fromDomain)` in handlers. */
export const fromDomain = (error: DomainFailure): DomainProblem => {
  switch (error._tag) {
    case "ValidationFailed":
      return new ValidationProblem({
        detail: `The request has ${error.issues.length} invalid field(s).`,
        code: "VALIDATION_FAILED",
        errors: error.issues.map(({ field, message }) => ({ field, message })),
      })
    case "IllegalTransition":
      return new IllegalTransitionProblem({
        detail: `${error.entity} is ${error.state}: ${error.reason}`,
        code: "ILLEGAL_TRANSITION",
        state: error.state,
      })
    case "RuleViolated":
      return new RuleViolation({
        detail: error.reason,
        code: error.code,
        ...(error.field === undefined ? {} : { errors: [{ field: error.field, message: error.reason }] }),
      })
    case "NotFound":
      return new ResourceNotFound({ detail: `${error.entity} not found.`, code: "NOT_FOUND" })
    case "AlreadyExists":
      return new AlreadyExistsProblem({ detail: `${error.entity} already exists.`, code: "ALREADY_EXISTS" })
    case "VersionConflict":
      return new ConcurrentModification({
        detail: "The resource was modified by another request; retry.",
        code: "CONCURRENT_MODIFICATION",
      })
    case "EventStoreUnavailable":
      return new ServiceUnavailable({
        detail: "The service is temporarily unavailable; retry later.",
        code: "SERVICE_UNAVAILABLE",
      })
  }
}

const domainErrorClasses = [
  DomainError.ValidationFailed,
  DomainError.IllegalTransition,
  DomainError.RuleViolated,
  DomainError.NotFound,
  DomainError.AlreadyExists,
  EventStore.VersionConflict,
  EventStore.EventStoreUnavailable,
] as const

export const isDomainFailure = (u: unknown): u is DomainFailure => domainErrorClasses.some((C) => u instanceof C)

/**
 * A handler group's one error mapping (the pipe of each handler's
 * `Effect.fn`): every domain failure becomes its problem; problems already
 * raised (a 403 from `requirePartner` / `requireCustomer`) pass through.
 */
export const domainProblems = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<A, Exclude<E, DomainFailure> | DomainProblem, R> =>
  Effect.mapError(effect, (error) =>
    isDomainFailure(error) ? fromDomain(error) : (error as Exclude<E, DomainFailure>),
  )

// ---------------------------------------------------------------------------
// Request decoding failures

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

const slotPrefix: Record<string, string | undefined> = {
  Params: "path",
  Query: "query",
  Headers: "header",
  Payload: undefined,
}

/** Schema's message for a body field the operation does not define (`onExcessProperty: "error"`, Api.ts). */
const excessProperty = "Expected no excess property"
/** What a client is told about such a field (also UnknownFields.ts). */
export const unknownField = "is not a field of this operation"

/** Schema's message for a required field that is absent: not a sentence a partner should read. */
const missingKey = "Missing key"
/** What a client is told instead. */
export const requiredField = "is required"

/** The article-led names of Schema's basic types, for `Expected <type>`. */
const typeNames: Record<string, string> = {
  string: "a string",
  number: "a number",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  bigint: "a whole number",
  null: "null",
}

/**
 * A partner's sentence for Schema's default wording: `Missing key` -> `is required`, an excess property ->
 * `is not a field of this operation`, `Expected string` -> `must be a string`, `Expected "a" | "b"` ->
 * `must be one of "a", "b"`; any other message (the hand-written ones) unchanged.
 */
export const partnerMessage = (message: string): string => {
  if (message === excessProperty) return unknownField
  if (message === missingKey) return requiredField
  if (!message.startsWith("Expected ")) return message
  const expected = message.slice("Expected ".length).replace(/, got [\s\S]*$/, "")
  if (Object.hasOwn(typeNames, expected)) return `must be ${typeNames[expected]}`
  if (expected.includes(" | ")) return `must be one of ${expected.split(" | ").join(", ")}`
  return `must be ${expected}`
}

/** `["owner", "emails", 1, "x"]` -> `owner.emails[1].x`. */
export const formatPath = (path: ReadonlyArray<PropertyKey>, prefix?: string): string => {
  let out = prefix ?? ""
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`
    else out += out === "" ? String(segment) : `.${String(segment)}`
  }
  return out === "" ? "body" : out
}

/** A request decoding failure of the given slot as a 400 problem with one entry per issue. */
export const badRequest = (kind: string, issue: SchemaIssue.Issue): BadRequest => {
  const prefix = slotPrefix[kind]
  const errors = formatIssues(issue).issues.map((i) => ({
    field: formatPath(
      (i.path ?? []).map((s) => (typeof s === "object" ? s.key : s)),
      prefix,
    ),
    message: partnerMessage(i.message),
  }))
  return new BadRequest({
    detail:
      errors.length === 1 ? "The request has an invalid value." : `The request has ${errors.length} invalid values.`,
    code: "BAD_REQUEST",
    errors,
  })
}

// ---------------------------------------------------------------------------
// Rendering

/** The `instance` of a problem answered to the request with this correlation id. */
export const instanceOf = (correlationId: string): string =>
  uuidFormat.test(correlationId) ? `urn:uuid:${correlationId}` : `urn:partnerpay:correlation:${correlationId}`

/** A UUID (any version); other correlation ids come from clients (`X-Correlation-Id`, `traceparent`). */
const uuidFormat = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/** Renders a problem as an `application/problem+json` response, with its instance and protocol headers. */
export const toResponse = (
  problem: Problem,
  correlationId: string,
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const withInstance =
    problem.instance === undefined
      ? // biome-ignore lint/suspicious/noExplicitAny: a copy through the problem's own class
        new (problem.constructor as any)({ ...problem, instance: instanceOf(correlationId) })
      : problem
  return HttpServerRespondable.toResponse(withInstance).pipe(
    Effect.map((response) => {
      let out = HttpServerResponse.setHeader(response, "x-correlation-id", correlationId)
      // The served page documenting the problem's type (ProblemPages.ts): `type` itself in the latest version.
      out = HttpServerResponse.setHeader(
        out,
        "link",
        `</docs/problems/${problem.type.slice(typeBase.length)}>; rel="help"`,
      )
      if (problem instanceof Unauthorized) out = HttpServerResponse.setHeader(out, "www-authenticate", "Bearer")
      if (problem instanceof MethodNotAllowed)
        out = HttpServerResponse.setHeader(out, "allow", problem.allow.join(", "))
      if (problem instanceof TooManyRequests)
        out = HttpServerResponse.setHeader(out, "retry-after", String(problem.retryAfterSeconds))
      // A dependency that timed out or is unavailable: the client retries in a second (issue 34).
      if (problem instanceof ServiceUnavailable && out.headers["retry-after"] === undefined)
        out = HttpServerResponse.setHeader(out, "retry-after", "1")
      return out
    }),
  )
}

/** Unwraps the first typed failure or defect of a cause (interruptions excluded). */
export const squashCause = (cause: Cause.Cause<unknown>): Option.Option<unknown> => {
  for (const reason of cause.reasons) {
    if (reason._tag === "Fail") return Option.some(reason.error)
    if (reason._tag === "Die") return Option.some(reason.defect)
  }
  return Option.none()
}
