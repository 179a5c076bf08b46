/** Handlers of the `charity` group: anonymous donations (partner or customer tokens). */
import { Charity, Traced } from "@partnerpay/domain"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { Caller } from "../cross-cutting/Caller.ts"
import * as MoneyResponse from "../cross-cutting/MoneyResponse.ts"
import * as Problem from "../cross-cutting/Problem.ts"

export const CharityLive = HttpApiBuilder.group(Api, "charity", (handlers) =>
  handlers.handle(
    "createAnonymous",
    Traced.fn("CharityLive.createAnonymous")(function* ({ payload }) {
      const caller = yield* Caller
      // A customer gives from their own account; a partner names the donor by their verification id.
      const created = yield* Charity.createAnonymous({
        partnerId: caller.partnerId,
        ...(caller._tag === "Customer" ? { donor: caller.registrationId } : {}),
        ...payload,
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
