/** Handlers of the `charity` group: anonymous donations (partner or customer tokens). */
import { Charity, Traced } from "@partnerpay/domain"
import { DateTime } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import * as AuthorizationClient from "../cross-cutting/AuthorizationClient.ts"
import { Caller } from "../cross-cutting/Caller.ts"
import * as MoneyResponse from "../cross-cutting/MoneyResponse.ts"
import * as Problem from "../cross-cutting/Problem.ts"

/** A gift as the wire shows it. */
const giftResponse = (gift: Charity.GiftView) => {
  const recurrence = gift.recurrence
  return {
    charityTransactionId: gift.charityTransactionId,
    companyId: gift.companyId,
    amount: MoneyResponse.toResponse(gift.amount),
    fee: MoneyResponse.toResponse(gift.fee),
    payerCharged: MoneyResponse.toResponse(gift.payerCharged),
    charityReceives: MoneyResponse.toResponse(gift.charityReceives),
    isRecurring: gift.isRecurring,
    ...(gift.transferId === undefined ? {} : { transferId: gift.transferId }),
    createdAt: DateTime.formatIso(gift.createdAt),
    ...(gift.authorization === undefined ? {} : { authorization: gift.authorization }),
    ...(recurrence === undefined
      ? {}
      : {
          recurrence: {
            status: recurrence.status,
            frequency: "Monthly" as const,
            startDate: recurrence.startDate,
            lastCollectionDate: recurrence.lastDueDate,
            collections: recurrence.collections,
            ...(recurrence.status === "Active"
              ? { nextCollectionDate: recurrence.nextDueDate }
              : { stopReason: recurrence.stopReason }),
          },
        }),
  }
}

export const CharityLive = HttpApiBuilder.group(Api, "charity", (handlers) =>
  handlers
    .handle(
      "gift",
      Traced.fn("CharityLive.gift")(function* ({ params }) {
        const caller = yield* Caller
        const gift = yield* Charity.gift({
          partnerId: caller.partnerId,
          ...(caller._tag === "Customer" ? { donor: caller.registrationId } : {}),
          charityTransactionId: params.charityTransactionId,
        })
        return giftResponse(gift)
      }, Problem.domainProblems),
    )
    .handle(
      "cancelRecurring",
      Traced.fn("CharityLive.cancelRecurring")(function* ({ params }) {
        const caller = yield* Caller
        const gift = yield* Charity.cancelRecurring({
          partnerId: caller.partnerId,
          ...(caller._tag === "Customer" ? { donor: caller.registrationId } : {}),
          charityTransactionId: params.charityTransactionId,
        })
        return giftResponse(gift)
      }, Problem.domainProblems),
    )
    .handle(
      "createAnonymous",
      Traced.fn("CharityLive.createAnonymous")(function* ({ payload }) {
        const caller = yield* Caller
        // A customer gives from their own account; a partner names the donor by their verification id.
        const created = yield* Charity.createAnonymous({
          partnerId: caller.partnerId,
          ...(caller._tag === "Customer" ? { donor: caller.registrationId } : {}),
          ...payload,
          client: yield* AuthorizationClient.current,
        })
        return {
          charityTransactionId: created.charityTransactionId,
          amount: MoneyResponse.toResponse(created.amount),
          fee: MoneyResponse.toResponse(created.fee),
          payerCharged: MoneyResponse.toResponse(created.payerCharged),
          charityReceives: MoneyResponse.toResponse(created.charityReceives),
          transferId: created.transferId,
        }
      }, Problem.domainProblems),
    ),
)
