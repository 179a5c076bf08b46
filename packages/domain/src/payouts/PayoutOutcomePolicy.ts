/**
 * Policy: a failed payout gives its money back. When a payout fails (before
 * or after it was paid), its items become available again in the company's
 * balance, in the same unit of work, and the next payout carries them.
 */
import * as Policy from "../infrastructure/Policy.ts"
import * as Balance from "./Balance.ts"
import * as Payout from "./Payout.ts"

export const policy = Policy.make({
  name: "a failed payout gives its money back to the balance",
  source: Payout.aggregate,
  reactsTo: ["PayoutFailed"],
  target: Balance.aggregate,
  react: (event: Payout.Event, state: Payout.State) => {
    if (event._tag !== "PayoutFailed" || state._tag === "Initial") return undefined
    const command: Balance.RestorePayoutItems = {
      _tag: "RestorePayoutItems",
      companyId: state.details.companyId,
      payoutId: state.details.payoutId,
      items: state.details.items,
      at: event.at,
    }
    return { id: state.details.companyId, command }
  },
})
