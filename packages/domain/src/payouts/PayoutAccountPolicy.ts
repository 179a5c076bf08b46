/**
 * Policy: a payout refused or returned because of the account itself errors
 * that account. When a payout fails for an account-level reason
 * (`PayoutFailed.accountLevel`: R02, R03, R04, R12-R17, R20, or the rail
 * refusing the destination; `CompanyPayoutAccount.isAccountLevel`), the
 * company's payout account it named becomes Errored in the same unit of work,
 * so the next payout cycle finds the company's payouts paused
 * (`Payouts.payOutDue`) and no second payout goes to an account that bounced.
 */
import { Company } from "../companies/index.ts"
import * as Policy from "../infrastructure/Policy.ts"
import * as Payout from "./Payout.ts"

export const policy = Policy.make({
  name: "a payout failed for an account-level reason errors the company's payout account",
  source: Payout.aggregate,
  reactsTo: ["PayoutFailed"],
  target: Company.aggregate,
  react: (event: Payout.Event, state: Payout.State) => {
    if (event._tag !== "PayoutFailed" || event.accountLevel !== true || state._tag === "Initial") return undefined
    const command: Company.MarkPayoutAccountErrored = {
      _tag: "MarkPayoutAccountErrored",
      companyId: state.details.companyId,
      payoutAccountId: state.details.payoutAccountId,
      payoutId: state.details.payoutId,
      ...(event.returnCode === undefined ? {} : { returnCode: event.returnCode }),
      reason: event.reason,
      at: event.at,
    }
    return { id: state.details.companyId, command }
  },
})
