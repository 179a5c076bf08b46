/** Handlers of the `debitAuth` group: set, update and list (customer), read one payer's (partner or customer). */
import { DebitAuths, Money, Traced } from "@partnerpay/domain"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { requireCustomer } from "../cross-cutting/Authentication.ts"
import * as AuthorizationClient from "../cross-cutting/AuthorizationClient.ts"
import * as MoneyResponse from "../cross-cutting/MoneyResponse.ts"
import * as Problem from "../cross-cutting/Problem.ts"
import { partnerForCustomer } from "../customers/CustomerAccess.ts"

const toResponse = ({ registrationId: _registrationId, ...view }: DebitAuths.DebitAuthView) => ({
  ...view,
  limit: MoneyResponse.toResponse(view.limit),
})

export const DebitAuthLive = HttpApiBuilder.group(Api, "debitAuth", (handlers) =>
  handlers
    .handle(
      "set",
      Traced.fn("DebitAuthLive.set")(function* ({ payload }) {
        const { partnerId, registrationId } = yield* requireCustomer
        const view = yield* DebitAuths.set({
          partnerId,
          registrationId,
          companyId: payload.companyId,
          limit: payload.limit,
          client: yield* AuthorizationClient.current,
        })
        // Without the evidence: a POST answer is stored for Idempotency-Key retries, unsealed; the evidence's
        // address and agent are sealed at rest (docs/personal-data.md). It is read on the list and detail.
        const { authorization: _evidence, ...answer } = toResponse(view)
        return answer
      }, Problem.domainProblems),
    )
    .handle(
      "update",
      Traced.fn("DebitAuthLive.update")(function* ({ params, payload }) {
        const { partnerId, registrationId } = yield* requireCustomer
        const view = yield* DebitAuths.update({
          partnerId,
          registrationId,
          debitAuthId: params.debitAuthId,
          limit: payload.limit,
          enabled: payload.enabled,
          client: yield* AuthorizationClient.current,
        })
        return toResponse(view)
      }, Problem.domainProblems),
    )
    .handle(
      "list",
      Traced.fn("DebitAuthLive.list")(function* () {
        const { partnerId, registrationId } = yield* requireCustomer
        const items = yield* DebitAuths.list(partnerId, registrationId)
        return {
          debitAuths: items.map((item) => ({
            debitAuthId: { value: item.debitAuthId },
            companyId: { value: item.companyId },
            enabled: item.enabled,
            preAuthLimit: Money.toDecimal(item.limit),
            companyName: item.companyName,
            status: item.status,
            ...(item.authorization === undefined ? {} : { authorization: item.authorization }),
          })),
        }
      }, Problem.domainProblems),
    )
    .handle(
      "forUser",
      Traced.fn("DebitAuthLive.forUser")(function* ({ params, query }) {
        const partnerId = yield* partnerForCustomer(params.registrationId)
        const view = yield* DebitAuths.forUser(partnerId, params.registrationId, query.companyId)
        return {
          enabled: view.enabled,
          limit: Money.toDecimal(view.limit),
          status: view.status,
          ...(view.authorization === undefined ? {} : { authorization: view.authorization }),
        }
      }, Problem.domainProblems),
    ),
)
