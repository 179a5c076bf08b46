/**
 * The DEBIT_AUTHORIZATION_CHANGED webhook: a payer's debit authorization for
 * a company was set, its limit changed, or it was enabled or disabled. Data
 * { DebitAuthId, CompanyId, RegistrationId, Change (Set, LimitUpdated,
 * Enabled, Disabled, Revoked), Enabled, Limit { value, currencyCode } (when the change
 * sets it), ReturnCode (Revoked: the unauthorized return that revoked it), Timestamp }. The debits made under it are payment requests, with
 * their own webhook.
 */
import type * as Envelope from "../infrastructure/Envelope.ts"
import * as WebhookRule from "../infrastructure/WebhookRule.ts"
import * as Money from "../kernel/Money.ts"
import type { DebitAuthEvent } from "./DebitAuthEvents.ts"

export const eventType = "DEBIT_AUTHORIZATION_CHANGED"

/** The change an event announces: what changed, whether debits are enabled after it, its limit and return code. */
interface Change {
  readonly change: "Set" | "LimitUpdated" | "Enabled" | "Disabled" | "Revoked"
  readonly enabled: boolean
  readonly limit?: Money.Money
  readonly returnCode?: string
}

const changeOf = (event: DebitAuthEvent): Change | undefined => {
  switch (event._tag) {
    case "DebitAuthSet":
      return { change: "Set", enabled: true, limit: event.limit }
    case "DebitAuthLimitUpdated":
      return { change: "LimitUpdated", enabled: true, limit: event.limit }
    case "DebitAuthEnabled":
      return { change: "Enabled", enabled: true }
    case "DebitAuthDisabled":
      return { change: "Disabled", enabled: false }
    case "DebitAuthRevoked":
      return { change: "Revoked", enabled: false, returnCode: event.returnCode }
    case "DebitAuthorized":
      return undefined
  }
}

export const rule = WebhookRule.perChange<Envelope.Of<"DebitAuth", DebitAuthEvent>, Change>({
  streamTypes: ["DebitAuth"],
  eventType,
  changeOf,
  data: (event, change) => ({
    DebitAuthId: event.debitAuthId,
    CompanyId: event.companyId,
    RegistrationId: event.registrationId,
    Change: change.change,
    ...(change.change === "LimitUpdated" ? {} : { Enabled: change.enabled }),
    ...(change.limit === undefined
      ? {}
      : { Limit: { value: Money.toDecimal(change.limit), currencyCode: change.limit.currency } }),
    ...(change.returnCode === undefined ? {} : { ReturnCode: change.returnCode }),
  }),
})
