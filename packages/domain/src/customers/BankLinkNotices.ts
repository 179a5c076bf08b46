/**
 * The bank-link provider's verified notifications, routed: a notice that a
 * customer's identity verification changed (`CheckIdentity`: KYC on the same
 * provider, Plaid Identity Verification) asks the verdict as the customer's
 * own check does (`Verification.recheck`: one decision, whether the verdict
 * comes by webhook or by polling); every other notice is about an item
 * (`BankLinkUpdates.receive`).
 */
import type { RegistrationId } from "../kernel/Ids.ts"
import * as Traced from "../kernel/Traced.ts"
import * as BankLinkUpdates from "./BankLinkUpdates.ts"
import type { BankLinkCallback } from "./CustomerProviders.ts"
import * as Verification from "./Verification.ts"

/** Acts on a verified notification of the bank-link provider. */
export const receive = Traced.fn("BankLinkNotices.receive")(function* (notification: BankLinkCallback) {
  if (notification.action !== "CheckIdentity") return yield* BankLinkUpdates.receive(notification)
  const checked = yield* Verification.recheck((notification.registrationId ?? "") as RegistrationId)
  return (checked === undefined ? "UnknownCustomer" : "Recorded") as BankLinkUpdates.Received
})
