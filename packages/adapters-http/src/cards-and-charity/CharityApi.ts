/**
 * Anonymous charity transactions (POST /Transaction/Charity/CreateAnonymous), and, as additions,
 * reading one (GET /Charity/Gifts/{id}) and cancelling a recurring one
 * (POST /Charity/Gifts/{id}/Cancel): a recurring gift is collected monthly until cancelled.
 *
 * For partners and customers alike (the donor is anonymous: only an identity
 * verification id is given); the charity must be one of the caller's
 * partner's companies (404 otherwise). The interface gives no response body;
 * this one answers what was recorded (the fee, what the payer is charged and
 * what the charity receives), which a client must show the donor.
 */
import { AuthorizationEvidence, CalendarDate, CharityTransaction, Ids, Money } from "@partnerpay/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"
import { AmountResponse } from "../cross-cutting/MoneyResponse.ts"
import * as Problem from "../cross-cutting/Problem.ts"

export const CreateAnonymousRequest = Schema.Struct({
  verificationId: Ids.VerificationId,
  amount: Money.WireAmount,
  companyId: Ids.CompanyId,
  isRecurring: Schema.Boolean,
  payerCoversFee: Schema.Boolean,
})

export const CreateAnonymousResponse = Schema.Struct({
  charityTransactionId: CharityTransaction.CharityTransactionId,
  amount: AmountResponse,
  fee: AmountResponse,
  payerCharged: AmountResponse,
  charityReceives: AmountResponse,
  transferId: Ids.TransferId.annotate({
    description:
      "The transfer collecting payerCharged from the donor's account (GET /Transaction/{transferId}): it settles, fails or is returned like any transfer",
  }),
})

/** Where a recurring gift stands (absent on a one-time gift). */
export const RecurrenceResponse = Schema.Struct({
  status: Schema.Literals(["Active", "Stopped"]),
  frequency: Schema.Literal("Monthly"),
  startDate: CalendarDate.CalendarDate.annotate({
    description: "The first collection's day: the schedule counts from it",
  }),
  lastCollectionDate: CalendarDate.CalendarDate,
  collections: Schema.Int,
  nextCollectionDate: Schema.optionalKey(CalendarDate.CalendarDate),
  stopReason: Schema.optionalKey(CharityTransaction.RecurringGiftStopReason),
})

export const GiftResponse = Schema.Struct({
  charityTransactionId: CharityTransaction.CharityTransactionId,
  companyId: Ids.CompanyId,
  amount: AmountResponse,
  fee: AmountResponse,
  payerCharged: AmountResponse,
  charityReceives: AmountResponse,
  isRecurring: Schema.Boolean,
  transferId: Schema.optionalKey(
    Ids.TransferId.annotate({ description: "The first collection's transfer (later ones name the gift)" }),
  ),
  createdAt: Schema.String,
  recurrence: Schema.optionalKey(RecurrenceResponse),
  authorization: Schema.optionalKey(
    AuthorizationEvidence.AuthorizationEvidence.annotate({
      description:
        "The evidence of the donor's authorization (a one-time or recurring gift's text), kept two years: docs/api/authorization-evidence.md",
    }),
  ),
})

const giftParams = { charityTransactionId: CharityTransaction.CharityTransactionId }

export class CharityApi extends HttpApiGroup.make("charity")
  .add(
    HttpApiEndpoint.post("createAnonymous", "/Transaction/Charity/CreateAnonymous", {
      payload: CreateAnonymousRequest,
      success: CreateAnonymousResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Make an anonymous charity donation",
        description:
          "Fee 1% of the amount, rounded half up. payerCoversFee: the payer is charged amount + fee; otherwise the charity receives amount - fee. Each call records a new donation.",
      }),
    ),
  )
  .add(
    HttpApiEndpoint.get("gift", "/Charity/Gifts/:charityTransactionId", {
      params: giftParams,
      success: GiftResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Read a charity gift (addition)",
        description:
          "The partner's gift, or with a customer token the caller's own; a recurring gift shows its monthly schedule and whether it is Active or Stopped.",
      }),
    ),
  )
  .add(
    HttpApiEndpoint.post("cancelRecurring", "/Charity/Gifts/:charityTransactionId/Cancel", {
      params: giftParams,
      success: GiftResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Cancel a recurring charity gift (addition)",
        description:
          "Stops the monthly collections (the partner, or the donor with a customer token). Collections already started stay. Cancelling again answers the gift unchanged; a one-time gift is 409 ILLEGAL_TRANSITION.",
      }),
    ),
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Charity", description: "Anonymous donations" })) {}
