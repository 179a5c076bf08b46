/**
 * The payouts area's public module: a company's ledger and balance
 * (Ledger, Balance, the `balances` read model), its payouts with their items
 * (Payout, the `payouts` read model), their use cases (Payouts), the policies
 * that feed the ledger and create and reverse payouts, the payout status
 * webhook and the sandbox of payout movements, and the platform's double-entry
 * books (Postings, the `ledger_postings` read model, TrialBalance). Other areas import payouts
 * only through this module.
 */
export * as Balance from "./Balance.ts"
export * as BalanceEvents from "./BalanceEvents.ts"
export * as BalancesProjection from "./BalancesProjection.ts"
export * as Ledger from "./Ledger.ts"
export * as LedgerEntriesProjection from "./LedgerEntriesProjection.ts"
export * as Payout from "./Payout.ts"
export * as PayoutAccountPolicy from "./PayoutAccountPolicy.ts"
export * as PayoutEvents from "./PayoutEvents.ts"
export * as PayoutStatusWebhook from "./PayoutStatusWebhook.ts"
export * as Payouts from "./Payouts.ts"
export * as PayoutsProjection from "./PayoutsProjection.ts"
export * as Postings from "./Postings.ts"
export * as PostingsProjection from "./PostingsProjection.ts"
export * as TransactionReport from "./TransactionReport.ts"
export * as TrialBalance from "./TrialBalance.ts"
