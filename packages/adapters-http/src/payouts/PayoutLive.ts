/**
 * Handlers of the `payouts` group: they take the partner from the token, call
 * the Payouts use cases and answer the domain's views with amounts in wire
 * form; domain errors become problems once for the group.
 */
import { Payouts, Traced } from "@partnerpay/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { requirePartner } from "../cross-cutting/Authentication.ts"
import { toResponse, toSignedResponse } from "../cross-cutting/MoneyResponse.ts"
import * as Problem from "../cross-cutting/Problem.ts"

const payoutResponse = (view: Payouts.PayoutView) => ({ ...view, amount: toResponse(view.amount) })

export const PayoutLive = HttpApiBuilder.group(Api, "payouts", (handlers) =>
  Effect.succeed(
    handlers
      .handle(
        "balance",
        Traced.fn("PayoutLive.balance")(function* ({ params, query }) {
          const { partnerId } = yield* requirePartner
          const balance = yield* Payouts.balance(partnerId, params.companyId, query.currencyCode ?? "USD").pipe(
            Effect.mapError(Problem.fromDomain),
          )
          return { available: toSignedResponse(balance.available), pending: toResponse(balance.pending) }
        }),
      )
      .handle(
        "list",
        Traced.fn("PayoutLive.list")(function* ({ query }) {
          const { partnerId } = yield* requirePartner
          const page = yield* Payouts.list(partnerId, {
            companyId: query.companyId,
            status: query.status,
            limit: query.limit ?? 20,
            startingAfter: query.startingAfter,
          }).pipe(Effect.mapError(Problem.fromDomain))
          return { data: page.data.map(payoutResponse), hasMore: page.hasMore }
        }),
      )
      .handle(
        "get",
        Traced.fn("PayoutLive.get")(function* ({ params }) {
          const { partnerId } = yield* requirePartner
          const payout = yield* Payouts.get(partnerId, params.payoutId).pipe(Effect.mapError(Problem.fromDomain))
          return payoutResponse(payout)
        }),
      )
      .handle(
        "items",
        Traced.fn("PayoutLive.items")(function* ({ params, query }) {
          const { partnerId } = yield* requirePartner
          const page = yield* Payouts.items(partnerId, params.payoutId, {
            limit: query.limit ?? 20,
            startingAfter: query.startingAfter,
          }).pipe(Effect.mapError(Problem.fromDomain))
          return {
            data: page.data.map((item) => ({ ...item, amount: toSignedResponse(item.amount) })),
            hasMore: page.hasMore,
          }
        }),
      ),
  ),
)
