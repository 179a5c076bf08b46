/**
 * The bearer-token security middleware (definition only; the server side is
 * `AuthenticationLive.ts`). Endpoints that use it get a `Caller` and document
 * the bearer scheme, 401 and 403 in OpenAPI.
 *
 * Handlers narrow the caller with `requirePartner` / `requireCustomer`, which
 * fail with a 403 problem for the other kind of caller; `presentedToken` is
 * the bearer token itself (for renewals, which carry its login time over).
 */
import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { Caller, type CustomerCaller, type PartnerCaller } from "./Caller.ts"
import * as Problem from "./Problem.ts"

export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: Caller }>()(
  "partnerpay/adapters-http/Authentication",
  {
    security: { bearer: HttpApiSecurity.bearer },
    error: [Problem.Unauthorized, Problem.Forbidden],
  },
) {}

/** The calling partner; 403 for a customer token. */
export const requirePartner: Effect.Effect<PartnerCaller, Problem.Forbidden, Caller> = Effect.gen(function* () {
  const caller = yield* Caller
  if (caller._tag === "Partner") return caller
  return yield* Problem.forbidden("This operation is for partners; a customer token was presented.")
})

/** The calling customer; 403 for a partner token. */
export const requireCustomer: Effect.Effect<CustomerCaller, Problem.Forbidden, Caller> = Effect.gen(function* () {
  const caller = yield* Caller
  if (caller._tag === "Customer") return caller
  return yield* Problem.forbidden("This operation is for customers; a partner token was presented.")
})

/** The bearer token of the current request ("" when there is none). */
export const presentedToken: Effect.Effect<string, never, HttpServerRequest.HttpServerRequest> = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) => {
    const authorization = request.headers.authorization
    const match = authorization === undefined ? null : /^bearer +(\S+)\s*$/i.exec(authorization)
    return match?.[1] ?? ""
  },
)
