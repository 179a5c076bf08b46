/**
 * The payer's consents to recurring payment plans (spec 2.16, 3.2, changelog
 * v0.4.1-v0.4.4), for customers (the payer).
 *
 * GET /Consent/List lists the caller's Pending and Accepted consents (cursor
 * pagination); GET /Consent/{consentId} reads one (any status);
 * PUT /Consent/{consentId}/Accept accepts it with a bank account;
 * PUT /Consent/{consentId}/Decline declines it: a Pending consent becomes
 * Declined, an Accepted one Revoked (there is no separate revoke). Either
 * outcome is applied to the plan at once (a withdrawn consent cancels it).
 * Another customer's consent is 404.
 */
import { Consents, Ids, PaymentPlans } from "@partnerpay/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"
import { AmountResponse } from "../cross-cutting/MoneyResponse.ts"
import * as Problem from "../cross-cutting/Problem.ts"
import { Limit } from "../payments/PaymentApi.ts"

/** The recipient company, as the domain declares it. */
export const RecipientCompanyResponse = PaymentPlans.RecipientCompany

/** The domain's consent view; only the amount takes its wire form. */
export const ConsentResponse = Schema.Struct({ ...Consents.ConsentView.fields, amount: AmountResponse }).annotate({
  identifier: "Consent",
})

export const ConsentListResponse = Schema.Struct({
  data: Schema.Array(ConsentResponse),
  hasMore: Schema.Boolean,
})

export const AcceptConsentRequest = Schema.Struct({
  bankAccountId: Ids.BankAccountId.annotate({ description: "The payer's bank account to debit" }),
})

const params = { consentId: Ids.ConsentId }

export class ConsentApi extends HttpApiGroup.make("consents")
  .add(
    HttpApiEndpoint.get("list", "/Consent/List", {
      query: {
        limit: Schema.optionalKey(Limit),
        startingAfter: Schema.optionalKey(Ids.ConsentId),
      },
      success: ConsentListResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "List the payer's consents",
        description:
          "For customers: their Pending and Accepted consents only (Declined and Revoked are not listed), newest first; limit 1..100 (default 20), startingAfter = the last consentId of the previous page.",
      }),
    ),
    HttpApiEndpoint.get("get", "/Consent/:consentId", {
      params,
      success: ConsentResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Read a consent",
        description:
          "For customers: one of their consents, whatever its status, with the recipient company. Another customer's consent is 404.",
      }),
    ),
    HttpApiEndpoint.put("accept", "/Consent/:consentId/Accept", {
      params,
      payload: AcceptConsentRequest,
      success: ConsentResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Accept a consent",
        description:
          "Pending -> Accepted, with the bank account to debit: one of the payer's linked accounts (any other is 404). Accepting again with the same account: no change; with another account, or a Declined or Revoked consent: 409.",
      }),
    ),
    HttpApiEndpoint.put("decline", "/Consent/:consentId/Decline", {
      params,
      success: ConsentResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Decline (or revoke) a consent",
        description:
          "Pending -> Declined; Accepted -> Revoked; Declined or Revoked: no change. The plan is cancelled in the same operation.",
      }),
    ),
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Consents", description: "The payer's consents to payment plans" })) {}
