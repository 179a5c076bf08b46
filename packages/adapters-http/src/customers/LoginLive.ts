/** Handlers of the `login` group: send and check one-time codes (partner tokens), log out (customer tokens). */
import { CustomerLogin, type CustomerProviders, Traced } from "@partnerpay/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { requireCustomer, requirePartner } from "../cross-cutting/Authentication.ts"
import { Tokens } from "../cross-cutting/Tokens.ts"
import { toProblem } from "./IdentityProblems.ts"

/** Provider ports these handlers need (named so the layer's type can be emitted). */
export type Requires = CustomerProviders.OtpSender

export const LoginLive = HttpApiBuilder.group(
  Api,
  "login",
  Effect.fn(function* (handlers) {
    const tokens = yield* Tokens
    return handlers
      .handle(
        "sendOtp",
        Traced.fn("LoginLive.sendOtp")(function* ({ payload }) {
          const { partnerId } = yield* requirePartner
          return yield* CustomerLogin.sendOtp(partnerId, payload.phoneNumber).pipe(Effect.mapError(toProblem))
        }),
      )
      .handle(
        "checkOtp",
        Traced.fn("LoginLive.checkOtp")(function* ({ payload }) {
          const { partnerId } = yield* requirePartner
          const { registrationId } = yield* CustomerLogin.checkOtp(partnerId, payload.phoneNumber, payload.code).pipe(
            Effect.mapError(toProblem),
          )
          const issued = yield* tokens.issue({ _tag: "Customer", partnerId, registrationId })
          return { accessToken: issued.accessToken, registrationId }
        }),
      )
      .handle(
        "logout",
        Traced.fn("LoginLive.logout")(function* () {
          const customer = yield* requireCustomer
          yield* tokens.revokeAll(customer)
        }),
      )
  }),
)
