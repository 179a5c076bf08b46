/**
 * Server side of the `Authentication` middleware: verifies the bearer JWT
 * with `Tokens` and provides the `Caller`. A missing header (the security
 * decoder then hands over an empty credential), a malformed, forged, expired
 * or `alg: none` token all get the same 401 problem with
 * `WWW-Authenticate: Bearer` (added by `Problem.toResponse`).
 *
 * The token is verified once per request: when the cross-cutting middleware
 * already verified this very token (`CurrentBearerVerification`), its
 * outcome is reused.
 */
import { Tenancy } from "@partnerpay/domain"
import { Context, Effect, Layer, Redacted } from "effect"
import { Authentication } from "./Authentication.ts"
import { Caller } from "./Caller.ts"
import { CurrentBearerVerification } from "./CallerResolution.ts"
import * as Problem from "./Problem.ts"
import { Tokens } from "./Tokens.ts"

export const AuthenticationLive: Layer.Layer<Authentication, never, Tokens> = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const tokens = yield* Tokens
    return Authentication.of({
      bearer: (httpEffect, { credential }) =>
        Effect.flatMap(CurrentBearerVerification, (shared) => {
          const token = Redacted.value(credential)
          return shared !== undefined && shared.token === token
            ? Effect.fromResult(shared.outcome)
            : tokens.verify(token)
        }).pipe(
          Effect.matchEffect({
            onFailure: (invalid) =>
              Effect.logDebug("bearer token refused").pipe(
                Effect.annotateLogs({ reason: invalid.reason }),
                Effect.andThen(Effect.fail(Problem.unauthorized())),
              ),
            onSuccess: (caller) =>
              // One context update: the caller, and its partner unless held already (CallerResolution
              // provided it for the same token: no second overlay).
              Effect.updateContext(httpEffect, (context: Context.Context<never>) => {
                const withCaller = Context.add(context, Caller, caller)
                return Context.getOrUndefined(withCaller, Tenancy.CurrentPartner) === caller.partnerId
                  ? withCaller
                  : Context.add(withCaller, Tenancy.CurrentPartner, caller.partnerId)
              }),
          }),
        ),
    })
  }),
)
