/**
 * Use cases of the bank-link provider's connections (items): remember which
 * of a customer's accounts came through an item when they are linked
 * (`connect`), and act on the provider's verified notifications (`receive`):
 * a repair request is recorded once on the item; a revocation is recorded on
 * the item, then each revoked account is unlinked from the customer (the
 * `BankAccountUnlinked` event and its BANK_ACCOUNT_REMOVED webhook). A
 * notification about an unknown item, or one asking nothing, changes
 * nothing; a repeated one records nothing new (unlinking twice is a no-op).
 * A notification that a customer's identity verification changed is not an
 * item's: `BankLinkNotices.receive` routes it to `Verification.recheck`.
 */
import { DateTime, Effect } from "effect"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import type { BankAccountId, PartnerId, RegistrationId } from "../kernel/Ids.ts"
import * as Traced from "../kernel/Traced.ts"
import * as BankLinkItem from "./BankLinkItem.ts"
import * as Customer from "./Customer.ts"
import type { BankLinkCallback } from "./CustomerProviders.ts"

/** Records the accounts linked through `itemId` (after they were linked to the customer). */
export const connect = UseCase.fn("BankLinkUpdates.connect")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
  itemId: string,
  accounts: ReadonlyArray<BankLinkItem.ItemAccount>,
) {
  return yield* CommandHandler.handleNow(BankLinkItem.aggregate, itemId, {
    _tag: "ConnectItem",
    itemId,
    partnerId,
    registrationId,
    accounts,
  })
})

const onItem = UseCase.fn("BankLinkUpdates.onItem")(function* (
  itemId: string,
  command: BankLinkItem.RequestRepair | BankLinkItem.RevokeAccess,
) {
  return yield* CommandHandler.handle(BankLinkItem.aggregate, itemId, command)
})

const unlink = UseCase.fn("BankLinkUpdates.unlink")(function* (
  registrationId: RegistrationId,
  bankAccountId: BankAccountId,
) {
  return yield* CommandHandler.handleNow(Customer.aggregate, registrationId, {
    _tag: "UnlinkBankAccount",
    bankAccountId,
  })
})

/** What a notification did: the item was unknown, nothing was asked, or the events it recorded. */
export type Received = "UnknownItem" | "UnknownCustomer" | "Ignored" | "Recorded"

/** Acts on a verified notification of the bank-link provider. */
export const receive = Traced.fn("BankLinkUpdates.receive")(function* (notification: BankLinkCallback) {
  if (notification.action === "None") return "Ignored" as Received
  // Not about an item (BankLinkNotices routes it to the customer's verification).
  if (notification.action === "CheckIdentity") return "Ignored" as Received
  const at = yield* DateTime.now
  const command: BankLinkItem.RequestRepair | BankLinkItem.RevokeAccess =
    notification.action === "Relink"
      ? { _tag: "RequestRepair", reason: notification.reason, at }
      : {
          _tag: "RevokeAccess",
          at,
          ...(notification.action === "RemoveAccount" ? { providerAccountId: notification.accountId ?? "" } : {}),
        }
  const handled = yield* onItem(notification.itemId, command).pipe(
    Effect.map((result) => result.state),
    Effect.catchTag("NotFound", () => Effect.succeed(undefined)),
  )
  if (handled === undefined || handled._tag !== "Connected") return "UnknownItem" as Received
  // Every revoked account unlinked (again after a crash between the two: unlinking twice records nothing).
  for (const bankAccountId of handled.revoked) yield* unlink(handled.registrationId, bankAccountId)
  return "Recorded" as Received
})
