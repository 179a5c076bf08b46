/**
 * Mutation testing of the domain's rules (issue 28): StrykerJS with the vitest runner over the domain's vitest
 * project. It mutates every decider (decide/evolve and the modules they are split into), kernel/Money.ts (and the
 * field checks the deciders share) and the pure rule modules of each area, and runs the domain's own tests
 * against each mutant. Reports (HTML + JSON) and the incremental file go to reports/ (git-ignored).
 *
 *   ./pnpm test:mutation                                   every file, incremental (only changed code and tests rerun)
 *   ./pnpm test:mutation -m packages/domain/src/plans/Consent.ts   one file (the incremental file is shared)
 *   ./pnpm test:mutation --force                           every mutant again, ignoring the incremental file
 *
 * See docs/testing.md for the scores and the survivors kept.
 */

/** The files whose mutants count: deciders, Money and the rule modules. */
export const mutate = [
  // deciders (decide/evolve), with the modules they are split into (Customer, PaymentRequest, Transfer,
  // PaymentPlan: issue 36)
  "packages/domain/src/cards-and-charity/CardDispute.ts",
  "packages/domain/src/cards-and-charity/CardPayment.ts",
  "packages/domain/src/cards-and-charity/CardRefunds.ts",
  "packages/domain/src/cards-and-charity/CharityTransaction.ts",
  "packages/domain/src/companies/Company.ts",
  "packages/domain/src/companies/CompanyReference.ts",
  "packages/domain/src/customers/BankLinkItem.ts",
  "packages/domain/src/customers/Customer.ts",
  "packages/domain/src/customers/CustomerBankAccounts.ts",
  "packages/domain/src/customers/CustomerCards.ts",
  "packages/domain/src/customers/CustomerChecks.ts",
  "packages/domain/src/customers/CustomerKyc.ts",
  "packages/domain/src/customers/CustomerLogin.ts",
  "packages/domain/src/customers/CustomerNotificationSettings.ts",
  "packages/domain/src/customers/CustomerState.ts",
  "packages/domain/src/customers/LoginChallenge.ts",
  "packages/domain/src/notifications/PaymentNotice.ts",
  "packages/domain/src/payments/DebitAuth.ts",
  "packages/domain/src/payments/PaymentRequest.ts",
  "packages/domain/src/payments/PaymentRequestAutoCollection.ts",
  "packages/domain/src/payments/PaymentRequestCommands.ts",
  "packages/domain/src/payments/PaymentRequestRefunds.ts",
  "packages/domain/src/payments/PaymentRequestState.ts",
  "packages/domain/src/payments/PaymentRequestValidation.ts",
  "packages/domain/src/payments/Transfer.ts",
  "packages/domain/src/payments/TransferChecks.ts",
  "packages/domain/src/payments/TransferOutages.ts",
  "packages/domain/src/payments/TransferRefunds.ts",
  "packages/domain/src/payments/TransferReimbursement.ts",
  "packages/domain/src/payments/TransferState.ts",
  "packages/domain/src/plans/Consent.ts",
  "packages/domain/src/plans/PaymentPlan.ts",
  "packages/domain/src/plans/PaymentPlanCommands.ts",
  "packages/domain/src/plans/PaymentPlanTerms.ts",
  // the decider of natural keys (a partner's own reference reserved once)
  "packages/domain/src/infrastructure/NaturalKey.ts",
  "packages/domain/src/payouts/Balance.ts",
  "packages/domain/src/payouts/Payout.ts",
  // the kernel's money, the field checks the deciders share and the payloads they pick (issue 36)
  "packages/domain/src/kernel/Money.ts",
  "packages/domain/src/kernel/FieldChecks.ts",
  "packages/domain/src/kernel/Payload.ts",
  // the pure rules of each area (policies, schedules, tables, validation)
  "packages/domain/src/cards-and-charity/RecurringGift.ts",
  "packages/domain/src/companies/CompanyValidation.ts",
  "packages/domain/src/payments/ReturnCodes.ts",
  "packages/domain/src/payments/TransferOutcomePolicy.ts",
  "packages/domain/src/payments/WhoMayCollect.ts",
  "packages/domain/src/plans/ConsentAnswerPolicy.ts",
  "packages/domain/src/plans/InstalmentOutcomePolicy.ts",
  "packages/domain/src/plans/PaymentPlanSchedule.ts",
  "packages/domain/src/payouts/Ledger.ts",
  "packages/domain/src/payouts/LedgerPolicy.ts",
  "packages/domain/src/payouts/PayoutCreationPolicy.ts",
  "packages/domain/src/payouts/PayoutOutcomePolicy.ts",
]

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  // named: under pnpm the runner is not beside @stryker-mutator/core, where Stryker looks by default
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "packages/domain/vitest.config.ts", dir: "packages/domain" },
  mutate,
  coverageAnalysis: "perTest",
  // Mutants of module-level code (schemas, tables, constants) run every test with the modules reloaded:
  // a few seconds to half a minute each, an hour and more for Money alone. They are left out (docs/testing.md).
  ignoreStatic: true,
  // The machine is shared: one test process. Raise it with --concurrency on a machine of your own.
  concurrency: 1,
  incremental: true,
  incrementalFile: "reports/mutation/stryker-incremental.json",
  reporters: ["html", "json", "clear-text", "progress"],
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  // Only the domain is needed to run the domain's tests; the rest is not copied into the sandbox.
  ignorePatterns: [
    "/packages/*",
    "!/packages/domain",
    "/faults",
    "/bench",
    "/examples",
    "/docs",
    "/reports",
    "/.toolchain",
  ],
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  timeoutMS: 10000,
  thresholds: { high: 95, low: 85, break: null },
}
