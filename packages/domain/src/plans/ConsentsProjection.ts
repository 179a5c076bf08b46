/**
 * Read model `consents`: one document per payer consent (spec 3.2, changelog
 * v0.4.1-v0.4.4), the answer to GET /Consent/List and GET /Consent/{id}.
 *
 * Indexed by the consent's partner, its payer (`payerRegistrationId`),
 * `listable` ("true" for Pending and Accepted, the only consents the list
 * shows) and its `paymentPlanId`; sorted by creation instant.
 *
 * The consent events do not carry the plan's recurrence interval and start
 * date, which the consent response shows; the plan's `PaymentPlanCreated`
 * (same consent id, same unit of work) does. The projection therefore reads
 * both streams and merges them whichever comes first, so it stays a pure
 * function of the log. The recipient company is not copied: the use case joins
 * the company's current contact data at query time.
 */
import { DateTime, Schema } from "effect"
import type * as Envelope from "../infrastructure/Envelope.ts"
import type { Projection } from "../infrastructure/ReadModel.ts"
import { CalendarDate } from "../kernel/CalendarDate.ts"
import * as Ids from "../kernel/Ids.ts"
import { AuthorizationEvidence } from "../payments/index.ts"
import { ConsentStatus, isListable } from "./Consent.ts"
import { type ConsentEvent, ConsentTerms } from "./ConsentEvents.ts"
import type { PaymentPlanEvent } from "./PaymentPlanEvents.ts"

/** The events this read model reads. */
export type ConsentsEnvelope = Envelope.Of<"Consent", ConsentEvent> | Envelope.Of<"PaymentPlan", PaymentPlanEvent>

export const ConsentDocument = Schema.Struct({
  ...ConsentTerms.fields,
  status: ConsentStatus,
  recurrenceInterval: Schema.optionalKey(Schema.Number),
  startDate: Schema.optionalKey(CalendarDate),
  bankAccountId: Schema.optionalKey(Ids.BankAccountId),
  createdAt: Schema.DateTimeUtcFromString,
  acceptedAt: Schema.optionalKey(Schema.DateTimeUtcFromString),
  declinedAt: Schema.optionalKey(Schema.DateTimeUtcFromString),
  revokedAt: Schema.optionalKey(Schema.DateTimeUtcFromString),
  authorization: Schema.optionalKey(AuthorizationEvidence.AuthorizationEvidence),
})
export type ConsentDocument = typeof ConsentDocument.Type

const key = (envelope: ConsentsEnvelope): string | undefined => {
  if (envelope.streamType === "Consent") return envelope.event.consentId
  if (envelope.streamType === "PaymentPlan" && envelope.event._tag === "PaymentPlanCreated") {
    return envelope.event.consentId
  }
  return undefined
}

/** The consent document after one event (pure). */
export const apply = (
  current: ConsentDocument | undefined,
  envelope: ConsentsEnvelope,
): ConsentDocument | undefined => {
  if (envelope.streamType === "PaymentPlan") {
    const event = envelope.event
    if (event._tag !== "PaymentPlanCreated") return current
    const schedule = { recurrenceInterval: event.recurrenceInterval, startDate: event.startDate }
    if (current !== undefined) return { ...current, ...schedule }
    // The plan was recorded before its consent: the consent's terms are the plan's.
    return {
      consentId: event.consentId,
      paymentPlanId: event.paymentPlanId,
      partnerId: event.partnerId,
      companyId: event.companyId,
      payerRegistrationId: event.payerRegistrationId,
      status: "Pending",
      amount: event.amount,
      frequency: event.frequency,
      ...schedule,
      createdAt: event.at,
    }
  }
  if (envelope.streamType !== "Consent") return current
  const event = envelope.event
  switch (event._tag) {
    case "ConsentRequested": {
      const { _tag, at, ...terms } = event
      return { ...current, ...terms, status: current?.status ?? "Pending", createdAt: at }
    }
    case "ConsentAccepted":
      return current === undefined
        ? undefined
        : {
            ...current,
            status: "Accepted",
            bankAccountId: event.bankAccountId,
            acceptedAt: event.at,
            ...(event.authorization === undefined ? {} : { authorization: event.authorization }),
          }
    case "ConsentDeclined":
      return current === undefined ? undefined : { ...current, status: "Declined", declinedAt: event.at }
    case "ConsentRevoked":
      return current === undefined ? undefined : { ...current, status: "Revoked", revokedAt: event.at }
  }
}

export const consents: Projection<ConsentDocument, ConsentsEnvelope> = {
  collection: "consents",
  document: ConsentDocument,
  streamTypes: ["Consent", "PaymentPlan"],
  ownedBy: "Consent",
  key,
  apply,
  index: (doc) => ({
    partnerId: doc.partnerId,
    keys: {
      payerRegistrationId: doc.payerRegistrationId,
      listable: isListable(doc.status) ? "true" : "false",
      paymentPlanId: doc.paymentPlanId,
    },
    sortKey: DateTime.formatIso(doc.createdAt),
  }),
}
