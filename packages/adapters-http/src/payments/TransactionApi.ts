/**
 * Transfers (spec 2.9, 2.15, 4, changelog v0.1, v0.2): the payer accepts a
 * payment request (which starts its transfer), the partner or the paying
 * customer reads a transfer, the partner refunds a settled transfer and reads
 * the transaction report, and the payer applies for reimbursement
 * (POST /Reimbursement/Create, answered with an e-signature URL). The payer
 * can also pay a request in the app with a saved card
 * (POST /Transaction/PaymentRequest/{paymentRequestId}/PayWithCard).
 */
import { CalendarDate, Ids, Money, TransactionReport, TransferEvents, Transfers } from "@partnerpay/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"
import { AmountResponse } from "../cross-cutting/MoneyResponse.ts"
import * as Problem from "../cross-cutting/Problem.ts"
import { Limit, LineItemResponse } from "./PaymentApi.ts"

export const AcceptRequest = Schema.Struct({
  bankAccountId: Ids.BankAccountId,
  acceptDebitAuth: Schema.Boolean,
  transferDescription: Schema.String,
})

export const AcceptResponse = Schema.Struct({ status: Schema.String })

export const PayWithCardRequest = Schema.Struct({
  paymentMethodId: Schema.String.annotate({
    description: "The id of one of the payer's saved cards (GET /Payment/CardPaymentMethods/{registrationId})",
  }),
})

export const PayWithCardResponse = Schema.Union([
  Schema.Struct({
    status: Schema.Literal("Paid"),
    cardPaymentId: Ids.CardPaymentId.annotate({ description: "The card payment recorded on the request" }),
  }),
  Schema.Struct({
    status: Schema.Literal("RequiresAction").annotate({
      description:
        "The card's issuer asks the payer to authenticate the charge (3-D Secure): nothing is charged yet and the payment request stays Pending; the app completes it with the card processor's SDK (docs/api/payments.md, In-app card payment)",
    }),
    cardPaymentId: Ids.CardPaymentId.annotate({
      description: "The card payment the request records once the payer authenticated it",
    }),
    paymentIntentId: Schema.String.annotate({
      description: "The card processor's payment awaiting the authentication",
    }),
    clientSecret: Schema.String.annotate({
      description: "What the app completes the authentication with (Stripe.js `handleNextAction({ clientSecret })`)",
    }),
    nextAction: Schema.String.annotate({ description: "The processor's next action type (e.g. `use_stripe_sdk`)" }),
  }),
])

/**
 * Spec 2.9, field for field: the domain's transfer view (declared once, `Transfers.TransferView`), its
 * amount in wire form, plus the invoice of the payment request the transfer pays (additions).
 */
export const TransferResponse = Schema.Struct({
  ...Transfers.TransferView.fields,
  amount: AmountResponse,
  fee: Schema.NullOr(AmountResponse).annotate({
    description:
      "Addition: the platform's fee kept from the amount (the partner's fee schedule, or a charity gift's fee); null: none",
  }),
  invoiceNumber: Schema.optionalKey(
    Schema.String.annotate({ description: "Addition: the invoice number of the payment request the transfer pays" }),
  ),
  lineItems: Schema.optionalKey(
    Schema.Array(LineItemResponse).annotate({
      description: "Addition: the invoice lines of the payment request the transfer pays",
    }),
  ),
})
export type TransferResponse = typeof TransferResponse.Type

export const RefundRequest = Schema.Struct({
  amount: Schema.optionalKey(Money.WireAmount.annotate({ description: "Omitted: refund everything not refunded yet" })),
  reason: Schema.optionalKey(Schema.String),
})

export const RefundResponse = Schema.Struct({
  refundId: Schema.String,
  status: TransferEvents.RefundStatus.annotate({
    description:
      "Pending: the money is on its way back to the payer; REFUND_STATUS_CHANGED tells when it is Completed or Failed",
  }),
  amount: AmountResponse.annotate({ description: "This refund's amount" }),
  refundedAmount: AmountResponse.annotate({ description: "Total of the transfer's completed refunds so far" }),
})

