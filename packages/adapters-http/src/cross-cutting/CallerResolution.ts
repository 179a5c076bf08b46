/**
 * The first step: who calls. The bearer token, if any, is verified here, once (`Tokens`); a valid
 * one names the caller, whose partner then scopes everything after (`Tenancy.CurrentPartner`: what
 * the storage adapters read and write is that partner's) and is named on the access line
 * (`RequestRecord`). The outcome, valid or not, is handed to the route as
 * `CurrentBearerVerification`, so that the route's `Authentication` middleware does not verify the
 * same token again (a request without a valid token goes on: the route answers 401 if it needs one).
 */
import { Tenancy } from "@partnerpay/domain"
import { Context, Effect, Option, type Result } from "effect"
import type { CallerIdentity } from "./Caller.ts"
import { CurrentRequestRecord } from "./RequestRecord.ts"
import type { App, Handler, Incoming, Step } from "./RequestSteps.ts"
import type { InvalidToken, Tokens } from "./Tokens.ts"

/**
 * The bearer token verification already done for the current request: the
 * cross-cutting step (which needs the caller for rate limits and
 * idempotency scopes) verifies the token and provides this, and
 * the `Authentication` middleware reuses its outcome for the same token
 * instead of verifying it a second time (it verifies itself when absent, or
 * when the token it decoded differs). Request-scoped: provided around the
 * route, never shared between requests.
 */
export interface BearerVerification {
  readonly token: string
  readonly outcome: Result.Result<CallerIdentity, InvalidToken>
}

export const CurrentBearerVerification = Context.Reference<BearerVerification | undefined>(
  "partnerpay/adapters-http/CurrentBearerVerification",
  { defaultValue: () => undefined },
)

/** The token of an `Authorization: Bearer <token>` header. */
export const bearerToken = (authorization: string | undefined): string | undefined => {
  if (authorization === undefined) return undefined
  const match = /^bearer +(\S+)\s*$/i.exec(authorization)
  return match?.[1]
}

/** The caller's scope for idempotency keys and rate limits. */
export const scopeOf = (caller: CallerIdentity): string =>
  caller._tag === "Partner" ? `partner:${caller.partnerId}` : `customer:${caller.partnerId}:${caller.registrationId}`

/** This request's route reuses the outcome (Authentication middleware) instead of verifying again. */
const reusable = (app: App, token: string, outcome: BearerVerification["outcome"]): App =>
  Effect.provideService(app, CurrentBearerVerification, { token, outcome })

/** The step, verifying with `tokens`. */
export const step =
  (tokens: Tokens["Service"]): Step =>
  (next: Handler): Handler => {
    const identified = (incoming: Incoming, token: string): App =>
      Effect.flatMap(Effect.result(tokens.verify(token)), (outcome) => {
        if (outcome._tag === "Failure") return reusable(next(incoming), token, outcome)
        const caller = outcome.success
        incoming.caller = Option.some(caller)
        return Effect.withFiber((fiber) => {
          // The access line names the partner (RequestRecord.ts).
          const record = fiber.getRef(CurrentRequestRecord)
          if (record !== undefined) record.partnerId = caller.partnerId
          // A partner's request from here on: what the storage adapters read and write is that partner's.
          // Both in one context update: the verification the route reuses, and the partner.
          return Effect.updateContext(next(incoming), (context: Context.Context<never>) =>
            Context.add(
              Context.add(context, CurrentBearerVerification, { token, outcome }),
              Tenancy.CurrentPartner,
              caller.partnerId,
            ),
          )
        })
      })
    return (incoming) => {
      const token = bearerToken(incoming.request.headers.authorization)
      return token === undefined ? next(incoming) : identified(incoming, token)
    }
  }
