/**
 * The `debit_auths` read model: one document per debit authorization, with the
 * limit in force and the status, found by payer (`registrationId`) and company.
 * It answers GET /DebitAuth/List (the customer's authorizations) and
 * GET /User/{registrationId}/DebitAuth (one payer's authorization), and lets
 * POST /DebitAuth/Set find an existing authorization for a company.
 *
 * Built from DebitAuth events alone (each carries partner, company and payer).
 * The company name is not copied here: it is read when answering, so a renamed
 * company shows its current name.
 */

import { DateTime, Schema } from "effect"
import type * as Envelope from "../infrastructure/Envelope.ts"
import { type Projection, perAggregate } from "../infrastructure/ReadModel.ts"
import { Money } from "../kernel/Money.ts"
import * as Payload from "../kernel/Payload.ts"
import { AuthorizationEvidence } from "./AuthorizationEvidence.ts"
import { DebitAuthStatus } from "./DebitAuth.ts"
import { type DebitAuthEvent, DebitAuthParties } from "./DebitAuthEvents.ts"

/** The events this read model reads. */
export type DebitAuthEnvelope = Envelope.Of<"DebitAuth", DebitAuthEvent>

export const collection = "debit_auths"

export const DebitAuthDocument = Schema.Struct({
  ...DebitAuthParties.fields,
  /** The limit per debit in force. */
  limit: Money,
  status: DebitAuthStatus,
  setAt: Schema.DateTimeUtcFromString,
  updatedAt: Schema.DateTimeUtcFromString,
  /** The evidence of the payer's latest authorization (set, limit change, enabling), when recorded. */
  authorization: Schema.optionalKey(AuthorizationEvidence),
})
export type DebitAuthDocument = typeof DebitAuthDocument.Type

export const projection: Projection<DebitAuthDocument, DebitAuthEnvelope> = {
  collection,
  document: DebitAuthDocument,
  ...perAggregate<DebitAuthEnvelope>("DebitAuth", (event) => event.debitAuthId),
  creates: ["DebitAuthSet"],
  apply: (current, envelope) => {
    if (envelope.streamType !== "DebitAuth") return current
    const event = envelope.event
    if (event._tag === "DebitAuthSet") {
      return {
        ...Payload.pick(DebitAuthParties, event),
        limit: event.limit,
        status: "Active",
        setAt: event.at,
        updatedAt: event.at,
        ...(event.authorization === undefined ? {} : { authorization: event.authorization }),
      }
    }
    if (current === undefined) return undefined
    switch (event._tag) {
      case "DebitAuthLimitUpdated":
        return {
          ...current,
          limit: event.limit,
          updatedAt: event.at,
          ...(event.authorization === undefined ? {} : { authorization: event.authorization }),
        }
      case "DebitAuthEnabled":
        return {
          ...current,
          status: "Active",
          updatedAt: event.at,
          ...(event.authorization === undefined ? {} : { authorization: event.authorization }),
        }
      case "DebitAuthDisabled":
        return { ...current, status: "Disabled", updatedAt: event.at }
      case "DebitAuthRevoked":
        return { ...current, status: "Revoked", updatedAt: event.at }
      case "DebitAuthorized":
        return current
    }
  },
  index: (doc) => ({
    partnerId: doc.partnerId,
    keys: { registrationId: doc.registrationId, companyId: doc.companyId },
    sortKey: DateTime.formatIso(doc.setAt),
  }),
}