export const ReportItem = Schema.Struct({
  externalTransferId: Schema.String,
  companyId: Schema.String,
  paymentRequestId: Schema.optionalKey(Schema.String),
  paymentPlanId: Schema.optionalKey(
    Schema.String.annotate({ description: "When the transfer collects a plan's instalment" }),
  ),
  status: Schema.String,
  date: Schema.String,
  amount: AmountResponse,
  refundedAmount: AmountResponse,
  senderName: Schema.String,
  recipientName: Schema.String,
})

export const ReportResponse = Schema.Struct({
  from: Schema.String,
  to: Schema.String,
  currencyTotals: Schema.Array(
    Schema.Struct({
      currencyCode: Money.CurrencyCode,
      count: Schema.Int,
      totalAmount: AmountResponse,
      refundedAmount: AmountResponse,
      netAmount: AmountResponse,
    }),
  ),
  items: Schema.Array(ReportItem),
  hasMore: Schema.Boolean,
  lineTotals: Schema.Array(
    Schema.Struct({
      currencyCode: Money.CurrencyCode,
      count: Schema.Int.annotate({ description: "How many lines" }),
      collected: AmountResponse.annotate({ description: "Payments, instalments and card payments collected" }),
      refunded: AmountResponse.annotate({ description: "Refunds taken back" }),
      returned: AmountResponse.annotate({ description: "Returned transfers taken back" }),
      fees: AmountResponse.annotate({
        description:
          "Fees taken: the platform's fees (fee lines) and return fees passed on to the company (returnFee lines)",
      }),
      disputed: AmountResponse.annotate({
        description: "Card disputes taken back, less those won (given back); may be negative",
      }),
      net: AmountResponse.annotate({
        description:
          "collected - refunded - returned - disputed - fees: what the period added to the balances (paid out, still available, or pending until a card payment's availability date)",
      }),
    }),
  ).annotate({ description: "Addition: the lines' totals per currency over the whole window" }),
  lines: Schema.Array(
    Schema.Struct({
      ...TransactionReport.ReportLine.fields,
      amount: AmountResponse.annotate({ description: "Signed" }),
    }),
  ).annotate({
    description:
      "Addition: the movements of the company balances in the window (newest first, one page: limit, linesStartingAfter); refunds, returns and fees are negative lines",
  }),
  linesHaveMore: Schema.Boolean.annotate({
    description: "Whether more lines follow (pass the last lineId as linesStartingAfter)",
  }),
})

export const ReimbursementRequest = Schema.Struct({
  transferId: Ids.TransferId,
  providerId: Ids.Uuid,
})

export const ReimbursementResponse = Schema.Struct({ signingUrl: Schema.String })

