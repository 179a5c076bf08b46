/** Handlers of the `consents` group: the payer lists, reads, accepts and declines its consents. */

import { Consents, Traced } from "@partnerpay/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { requireCustomer } from "../cross-cutting/Authentication.ts"
import * as AuthorizationClient from "../cross-cutting/AuthorizationClient.ts"
import * as MoneyResponse from "../cross-cutting/MoneyResponse.ts"
import * as Problem from "../cross-cutting/Problem.ts"

/** The consent view on the wire: the same fields, the amount in its wire form. */
export const toResponse = (consent: Consents.ConsentView) => ({
  ...consent,
  amount: MoneyResponse.toResponse(consent.amount),
})

/** The calling payer: a customer token (a partner token is 403). */
const payer = Effect.map(requireCustomer, ({ partnerId, registrationId }) => ({ partnerId, registrationId }))

export const ConsentLive = HttpApiBuilder.group(Api, "consents", (handlers) =>
  handlers
    .handle(
      "list",
      Traced.fn("ConsentLive.list")(function* ({ query }) {
        const caller = yield* payer
        const page = yield* Consents.list(caller, {
          limit: query.limit ?? 20,
          startingAfter: query.startingAfter,
        })
        return { data: page.data.map(toResponse), hasMore: page.hasMore }
      }, Problem.domainProblems),
    )
    .handle(
      "get",
      Traced.fn("ConsentLive.get")(function* ({ params }) {
        const caller = yield* payer
        return toResponse(yield* Consents.get(caller, params.consentId))
      }, Problem.domainProblems),
    )
    .handle(
      "accept",
      Traced.fn("ConsentLive.accept")(function* ({ params, payload }) {
        const caller = yield* payer
        const consent = yield* Consents.accept(
          caller,
          params.consentId,
          payload.bankAccountId,
          yield* AuthorizationClient.current,
        )
        return toResponse(consent)
      }, Problem.domainProblems),
    )
    .handle(
      "decline",
      Traced.fn("ConsentLive.decline")(function* ({ params }) {
        const caller = yield* payer
        return toResponse(yield* Consents.decline(caller, params.consentId))
      }, Problem.domainProblems),
    ),
)
