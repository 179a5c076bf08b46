/**
 * The outermost middleware of every endpoint: it gives each request its
 * correlation id (`X-Correlation-Id` response header, problem `instance`; the
 * server's id for the request when it keeps a `RequestRecord`, which also gets
 * the route template)
 * and turns every failure into an `application/problem+json` response:
 *
 * - request decoding failures (malformed JSON, wrong types, missing fields in
 *   body, path, query or headers) -> 400 BAD_REQUEST with one `errors` entry per field;
 * - unsupported content type -> 415, oversized body -> 413;
 * - problems raised by handlers and middleware -> as declared, plus protocol
 *   headers (`WWW-Authenticate: Bearer` on 401, `Retry-After` on 429);
 * - domain errors a handler forgot to map -> their problem (`Problem.fromDomain`);
 * - anything else (defects, response encoding failures) -> logged with the
 *   correlation id, answered as 500 INTERNAL_ERROR without internals.
 *
 * It must be applied last (`Api.middleware(ProblemHandling)` after every
 * `.add(group)`) so that it wraps the security middleware too.
 */
import { Cause, Context, Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { HttpApiError, HttpApiMiddleware } from "effect/http-api"
import * as Problem from "./Problem.ts"
import { CurrentRequestRecord } from "./RequestRecord.ts"

export class ProblemHandling extends HttpApiMiddleware.Service<ProblemHandling>()(
  "partnerpay/adapters-http/ProblemHandling",
  {
    error: [
      Problem.BadRequest,
      Problem.PayloadTooLarge,
      Problem.UnsupportedMediaType,
      Problem.TooManyRequests,
      Problem.InternalError,
    ],
  },
) {
  static readonly layer: Layer.Layer<ProblemHandling> = Layer.succeed(ProblemHandling, (httpEffect) =>
    Effect.withFiber((fiber) => {
      // The request's one id and, for its access line, the route template (RequestRecord.ts).
      const record = fiber.getRef(CurrentRequestRecord)
      const correlationId = record?.correlationId ?? crypto.randomUUID()
      if (record !== undefined)
        record.route = Context.getOrUndefined(fiber.context, HttpRouter.RouteContext)?.route.path
      // One continuation per request: a plain response only gets its header (the common case).
      return Effect.matchCauseEffect(httpEffect, {
        onSuccess: (response) =>
          response.status === 413 || response.status === 415
            ? normalizeResponse(response, correlationId)
            : Effect.succeed(HttpServerResponse.setHeader(response, "x-correlation-id", correlationId)),
        onFailure: (cause) => failureResponse(cause, correlationId),
      })
    }),
  )
}

/** Responses the HttpApi layer builds itself that are not problems yet. */
const normalizeResponse = (
  response: HttpServerResponse.HttpServerResponse,
  correlationId: string,
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  if (response.status === 415) {
    return Problem.toResponse(
      new Problem.UnsupportedMediaType({
        detail: "Send the request body as application/json.",
        code: "UNSUPPORTED_MEDIA_TYPE",
      }),
      correlationId,
    )
  }
  if (response.status === 413) return Problem.toResponse(payloadTooLarge(), correlationId)
  return Effect.succeed(response)
}

const payloadTooLarge = () =>
  new Problem.PayloadTooLarge({ detail: "The request body is too large.", code: "PAYLOAD_TOO_LARGE" })

/** The problem response for a failed request. */
export const failureResponse = (
  cause: Cause.Cause<unknown>,
  correlationId: string,
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, never> => {
  if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
  const failure = Problem.squashCause(cause)
  if (Option.isSome(failure)) {
    const error = failure.value
    if (Problem.isProblem(error)) return Problem.toResponse(error, correlationId)
    if (Problem.isDomainFailure(error)) return Problem.toResponse(Problem.fromDomain(error), correlationId)
    if (HttpApiError.HttpApiSchemaError.is(error) && error.kind !== "Body" && error.kind !== "ResponseHeaders") {
      return Problem.toResponse(Problem.badRequest(error.kind, error.cause.issue), correlationId)
    }
    if (HttpApiError.HttpApiPayloadTooLarge.is(error)) return Problem.toResponse(payloadTooLarge(), correlationId)
  }
  return Effect.logError("unexpected failure while handling a request", cause).pipe(
    Effect.annotateLogs({ correlationId }),
    Effect.andThen(Problem.toResponse(Problem.internalError(), correlationId)),
  )
}
