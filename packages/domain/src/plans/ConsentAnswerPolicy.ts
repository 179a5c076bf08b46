/**
 * Policy: a consent's answer reaches its plan. When the payer accepts a
 * consent the plan records RecordConsentAccepted; when the payer declines
 * (Pending) or revokes (Accepted) it, the plan records
 * RecordConsentWithdrawn (and cancels). The reaction itself is
 * `PaymentPlan.consentPolicy`.
 */
import * as Policy from "../infrastructure/Policy.ts"
import * as Consent from "./Consent.ts"
import * as PaymentPlan from "./PaymentPlan.ts"

export const policy = Policy.make({
  name: "a consent's answer reaches its plan",
  source: Consent.aggregate,
  reactsTo: ["ConsentAccepted", "ConsentDeclined", "ConsentRevoked"],
  target: PaymentPlan.aggregate,
  react: (event: Consent.Event) => {
    const command = PaymentPlan.consentPolicy(event)
    return command === undefined ? undefined : { id: command.paymentPlanId, command }
  },
})
