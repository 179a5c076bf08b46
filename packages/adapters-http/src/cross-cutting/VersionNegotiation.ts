/**
 * API versions (`ApiVersions.ts`), the step after the caller is known: a `Partnerpay-Version`
 * header naming no version -> 400 naming the header; without it, the partner's pinned version
 * applies (`PinnedVersions`). Every answer carries `Partnerpay-Version`; an answer of an operation
 * changed since the caller's version is given in that version's shape, and so is every problem
 * answer (its `type`), even one made further out (an unknown route's 404) or refusing the header
 * itself (given in the caller's own version).
 */
import { Effect, Option } from "effect"
import { HttpBody, HttpEffect, HttpServerResponse } from "effect/http"
import * as ApiVersions from "./ApiVersions.ts"
import * as Problem from "./Problem.ts"
import { type App, type Handler, type Incoming, respond, type Step } from "./RequestSteps.ts"

const versionHeader = ApiVersions.header.toLowerCase()

/** 400 for a `Partnerpay-Version` that names no version. */
const unknownVersion = (named: string) =>
  new Problem.BadRequest({
    detail: `${ApiVersions.header} ${JSON.stringify(named.slice(0, 40))} is not a version of this API.`,
    code: "BAD_REQUEST",
    errors: [
      {
        field: `header.${ApiVersions.header}`,
        message: `must be one of ${ApiVersions.versions.map((v) => v.version).join(", ")}`,
      },
    ],
  })

/** A pre-response handler giving a problem answer in `version`'s shape (`ApiVersions.downgradeProblem`). */
const problemsIn =
  (version: string): HttpEffect.PreResponseHandler =>
  (_request, response) => {
    const body = response.body
    if (body._tag !== "Uint8Array" || !body.contentType.startsWith("application/problem+json"))
      return Effect.succeed(response)
    let problem: unknown
    try {
      problem = JSON.parse(new TextDecoder().decode(body.body))
    } catch {
      return Effect.succeed(response)
    }
    return Effect.succeed(
      HttpServerResponse.setBody(
        response,
        HttpBody.jsonUnsafe(ApiVersions.downgradeProblem(version, problem), body.contentType),
      ),
    )
  }

/** The pre-response handler naming `version` in `Partnerpay-Version`: one per version of the API, not one per request. */
const namingHandlers = new Map<string, HttpEffect.PreResponseHandler>()
const naming = (version: string): HttpEffect.PreResponseHandler => {
  let handler = namingHandlers.get(version)
  if (handler === undefined) {
    handler = (_request, response) =>
      Effect.succeed(HttpServerResponse.setHeader(response, ApiVersions.header, version))
    if (ApiVersions.isKnown(version)) namingHandlers.set(version, handler)
  }
  return handler
}

/** The step, reading partners' pinned versions from `pins`. */
export const step =
  (pins: ApiVersions.VersionPins): Step =>
  (next: Handler): Handler => {
    /** The caller's partner's pinned version; the latest for a caller without a valid token. */
    const ownVersion = (incoming: Incoming): Effect.Effect<string> =>
      Option.match(incoming.caller, {
        onNone: () => Effect.succeed(ApiVersions.latest),
        onSome: (c) => pins.versionOf(c.partnerId, ApiVersions.latest),
      })

    /** The version the caller asked for, else its partner's pinned one; undefined for a header naming none. */
    const versionOf = (incoming: Incoming): Effect.Effect<string | undefined> => {
      const named = incoming.request.headers[versionHeader]
      if (named !== undefined) return Effect.succeed(ApiVersions.isKnown(named) ? named : undefined)
      return ownVersion(incoming)
    }

    return Effect.fnUntraced(function* (incoming: Incoming) {
      const { request } = incoming
      const version = yield* versionOf(incoming)
      // Problems in the caller's version, whichever step answers them; a header naming none: its own version's.
      const problemVersion = version ?? (yield* ownVersion(incoming))
      if (ApiVersions.concernsProblems(problemVersion))
        yield* Effect.withFiber((fiber) => {
          HttpEffect.appendPreResponseHandlerUnsafe(fiber.context, problemsIn(problemVersion))
          return Effect.void
        })
      if (version === undefined) return yield* respond(unknownVersion(request.headers[versionHeader] ?? ""))
      yield* Effect.withFiber((fiber) => {
        HttpEffect.appendPreResponseHandlerUnsafe(fiber.context, naming(version))
        return Effect.void
      })
      // The answer, in the shape of `version` when an operation it concerns changed since.
      const response = yield* next(incoming)
      if (
        version === ApiVersions.latest ||
        response.body._tag !== "Uint8Array" ||
        !response.body.contentType.startsWith("application/json") ||
        !ApiVersions.concerns(version, request.method, incoming.path)
      )
        return response
      const body = JSON.parse(new TextDecoder().decode(response.body.body)) as unknown
      return HttpServerResponse.setBody(
        response,
        HttpBody.jsonUnsafe(ApiVersions.downgrade(version, request.method, incoming.path, body)),
      ) as HttpServerResponse.HttpServerResponse
    }) as (incoming: Incoming) => App
  }
