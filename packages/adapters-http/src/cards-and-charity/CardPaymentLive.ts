/** Handlers of the `cardPayments` group: POST /cardpayment, saved card payment methods and their setup. */
import { CardPayments, CustomerPreferences, DomainError, Traced } from "@partnerpay/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { requirePartner } from "../cross-cutting/Authentication.ts"
import * as Problem from "../cross-cutting/Problem.ts"
import { partnerForCustomer } from "../customers/CustomerAccess.ts"

const removedFields = ["companyId", "companyReferenceId", "CompanyId", "CompanyReferenceId"] as const

export const CardPaymentLive = HttpApiBuilder.group(Api, "cardPayments", (handlers) =>
  handlers
    .handle(
      "register",
      Traced.fn("CardPaymentLive.register")(function* ({ payload }) {
        const { partnerId } = yield* requirePartner
        const stale = removedFields.filter((field) => payload[field] !== undefined)
        if (stale.length > 0) {
          return yield* Effect.fail(
            Problem.fromDomain(
              new DomainError.ValidationFailed({
                issues: stale.map((field) => ({
                  field,
                  message: "is no longer accepted (removed in v0.4.10): identify the merchant with merchantId",
                })),
              }),
            ),
          )
        }
        return yield* CardPayments.register({
          partnerId,
          merchantId: payload.merchantId,
          amount: payload.amount,
          last4: payload.last4,
          brand: payload.brand,
          externalReference: payload.externalReference,
        })
      }, Problem.domainProblems),
    )
    .handle(
      "cardPaymentMethods",
      Traced.fn("CardPaymentLive.cardPaymentMethods")(function* ({ params, query }) {
        const partnerId = yield* partnerForCustomer(params.registrationId)
        return yield* CustomerPreferences.cardPaymentMethods(partnerId, params.registrationId, {
          type: query.type,
        })
      }, Problem.domainProblems),
    )
    .handle(
      "setupCard",
      Traced.fn("CardPaymentLive.setupCard")(function* ({ params }) {
        const partnerId = yield* partnerForCustomer(params.registrationId)
        return yield* CustomerPreferences.setupCard(partnerId, params.registrationId)
      }, Problem.domainProblems),
    ),
)