export class TransactionApi extends HttpApiGroup.make("transactions")
  .add(
    HttpApiEndpoint.get("report", "/Transaction/Report", {
      query: {
        from: CalendarDate.CalendarDate.annotate({ description: "First day (UTC), inclusive" }),
        to: CalendarDate.CalendarDate.annotate({ description: "Last day (UTC), inclusive; at most 366 days" }),
        companyId: Schema.optionalKey(Ids.CompanyId),
        limit: Schema.optionalKey(Limit),
        startingAfter: Schema.optionalKey(Ids.TransferId),
        linesStartingAfter: Schema.optionalKey(
          Schema.String.annotate({ description: "The last lineId of the previous page of lines" }),
        ),
      },
      success: ReportResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Transaction report",
        description:
          "For partners: settled transfers initiated between from and to (inclusive), optionally of one company. currencyTotals cover the whole window (count, total, refunded, net = total - refunded per currency); items are one page, newest first (limit, startingAfter). lines are the movements of the company balances in the window, dated when they reached the balance: payments, instalments and card payments collected (positive), refunds, returns and fees (negative); lineTotals sum them per currency over the whole window and reconcile with the payouts (docs/api/payouts.md). With `Accept: text/csv` the answer is every line of the window as CSV (text/csv; columns date, companyId, type, transferId, refundId, cardPaymentId, currencyCode, amount; signed decimals).",
      }),
    ),
    HttpApiEndpoint.get("get", "/Transaction/:transferId", {
      params: { transferId: Ids.TransferId },
      success: TransferResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Read a transfer",
        description:
          "For the partner, or the customer who paid it. Account numbers are masked. Another partner's transfer, or one the customer did not pay, is 404.",
      }),
    ),
    HttpApiEndpoint.post("accept", "/Transaction/PaymentRequest/:paymentRequestId/Accept", {
      params: { paymentRequestId: Ids.PaymentRequestId },
      payload: AcceptRequest,
      success: AcceptResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Accept a payment request",
        description:
          "For the payer (a customer). Pays from one of the payer's linked bank accounts (else 422 BANK_ACCOUNT_NOT_LINKED) and starts the transfer. A cancelled request is 409; someone other than the payer gets 404. Repeating it with the same account answers the current status.",
      }),
    ),
    HttpApiEndpoint.post("payWithCard", "/Transaction/PaymentRequest/:paymentRequestId/PayWithCard", {
      params: { paymentRequestId: Ids.PaymentRequestId },
      payload: PayWithCardRequest,
      success: PayWithCardResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Pay a payment request with a saved card",
        description:
          "For the payer (a customer token). The card processor charges the saved card paymentMethodId for the request's amount; the request becomes Paid at once (no transfer), the card payment is recorded on it (cardPayment in GET /Payment/{paymentRequestId}) and PAYMENT_REQUEST_STATUS_CHANGED (Paid) is sent. A declined card is 422 CARD_DECLINED and changes nothing (sandbox: a card whose last4 is 0002); a service running without a card processor answers 422 FEATURE_NOT_AVAILABLE (naming the capability). The request must be Pending (else 409; paying again with the same card answers Paid). Another customer's request or card, or an unknown one, is 404.",
      }),
    ),
    HttpApiEndpoint.post("refund", "/Transaction/:transferId/Refund", {
      params: { transferId: Ids.TransferId },
      payload: RefundRequest,
      success: RefundResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Refund a transfer",
        description:
          "For partners, on a Settled transfer (else 409; a Returned transfer cannot be refunded). The refund is a transfer of its own from the company back to the payer: it answers Pending, moves money through the money-movement provider and becomes Completed or Failed (REFUND_STATUS_CHANGED; sandbox: at the next settlement). Pending and completed refunds add up and never exceed the amount (422 REFUND_EXCEEDS_TRANSFER, concurrent requests included); a failed refund frees its amount. Mirrored on the payment request once completed (Refunded once completed refunds reach the amount). A card payment is refunded with the same operation naming the payment request it paid (or a company's terminal card payment by its cardPaymentId): through the card processor, partial or full, never above the payment (422 REFUND_EXCEEDS_PAYMENT, pending refunds and concurrent requests counted); answered Completed once the processor refunded, Pending when it could not be reached; REFUND_STATUS_CHANGED names PaymentRequestId or CardPaymentId.",
      }),
    ),
    HttpApiEndpoint.post("reimbursement", "/Reimbursement/Create", {
      payload: ReimbursementRequest,
      success: ReimbursementResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Apply for reimbursement of a transfer",
        description:
          "For the customer who paid a Settled, unrefunded transfer: answers the URL where the claim is signed. Repeating with the same provider answers the same URL; another provider is 409. A service running without an e-signature provider answers 422 FEATURE_NOT_AVAILABLE (naming the capability).",
      }),
    ),
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Transactions", description: "Transfers, refunds, report" })) {}
