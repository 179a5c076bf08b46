/**
 * Authentication endpoints (interface sections 2.1 and 5).
 *
 * POST /auth/token exchanges a partner's ClientId and ClientSecret for a bearer
 * token (PascalCase fields, as the interface writes them); a wrong id and a
 * wrong secret get the same 401. Failed attempts are limited per ClientId and
 * per client address: over the limit, 429 with Retry-After before any check.
 * GET /Auth/ExchangeToken gives the bearer a fresh token for the same subject
 * and scope, never valid beyond 24 h after the original login; a revoked token
 * is 401.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"
import * as Problem from "../cross-cutting/Problem.ts"

const Credential = Schema.String.check(
  Schema.isMinLength(1, { message: "must not be empty" }),
  Schema.isMaxLength(256, { message: "must be at most 256 characters" }),
)

export const TokenRequest = Schema.Struct({
  ClientId: Credential,
  ClientSecret: Schema.RedactedFromValue(Credential),
})

export const TokenResponse = Schema.Struct({
  AccessToken: Schema.String,
  TokenType: Schema.Literal("Bearer"),
  ExpiresInSeconds: Schema.Int,
})

export const ExchangeTokenResponse = Schema.Struct({
  accessToken: Schema.String,
})

export class AuthApi extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("token", "/auth/token", {
      payload: TokenRequest,
      success: TokenResponse,
      error: [Problem.Unauthorized, Problem.TooManyRequests],
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Obtain an access token",
        description:
          "Exchanges the partner's ClientId and ClientSecret for a bearer token valid 3600 seconds. After repeated failures for a ClientId (10, then one every 6 s) or from an address (30, then one every 2 s) the answer is 429 with Retry-After.",
      }),
    ),
    HttpApiEndpoint.get("exchangeToken", "/Auth/ExchangeToken", {
      success: ExchangeTokenResponse,
      error: Problem.Unauthorized,
    })
      .middleware(Authentication)
      .annotateMerge(
        OpenApi.annotations({
          summary: "Exchange a token for a fresh one",
          description:
            "Returns a new token for the bearer's own subject and scope, valid 3600 seconds but never beyond 24 hours after the original login (POST /auth/token or PUT /Login/CheckOtp); after that, log in again. A revoked token is 401.",
        }),
      ),
  )
  .annotateMerge(OpenApi.annotations({ title: "Auth", description: "Access tokens" })) {}
