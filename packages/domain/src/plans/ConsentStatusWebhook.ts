/**
 * The CONSENT_STATUS_CHANGED webhook: the payer answered a consent request.
 * Accepted, Declined (a Pending consent refused) or Revoked (an Accepted one
 * withdrawn). Data { ConsentId, PaymentPlanId, CompanyId, PayerRegistrationId,
 * Status, Timestamp }. A Declined or Revoked consent also cancels its plan,
 * which PAYMENT_PLAN_STATUS_CHANGED announces.
 */
import type * as Envelope from "../infrastructure/Envelope.ts"
import * as WebhookRule from "../infrastructure/WebhookRule.ts"
import type { ConsentEvent } from "./ConsentEvents.ts"

export const eventType = "CONSENT_STATUS_CHANGED"

const statusOf = (event: ConsentEvent): "Accepted" | "Declined" | "Revoked" | undefined => {
  switch (event._tag) {
    case "ConsentAccepted":
      return "Accepted"
    case "ConsentDeclined":
      return "Declined"
    case "ConsentRevoked":
      return "Revoked"
    case "ConsentRequested":
      return undefined
  }
}

export const rule = WebhookRule.perChange<Envelope.Of<"Consent", ConsentEvent>, ReturnType<typeof statusOf> & string>({
  streamTypes: ["Consent"],
  eventType,
  changeOf: statusOf,
  data: (event, status) => ({
    ConsentId: event.consentId,
    PaymentPlanId: event.paymentPlanId,
    CompanyId: event.companyId,
    PayerRegistrationId: event.payerRegistrationId,
    Status: status,
  }),
})
