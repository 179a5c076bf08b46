/**
 * Policy: a company's balance paid out becomes a payout. When the balance
 * records `BalancePaidOut`, the Payout with that id is created (Pending) with
 * the same items, amount and destination, in the same unit of work: the
 * entries leave the balance exactly when the payout that carries them exists.
 */
import * as Policy from "../infrastructure/Policy.ts"
import * as Payload from "../kernel/Payload.ts"
import * as Balance from "./Balance.ts"
import * as Payout from "./Payout.ts"
import { PayoutEvent } from "./PayoutEvents.ts"

export const policy = Policy.make({
  name: "a company's balance paid out becomes a payout",
  source: Balance.aggregate,
  reactsTo: ["BalancePaidOut"],
  target: Payout.aggregate,
  react: (event: Balance.Event) => {
    if (event._tag !== "BalancePaidOut") return undefined
    // The payout's fields picked from the balance's event (a Credit's absent direction stays absent).
    const command: Payout.CreatePayout = {
      ...Payload.pick(PayoutEvent.cases.PayoutCreated, event),
      _tag: "CreatePayout",
      arrivalDate: Payout.arrivalDateOf(event.at),
    }
    return { id: event.payoutId, command }
  },
})
