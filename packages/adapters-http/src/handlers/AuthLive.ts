/** Handlers of the `auth` group: token issuance and exchange. */

import { PartnerCredentials } from "@partnerpay/domain"
import { Effect, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { Caller } from "../Caller.ts"
import * as Problem from "../Problem.ts"
import { Tokens } from "../Tokens.ts"

export const AuthLive = HttpApiBuilder.group(
  Api,
  "auth",
  Effect.fn(function* (handlers) {
    const credentials = yield* PartnerCredentials
    const tokens = yield* Tokens
    return handlers
      .handle(
        "token",
        Effect.fn("AuthLive.token")(function* ({ payload }) {
          const partner = yield* credentials.authenticate(payload.ClientId, payload.ClientSecret)
          if (Option.isNone(partner)) {
            return yield* Problem.unauthorized("The ClientId and ClientSecret do not match a partner.")
          }
          const issued = yield* tokens.issue({ _tag: "Partner", partnerId: partner.value.partnerId })
          return {
            AccessToken: issued.accessToken,
            TokenType: "Bearer" as const,
            ExpiresInSeconds: issued.expiresInSeconds,
          }
        }),
      )
      .handle(
        "exchangeToken",
        Effect.fn("AuthLive.exchangeToken")(function* () {
          const caller = yield* Caller
          const issued = yield* tokens.issue(caller)
          return { accessToken: issued.accessToken }
        }),
      )
  }),
)
