/** Handlers of the `payments` group: decode, call the Payments use cases, encode; domain errors become problems. */
import { Payments } from "@partnerpay/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { requirePartner } from "../Authentication.ts"
import * as MoneyResponse from "../MoneyResponse.ts"
import type { PaymentRequestResponse } from "../PaymentApi.ts"
import * as Problem from "../Problem.ts"

/**
 * The payment request view as clients read it: its amounts in wire form, each
 * invoice line with its total (the response Schema keeps only the view's fields).
 */
export const toResponse = ({
  amount,
  autoPayLimit,
  debitAuthLimit,
  lineItems,
  refundedAmount,
  ...view
}: Payments.PaymentRequestView): PaymentRequestResponse => ({
  ...view,
  amount: MoneyResponse.toResponse(amount),
  ...(autoPayLimit === undefined ? {} : { autoPayLimit: MoneyResponse.toResponse(autoPayLimit) }),
  ...(debitAuthLimit === undefined ? {} : { debitAuthLimit: MoneyResponse.toResponse(debitAuthLimit) }),
  ...(lineItems === undefined
    ? {}
    : {
        lineItems: lineItems.map((line) => ({
          ...line,
          unitAmount: MoneyResponse.toResponse(line.unitAmount),
          amount: MoneyResponse.toResponse({
            minorUnits: line.quantity * line.unitAmount.minorUnits,
            currency: line.unitAmount.currency,
          }),
        })),
      }),
  refundedAmount: MoneyResponse.toResponse(refundedAmount),
})

export const PaymentLive = HttpApiBuilder.group(Api, "payments", (handlers) =>
  handlers
    .handle(
      "create",
      Effect.fn("PaymentLive.create")(function* ({ payload }) {
        const { partnerId } = yield* requirePartner
        return yield* Payments.create({ partnerId, ...payload })
      }, Problem.domainProblems),
    )
    .handle(
      "history",
      Effect.fn("PaymentLive.history")(function* ({ query }) {
        const { partnerId } = yield* requirePartner
        const page = yield* Payments.history({ partnerId, ...query, limit: query.limit ?? 20 })
        return { data: page.data.map(toResponse), hasMore: page.hasMore }
      }, Problem.domainProblems),
    )
    .handle(
      "get",
      Effect.fn("PaymentLive.get")(function* ({ params }) {
        const { partnerId } = yield* requirePartner
        const doc = yield* Payments.get(partnerId, params.paymentRequestId)
        return toResponse(doc)
      }, Problem.domainProblems),
    )
    .handle(
      "cancel",
      Effect.fn("PaymentLive.cancel")(function* ({ params }) {
        const { partnerId } = yield* requirePartner
        yield* Payments.cancel(partnerId, params.paymentRequestId)
      }, Problem.domainProblems),
    ),
)
