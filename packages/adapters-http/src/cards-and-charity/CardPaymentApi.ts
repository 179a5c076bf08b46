/**
 * Card payments: registering a card payment made on an external terminal
 * (POST /cardpayment, changelog v0.4.8 and v0.4.10) and reading a customer's
 * saved card payment methods (GET /Payment/CardPaymentMethods/{registrationId},
 * spec 2.12).
 *
 * POST /cardpayment identifies the merchant by `merchantId`; the fields
 * removed in v0.4.10 (`companyId`, `companyReferenceId`, in either casing) are
 * refused with 422 naming the field, so an old client learns why instead of
 * having them silently ignored.
 */
import { Ids, Money } from "@partnerpay/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"
import * as Problem from "../cross-cutting/Problem.ts"

const removed = Schema.optionalKey(
  Schema.Unknown.annotate({
    description:
      "Removed in v0.4.10 (the merchant is identified by merchantId): a request carrying it is refused (422).",
  }),
)

export const CardPaymentRequest = Schema.Struct({
  merchantId: Ids.MerchantId,
  amount: Money.WireAmount,
  last4: Schema.String.annotate({ description: "The last 4 digits of the card number (never the full number)" }),
  brand: Schema.String.annotate({ description: "Card brand, e.g. visa (at most 32 characters)" }),
  externalReference: Schema.String.annotate({
    description:
      "The terminal's or processor's id of the payment (at most 128 characters). With merchantId it identifies the payment: a retry answers the same cardPaymentId.",
  }),
  companyId: removed,
  companyReferenceId: removed,
  CompanyId: removed,
  CompanyReferenceId: removed,
})

export const CardPaymentResponse = Schema.Struct({
  cardPaymentId: Ids.CardPaymentId,
  status: Schema.Literal("Registered"),
})

/** Spec 2.12. */
export const CardPaymentMethodsResponse = Schema.Struct({
  registrationId: Ids.RegistrationId,
  paymentMethods: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      type: Schema.String,
      brand: Schema.String,
      last4: Schema.String,
      expMonth: Schema.Int,
      expYear: Schema.Int,
    }),
  ),
})

/** A card setup started at the card processor, for the app to complete with the processor's SDK. */
export const CardSetupResponse = Schema.Struct({
  registrationId: Ids.RegistrationId,
  setupIntentId: Schema.String,
  clientSecret: Schema.String,
})

export class CardPaymentApi extends HttpApiGroup.make("cardPayments")
  .add(
    HttpApiEndpoint.post("register", "/cardpayment", {
      payload: CardPaymentRequest,
      success: CardPaymentResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Register an external card payment",
        description:
          "For partners. Records a card payment made on an external terminal for a merchant. Retry-safe by merchantId + externalReference; the same reference with other details is 409. A merchantId that is one of the partner's companies credits that company's balance at once (a card item of its next payout; 422 COMPANY_NOT_VERIFIED when it is not Verified). A declined card is 422 CARD_DECLINED; a service running without a card processor answers 422 FEATURE_NOT_AVAILABLE (naming the capability).",
      }),
    ),
    HttpApiEndpoint.get("cardPaymentMethods", "/Payment/CardPaymentMethods/:registrationId", {
      params: { registrationId: Ids.RegistrationId },
      query: {
        type: Schema.optionalKey(
          Schema.String.annotate({ description: "Only methods of this type (case-insensitive), e.g. card" }),
        ),
      },
      success: CardPaymentMethodsResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "List a customer's saved card payment methods",
        description:
          "For the partner (any of its customers) or the customer itself (its own registrationId; another is 404). Methods in the order first saved.",
      }),
    ),
  )
  .add(
    HttpApiEndpoint.post("setupCard", "/Payment/CardPaymentMethods/:registrationId/Setup", {
      params: { registrationId: Ids.RegistrationId },
      success: CardSetupResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Start adding a saved card",
        description:
          "For the partner (any of its customers) or the customer itself (its own registrationId; another is 404). Starts the card processor's setup of a new card for the customer (Stripe: a SetupIntent for off-session payments) and answers its client secret, which the app completes with the processor's SDK on the device (Stripe: confirmCardSetup / the Payment Sheet): card details never reach this service. When the processor confirms the card (Stripe: its setup_intent.succeeded webhook) it is saved and listed by GET /Payment/CardPaymentMethods/{registrationId}. Nothing is recorded by this call; asking again starts another setup. The sandbox simulates it (a secret that completes nothing: sandbox cards are saved with POST /Sandbox/CardPaymentMethods). A service without a card processor answers 422 FEATURE_NOT_AVAILABLE.",
      }),
    ),
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Card payments", description: "External card payments, saved cards" })) {}
