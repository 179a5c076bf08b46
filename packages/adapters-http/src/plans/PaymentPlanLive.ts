/**
 * Handlers of the `paymentPlans` group: create (plan + consent), read, and
 * the partner's moves. A refusal because the payer's consent is not Accepted
 * (RuleViolated CONSENT_NOT_ACCEPTED) is answered 409 CONSENT_NOT_ACCEPTED: the
 * plan's situation, not the request, is what stands in the way, and the same
 * request succeeds once the payer accepts.
 */
import { PaymentPlans, type PaymentPlansProjection, Traced } from "@partnerpay/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { requirePartner } from "../cross-cutting/Authentication.ts"
import * as MoneyResponse from "../cross-cutting/MoneyResponse.ts"
import * as Problem from "../cross-cutting/Problem.ts"

/** Domain errors as problems, with CONSENT_NOT_ACCEPTED as a 409. */
export const planProblem = (error: Problem.DomainFailure): Problem.DomainProblem =>
  error._tag === "RuleViolated" && error.code === "CONSENT_NOT_ACCEPTED"
    ? new Problem.IllegalTransitionProblem({ detail: error.reason, code: "CONSENT_NOT_ACCEPTED" })
    : Problem.fromDomain(error)

export const toResponse = (plan: PaymentPlansProjection.PaymentPlanDocument) => ({
  paymentPlanId: plan.paymentPlanId,
  consentId: plan.consentId,
  companyId: plan.companyId,
  payerRegistrationId: plan.payerRegistrationId,
  status: plan.status,
  consentStatus: plan.consentStatus,
  amount: MoneyResponse.toResponse(plan.amount),
  frequency: plan.frequency,
  recurrenceInterval: plan.recurrenceInterval,
  startDate: plan.startDate,
  ...(plan.numberOfPayments !== undefined ? { numberOfPayments: plan.numberOfPayments } : {}),
  ...(plan.endDate !== undefined ? { endDate: plan.endDate } : {}),
  ...(plan.description !== undefined ? { description: plan.description } : {}),
  metadata: plan.metadata ?? {},
  ...(plan.nextDueDate !== undefined ? { nextDueDate: plan.nextDueDate } : {}),
  collectedCount: plan.collectedCount,
  settledCount: plan.settledCount,
  failedCount: plan.failedCount,
  instalments: plan.instalments,
  ...(plan.cancellationReason !== undefined ? { cancellationReason: plan.cancellationReason } : {}),
  createdAt: plan.createdAt,
})

const moveHandler = (move: typeof PaymentPlans.activate) =>
  Traced.fn("PaymentPlanLive.move")(function* ({ params }: { readonly params: { readonly paymentPlanId: string } }) {
    const { partnerId } = yield* requirePartner
    const plan = yield* move(partnerId, params.paymentPlanId).pipe(Effect.mapError(planProblem))
    return toResponse(plan)
  })

export const PaymentPlanLive = HttpApiBuilder.group(Api, "paymentPlans", (handlers) =>
  handlers
    .handle(
      "create",
      Traced.fn("PaymentPlanLive.create")(function* ({ payload }) {
        const { partnerId } = yield* requirePartner
        const created = yield* PaymentPlans.create({
          partnerId,
          companyId: payload.companyId,
          companyReferenceId: payload.companyReferenceId,
          payerRegistrationId: payload.payerRegistrationId,
          amount: payload.amount,
          frequency: payload.frequency,
          recurrenceInterval: payload.recurrenceInterval,
          startDate: payload.startDate,
          numberOfPayments: payload.numberOfPayments,
          endDate: payload.endDate,
          description: payload.description,
          metadata: payload.metadata,
        }).pipe(Effect.mapError(planProblem))
        return { paymentPlanId: created.paymentPlanId, consentId: created.consentId, status: created.status }
      }),
    )
    .handle(
      "get",
      Traced.fn("PaymentPlanLive.get")(function* ({ params }) {
        const { partnerId } = yield* requirePartner
        const plan = yield* PaymentPlans.get(partnerId, params.paymentPlanId).pipe(Effect.mapError(planProblem))
        return toResponse(plan)
      }),
    )
    .handle(
      "setMetadata",
      Traced.fn("PaymentPlanLive.setMetadata")(function* ({ params, payload }) {
        const { partnerId } = yield* requirePartner
        return yield* PaymentPlans.setMetadata(partnerId, params.paymentPlanId, payload.metadata)
      }, Problem.domainProblems),
    )
    .handle("activate", moveHandler(PaymentPlans.activate))
    .handle("pause", moveHandler(PaymentPlans.pause))
    .handle("resume", moveHandler(PaymentPlans.resume))
    .handle("cancel", moveHandler(PaymentPlans.cancel)),
)
