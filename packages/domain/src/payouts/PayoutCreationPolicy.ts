/**
 * Policy: a company's balance paid out becomes a payout. When the balance
 * records `BalancePaidOut`, the Payout with that id is created (Pending) with
 * the same items, amount and destination, in the same unit of work: the
 * entries leave the balance exactly when the payout that carries them exists.
 */
import * as Policy from "../infrastructure/Policy.ts"
import * as Balance from "./Balance.ts"
import * as Payout from "./Payout.ts"

export const policy = Policy.make({
  name: "a company's balance paid out becomes a payout",
  source: Balance.aggregate,
  reactsTo: ["BalancePaidOut"],
  target: Payout.aggregate,
  react: (event: Balance.Event) => {
    if (event._tag !== "BalancePaidOut") return undefined
    const command: Payout.CreatePayout = {
      _tag: "CreatePayout",
      payoutId: event.payoutId,
      companyId: event.companyId,
      partnerId: event.partnerId,
      ...(event.direction === undefined ? {} : { direction: event.direction }),
      amount: event.amount,
      items: event.items,
      payoutAccountId: event.payoutAccountId,
      accountNumberMasked: event.accountNumberMasked,
      arrivalDate: Payout.arrivalDateOf(event.at),
      at: event.at,
    }
    return { id: event.payoutId, command }
  },
})
