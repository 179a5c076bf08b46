/**
 * Balances and payouts (docs/api/payouts.md): a company's balance
 * (GET /Company/{companyId}/Balance: available and pending), its payouts
 * (GET /Payouts, newest first, by company and status, paged like the other
 * lists), one payout (GET /Payouts/{payoutId}) and its items
 * (GET /Payouts/{payoutId}/Items, which add up to the payout's amount). For
 * partners; another partner's company or payout is 404. Responses are the
 * domain's views (`Payouts.PayoutView`, `Payouts.PayoutItemView`) with
 * amounts in wire form.
 */
import { Ids, Money, PayoutEvents, Payouts } from "@partnerpay/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"
import { AmountResponse } from "../cross-cutting/MoneyResponse.ts"
import * as Problem from "../cross-cutting/Problem.ts"
import { Limit } from "../payments/PaymentApi.ts"

export const BalanceResponse = Schema.Struct({
  available: AmountResponse.annotate({
    description:
      "Settled money not yet paid out, minus refunds and returns since; negative when they exceed it (later collections recover it)",
  }),
  pending: AmountResponse.annotate({ description: "Transfers initiated and not yet settled" }),
})

export const PayoutResponse = Schema.Struct({ ...Payouts.PayoutView.fields, amount: AmountResponse })
export type PayoutResponse = typeof PayoutResponse.Type

export const PayoutListResponse = Schema.Struct({ data: Schema.Array(PayoutResponse), hasMore: Schema.Boolean })

export const PayoutItemResponse = Schema.Struct({
  ...Payouts.PayoutItemView.fields,
  amount: AmountResponse.annotate({ description: "Signed: refunds, returns and fees are negative" }),
})

export const PayoutItemsResponse = Schema.Struct({ data: Schema.Array(PayoutItemResponse), hasMore: Schema.Boolean })

export class PayoutApi extends HttpApiGroup.make("payouts")
  .add(
    HttpApiEndpoint.get("balance", "/Company/:companyId/Balance", {
      params: { companyId: Ids.CompanyId },
      query: {
        currencyCode: Schema.optionalKey(
          Money.CurrencyCode.annotate({ description: "The balance's currency (default USD)" }),
        ),
      },
      success: BalanceResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "A company's balance",
        description:
          "For partners: the company's available balance (settled money not yet paid out, minus refunds and returns; it may be negative) and its pending money (transfers initiated and not yet settled), in one currency (default USD). Another partner's company is 404.",
      }),
    ),
    HttpApiEndpoint.get("list", "/Payouts", {
      query: {
        companyId: Schema.optionalKey(Ids.CompanyId),
        status: Schema.optionalKey(PayoutEvents.PayoutStatus),
        limit: Schema.optionalKey(Limit),
        startingAfter: Schema.optionalKey(Ids.PayoutId),
      },
      success: PayoutListResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "List payouts",
        description:
          "For partners: the partner's payouts, newest first, optionally of one company (another partner's company is 404) and one status (Pending, Paid, Failed); cursor pagination with limit (1..100, default 20) and startingAfter (the last payoutId of the previous page).",
      }),
    ),
    HttpApiEndpoint.get("get", "/Payouts/:payoutId", {
      params: { payoutId: Ids.PayoutId },
      success: PayoutResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Read a payout",
        description:
          "For partners: one payout with its status, amount, expected arrival date and item count; a Failed payout says why (returnCode, returnReason). Another partner's payout is 404.",
      }),
    ),
    HttpApiEndpoint.get("items", "/Payouts/:payoutId/Items", {
      params: { payoutId: Ids.PayoutId },
      query: {
        limit: Schema.optionalKey(Limit),
        startingAfter: Schema.optionalKey(
          Schema.String.annotate({ description: "The last itemId of the previous page" }),
        ),
      },
      success: PayoutItemsResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "A payout's items",
        description:
          "For partners: what the payout pays out, in ledger order: payments and instalments settled (positive), refunds, returns and fees (negative). The items of a payout add up to its amount exactly. Pages: limit (1..100, default 20) and startingAfter (the last itemId of the previous page).",
      }),
    ),
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Payouts", description: "Company balances and payouts" })) {}
