/**
 * Handlers of the `transactions` group: decode, call the Payments / Transfers
 * use cases, encode; domain errors become problems. Needs the `ESignature`
 * provider (reimbursement).
 */

import {
  Attachments,
  CardCharger,
  CardRefundPayments,
  EventStore,
  IdGenerator,
  InAppCardPayments,
  PaymentProviders,
  Payments,
  Policy,
  ReadModel,
  Traced,
  TransactionReport,
  Transfers,
  UnitOfWork,
} from "@partnerpay/domain"
import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { Authentication, requireCustomer, requirePartner } from "../cross-cutting/Authentication.ts"
import * as AuthorizationClient from "../cross-cutting/AuthorizationClient.ts"
import { Caller } from "../cross-cutting/Caller.ts"
import * as GroupContext from "../cross-cutting/GroupContext.ts"
import * as MoneyResponse from "../cross-cutting/MoneyResponse.ts"
import * as Problem from "../cross-cutting/Problem.ts"
import { ProblemHandling } from "../cross-cutting/ProblemHandling.ts"
import { lineItemsResponse } from "./PaymentLive.ts"
import type { TransferResponse } from "./TransactionApi.ts"

/** The provider this group needs beyond the domain ports (reimbursement envelopes). */
export type Requires = PaymentProviders.ESignature | CardCharger.CardCharger

/** Spec 2.9 from the transfers read model. */
export const toResponse = (doc: Effect.Success<ReturnType<typeof Transfers.get>>): TransferResponse => {
  const view = Transfers.viewOf(doc)
  return {
    ...view,
    amount: MoneyResponse.toResponse(view.amount),
    fee: view.fee === null ? null : MoneyResponse.toResponse(view.fee),
  }
}

