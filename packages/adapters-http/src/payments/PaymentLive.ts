/** Handlers of the `payments` group: decode, call the Payments use cases, encode; domain errors become problems. */
import { Attachments, Payments, Traced } from "@partnerpay/domain"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { requirePartner } from "../cross-cutting/Authentication.ts"
import { Caller } from "../cross-cutting/Caller.ts"
import * as MoneyResponse from "../cross-cutting/MoneyResponse.ts"
import * as Problem from "../cross-cutting/Problem.ts"
import type { PaymentRequestResponse } from "./PaymentApi.ts"

/** Invoice lines as clients read them: each with its amount (quantity x unit amount). */
export const lineItemsResponse = (lineItems: NonNullable<Payments.PaymentRequestView["lineItems"]>) =>
  lineItems.map((line) => ({
    ...line,
    unitAmount: MoneyResponse.toResponse(line.unitAmount),
    amount: MoneyResponse.toResponse({
      minorUnits: line.quantity * line.unitAmount.minorUnits,
      currency: line.unitAmount.currency,
    }),
  }))

/**
 * The payment request view as clients read it: its amounts in wire form, each
 * invoice line with its total (the response Schema keeps only the view's fields).
 */
export const toResponse = ({
  amount,
  autoPayLimit,
  debitAuthLimit,
  lineItems,
  metadata,
  refundedAmount,
  ...view
}: Payments.PaymentRequestView): PaymentRequestResponse => ({
  ...view,
  metadata: metadata ?? {},
  amount: MoneyResponse.toResponse(amount),
  ...(autoPayLimit === undefined ? {} : { autoPayLimit: MoneyResponse.toResponse(autoPayLimit) }),
  ...(debitAuthLimit === undefined ? {} : { debitAuthLimit: MoneyResponse.toResponse(debitAuthLimit) }),
  ...(lineItems === undefined ? {} : { lineItems: lineItemsResponse(lineItems) }),
  refundedAmount: MoneyResponse.toResponse(refundedAmount),
})

export const PaymentLive = HttpApiBuilder.group(Api, "payments", (handlers) =>
  handlers
    .handle(
      "create",
      Traced.fn("PaymentLive.create")(function* ({ payload }) {
        const { partnerId } = yield* requirePartner
        return yield* Payments.create({ partnerId, ...payload })
      }, Problem.domainProblems),
    )
    .handle(
      "history",
      Traced.fn("PaymentLive.history")(function* ({ query }) {
        const { partnerId } = yield* requirePartner
        const page = yield* Payments.history({ partnerId, ...query, limit: query.limit ?? 20 })
        return { data: page.data.map(toResponse), hasMore: page.hasMore }
      }, Problem.domainProblems),
    )
    .handle(
      "get",
      Traced.fn("PaymentLive.get")(function* ({ params }) {
        const { partnerId } = yield* requirePartner
        const doc = yield* Payments.get(partnerId, params.paymentRequestId)
        const attachments = yield* Attachments.forRequest(doc)
        return { ...toResponse(doc), attachments }
      }, Problem.domainProblems),
    )
    .handle(
      "attachment",
      Traced.fn("PaymentLive.attachment")(function* ({ params }) {
        const caller = yield* Caller
        const content = yield* Attachments.content(caller, params.paymentRequestId, params.attachmentId)
        return HttpServerResponse.uint8Array(content.bytes, {
          contentType: content.contentType,
          headers: { "x-content-type-options": "nosniff", "content-disposition": "attachment" },
        })
      }, Problem.domainProblems),
    )
    .handle(
      "setMetadata",
      Traced.fn("PaymentLive.setMetadata")(function* ({ params, payload }) {
        const { partnerId } = yield* requirePartner
        return yield* Payments.setMetadata(partnerId, params.paymentRequestId, payload.metadata)
      }, Problem.domainProblems),
    )
    .handle(
      "cancel",
      Traced.fn("PaymentLive.cancel")(function* ({ params }) {
        const { partnerId } = yield* requirePartner
        yield* Payments.cancel(partnerId, params.paymentRequestId)
      }, Problem.domainProblems),
    ),
)
