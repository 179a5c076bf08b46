/**
 * Authentication endpoints (interface sections 2.1 and 5).
 *
 * POST /auth/token exchanges a partner's ClientId and ClientSecret for a bearer
 * token (PascalCase fields, as the interface writes them); a wrong id and a
 * wrong secret get the same 401. GET /Auth/ExchangeToken gives the bearer a
 * fresh token for the same subject and scope.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Authentication } from "./Authentication.ts"
import * as Problem from "./Problem.ts"

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
      error: Problem.Unauthorized,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Obtain an access token",
        description: "Exchanges the partner's ClientId and ClientSecret for a bearer token valid 3600 seconds.",
      }),
    ),
    HttpApiEndpoint.get("exchangeToken", "/Auth/ExchangeToken", {
      success: ExchangeTokenResponse,
    })
      .middleware(Authentication)
      .annotateMerge(
        OpenApi.annotations({
          summary: "Exchange a token for a fresh one",
          description: "Returns a new token for the bearer's own subject and scope.",
        }),
      ),
  )
  .annotateMerge(OpenApi.annotations({ title: "Auth", description: "Access tokens" })) {}
