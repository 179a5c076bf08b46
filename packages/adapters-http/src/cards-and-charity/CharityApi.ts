/**
 * Anonymous charity transactions (POST /Transaction/Charity/CreateAnonymous).
 *
 * For partners and customers alike (the donor is anonymous: only an identity
 * verification id is given); the charity must be one of the caller's
 * partner's companies (404 otherwise). The interface gives no response body;
 * this one answers what was recorded (the fee, what the payer is charged and
 * what the charity receives), which a client must show the donor.
 */
import { CharityTransaction, Ids, Money } from "@partnerpay/domain"
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
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Charity", description: "Anonymous donations" })) {}
