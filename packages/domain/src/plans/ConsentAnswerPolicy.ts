/**
 * Policy: a consent's answer reaches its plan. When the payer accepts a
 * consent the plan records RecordConsentAccepted; when the payer declines
 * (Pending) or revokes (Accepted) it, the plan records
 * RecordConsentWithdrawn (and cancels). A consent request tells the plan
 * nothing new (the plan was created with its consent Pending).
 */
import * as Policy from "../infrastructure/Policy.ts"
import * as Consent from "./Consent.ts"
import type { ConsentEvent } from "./ConsentEvents.ts"
import * as PaymentPlan from "./PaymentPlan.ts"

/** What a consent event tells its plan: the policy command, or nothing. */
export const consentPolicy = (
  event: ConsentEvent,
): PaymentPlan.RecordConsentAccepted | PaymentPlan.RecordConsentWithdrawn | undefined => {
  if (event._tag === "ConsentRequested") return undefined
  const { paymentPlanId, consentId, at } = event
  if (event._tag === "ConsentAccepted") return { _tag: "RecordConsentAccepted", paymentPlanId, consentId, at }
  const withdrawn = { _tag: "RecordConsentWithdrawn", paymentPlanId, consentId, at } as const
  if (event._tag === "ConsentDeclined") return { ...withdrawn, withdrawal: "Declined" }
  // Only a revocation carries a return code (an unauthorized return revoked it).
  return {
    ...withdrawn,
    withdrawal: "Revoked",
    ...(event.returnCode === undefined ? {} : { returnCode: event.returnCode }),
  }
}

export const policy = Policy.make({
  name: "a consent's answer reaches its plan",
  source: Consent.aggregate,
  reactsTo: ["ConsentAccepted", "ConsentDeclined", "ConsentRevoked"],
  target: PaymentPlan.aggregate,
  react: (event: Consent.Event) => {
    const command = consentPolicy(event)
    return command === undefined ? undefined : { id: command.paymentPlanId, command }
  },
})