/** Built with only the services its handlers use (`GroupContext`): a smaller copy per request. */
export const TransactionLive = GroupContext.only(
  HttpApiBuilder.group(Api, "transactions", (handlers) =>
    handlers
      .handle(
        "report",
        Traced.fn("TransactionLive.report")(function* ({ query }) {
          const { partnerId } = yield* requirePartner
          const request = yield* HttpServerRequest.HttpServerRequest
          if ((request.headers.accept ?? "").toLowerCase().includes("text/csv")) {
            const csv = yield* TransactionReport.csv({ partnerId, ...query, limit: query.limit ?? 20 })
            return HttpServerResponse.text(csv, {
              contentType: "text/csv; charset=utf-8",
              headers: {
                "content-disposition": `attachment; filename="transactions-${query.from}-${query.to}.csv"`,
              },
            })
          }
          const report = yield* TransactionReport.report({ partnerId, ...query, limit: query.limit ?? 20 })
          return {
            from: report.from,
            to: report.to,
            currencyTotals: report.currencyTotals.map((total) => ({
              currencyCode: total.currencyCode,
              count: total.count,
              totalAmount: MoneyResponse.toResponse(total.totalAmount),
              refundedAmount: MoneyResponse.toResponse(total.refundedAmount),
              netAmount: MoneyResponse.toResponse(total.netAmount),
            })),
            items: report.items.map((doc) => ({
              externalTransferId: doc.transferId,
              companyId: doc.companyId,
              ...(doc.paymentRequestId === undefined ? {} : { paymentRequestId: doc.paymentRequestId }),
              ...(doc.paymentPlanId === undefined ? {} : { paymentPlanId: doc.paymentPlanId }),
              status: doc.status,
              date: doc.createdAt,
              amount: MoneyResponse.toResponse(doc.amount),
              refundedAmount: MoneyResponse.toResponse(doc.refundedAmount),
              senderName: doc.senderName,
              recipientName: doc.recipientName,
            })),
            hasMore: report.hasMore,
            lineTotals: report.lineTotals.map((total) => ({
              currencyCode: total.currencyCode,
              count: total.count,
              collected: MoneyResponse.toResponse(total.collected),
              refunded: MoneyResponse.toResponse(total.refunded),
              returned: MoneyResponse.toResponse(total.returned),
              fees: MoneyResponse.toResponse(total.fees),
              disputed: MoneyResponse.toSignedResponse(total.disputed),
              net: MoneyResponse.toSignedResponse(total.net),
            })),
            lines: report.lines.map((line) => ({ ...line, amount: MoneyResponse.toSignedResponse(line.amount) })),
            linesHaveMore: report.linesHaveMore,
          }
        }, Problem.domainProblems),
      )
      .handle(
        "get",
        Traced.fn("TransactionLive.get")(function* ({ params }) {
          const caller = yield* Caller
          const doc = yield* Transfers.get(caller, params.transferId)
          const invoice = yield* Payments.invoiceOf(caller.partnerId, doc)
          const attachments = yield* Attachments.namedOnTransfer(
            caller.partnerId,
            doc.paymentRequestId,
            doc.attachments,
          )
          return {
            ...toResponse(doc),
            attachments,
            ...(invoice?.invoiceNumber === undefined ? {} : { invoiceNumber: invoice.invoiceNumber }),
            ...(invoice?.lineItems === undefined ? {} : { lineItems: lineItemsResponse(invoice.lineItems) }),
          }
        }, Problem.domainProblems),
      )
      .handle(
        "accept",
        Traced.fn("TransactionLive.accept")(function* ({ params, payload }) {
          const { partnerId, registrationId } = yield* requireCustomer
          return yield* Payments.accept({
            partnerId,
            registrationId,
            paymentRequestId: params.paymentRequestId,
            ...payload,
            client: yield* AuthorizationClient.current,
          })
        }, Problem.domainProblems),
      )
      .handle(
        "payWithCard",
        Traced.fn("TransactionLive.payWithCard")(function* ({ params, payload }) {
          const { partnerId, registrationId } = yield* requireCustomer
          const answer = yield* InAppCardPayments.pay({
            partnerId,
            registrationId,
            paymentRequestId: params.paymentRequestId,
            paymentMethodId: payload.paymentMethodId,
            client: yield* AuthorizationClient.current,
          })
          if (answer.status === "Paid") return { status: answer.status, cardPaymentId: answer.cardPaymentId }
          return {
            status: answer.status,
            cardPaymentId: answer.cardPaymentId,
            paymentIntentId: answer.processorReference,
            clientSecret: answer.clientSecret,
            nextAction: answer.nextAction,
          }
        }, Problem.domainProblems),
      )
      .handle(
        "refund",
        Traced.fn("TransactionLive.refund")(function* ({ params, payload }) {
          const { partnerId } = yield* requirePartner
          // A transfer's refund; an id that is no transfer of the partner may name a card payment (a payment
          // request paid by card, or a company's terminal payment), refunded through the card processor.
          const refund = yield* Transfers.refund({ partnerId, transferId: params.transferId, ...payload }).pipe(
            Effect.catchTag("NotFound", (notFound) =>
              CardRefundPayments.refund({ partnerId, id: params.transferId, ...payload }).pipe(
                Effect.catchTag("NotFound", () => Effect.fail(notFound)),
              ),
            ),
          )
          return {
            refundId: refund.refundId,
            status: refund.status,
            amount: MoneyResponse.toResponse(refund.amount),
            refundedAmount: MoneyResponse.toResponse(refund.refundedAmount),
          }
        }, Problem.domainProblems),
      )
      .handle(
        "reimbursement",
        Traced.fn("TransactionLive.reimbursement")(function* ({ payload }) {
          const { partnerId, registrationId } = yield* requireCustomer
          return yield* Transfers.createReimbursement({
            partnerId,
            registrationId,
            transferId: payload.transferId,
            providerId: payload.providerId as Parameters<typeof Transfers.createReimbursement>[0]["providerId"],
          })
        }, Problem.domainProblems),
      ),
  ),
  [
    ReadModel.ReadModelStore,
    EventStore.EventStore,
    IdGenerator.IdGenerator,
    Policy.Policies,
    UnitOfWork.UnitOfWork,
    PaymentProviders.ESignature,
    Attachments.PaymentAttachments,
    CardCharger.CardCharger,
    Authentication,
    ProblemHandling,
  ],
)
