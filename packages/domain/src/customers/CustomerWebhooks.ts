/**
 * The customer's webhooks:
 * - CUSTOMER_VERIFICATION_STATUS_CHANGED: the identity verification (KYC)
 *   completed, Verified or Rejected. Data { RegistrationId, Status, Timestamp }.
 * - BANK_ACCOUNT_LINKED: accounts were linked (or re-linked) through a
 *   bank-link session. Data { RegistrationId, Accounts: [{ BankAccountId,
 *   Mask }], Timestamp }.
 * - BANK_ACCOUNT_REMOVED: the customer removed a linked account (or revoked
 *   it at the bank-link provider). Data { RegistrationId, BankAccountId, Timestamp }.
 * - BANK_ACCOUNT_RELINK_REQUIRED: the bank-link provider says the customer
 *   must link again (the bank asks them to log in again, or their consent
 *   expires), or the account's bank returned a debit with an account-level
 *   code (R02, R03, R04...: `relinkOnReturnRule`, Reason = the code): the
 *   accounts cannot be debited until then. Data
 *   { RegistrationId, BankAccountIds, Reason, Timestamp }.
 * No personal data: ids, the accounts' last four digits, statuses.
 */
import { DateTime } from "effect"
import type * as Envelope from "../infrastructure/Envelope.ts"
import * as WebhookRule from "../infrastructure/WebhookRule.ts"
import type { BankLinkItemEvent } from "./BankLinkItem.ts"
import type { CustomerEvent } from "./CustomerEvents.ts"

type CustomerEnvelope = Envelope.Of<"Customer", CustomerEvent>
type BankLinkItemEnvelope = Envelope.Of<"BankLinkItem", BankLinkItemEvent>

export const verificationEventType = "CUSTOMER_VERIFICATION_STATUS_CHANGED"
export const linkedEventType = "BANK_ACCOUNT_LINKED"
export const removedEventType = "BANK_ACCOUNT_REMOVED"
export const relinkEventType = "BANK_ACCOUNT_RELINK_REQUIRED"

export const verificationRule = WebhookRule.perEvent<CustomerEnvelope>({
  streamTypes: ["Customer"],
  eventType: verificationEventType,
  announce: (event) =>
    event._tag === "KycVerified" || event._tag === "KycRejected"
      ? {
          partnerId: event.partnerId,
          data: {
            RegistrationId: event.registrationId,
            Status: event._tag === "KycVerified" ? "Verified" : "Rejected",
            Timestamp: DateTime.formatIso(event.at),
          },
        }
      : undefined,
})

export const linkedRule = WebhookRule.perEvent<CustomerEnvelope>({
  streamTypes: ["Customer"],
  eventType: linkedEventType,
  announce: (event) =>
    event._tag === "BankAccountsLinked"
      ? {
          partnerId: event.partnerId,
          data: {
            RegistrationId: event.registrationId,
            Accounts: event.accounts.map((account) => ({ BankAccountId: account.bankAccountId, Mask: account.mask })),
            Timestamp: DateTime.formatIso(event.at),
          },
        }
      : undefined,
})

export const removedRule = WebhookRule.perEvent<CustomerEnvelope>({
  streamTypes: ["Customer"],
  eventType: removedEventType,
  announce: (event) =>
    event._tag === "BankAccountUnlinked"
      ? {
          partnerId: event.partnerId,
          data: {
            RegistrationId: event.registrationId,
            BankAccountId: event.bankAccountId,
            Timestamp: DateTime.formatIso(event.at),
          },
        }
      : undefined,
})

export const relinkRule = WebhookRule.perEvent<BankLinkItemEnvelope>({
  streamTypes: ["BankLinkItem"],
  eventType: relinkEventType,
  announce: (event) =>
    event._tag === "BankLinkRepairRequested"
      ? {
          partnerId: event.partnerId,
          data: {
            RegistrationId: event.registrationId,
            BankAccountIds: event.bankAccountIds,
            Reason: event.reason,
            Timestamp: DateTime.formatIso(event.at),
          },
        }
      : undefined,
})

/** An account-level ACH return made the account unusable: the customer must link it again (Reason = the code). */
export const relinkOnReturnRule = WebhookRule.perEvent<CustomerEnvelope>({
  streamTypes: ["Customer"],
  eventType: relinkEventType,
  announce: (event) =>
    event._tag === "BankAccountUnusable"
      ? {
          partnerId: event.partnerId,
          data: {
            RegistrationId: event.registrationId,
            BankAccountIds: [event.bankAccountId],
            Reason: event.returnCode,
            Timestamp: DateTime.formatIso(event.at),
          },
        }
      : undefined,
})
