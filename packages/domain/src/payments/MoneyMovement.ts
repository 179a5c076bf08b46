/**
 * The money-movement port: the bank rail (ACH) as real providers expose it
 * (Dwolla transfers, GoCardless payments and payouts, Stripe charges and
 * payouts). partnerpay asks the provider to originate a movement and learns
 * its outcome later, by polling (`status`) or by the provider's notification
 * (a webhook the application decodes into the same `MovementOutcome`); both
 * paths end in one decision of the domain (the Transfer, Refund or Payout
 * aggregate records the outcome; repeating it changes nothing).
 *
 * Three movements:
 * - `originateDebit`: pull a payer's money from their funding source to the
 *   company (a payment, an instalment, an autopay or debit-authorization
 *   collection, a charity gift);
 * - `originateCredit`: push money back to a payer's funding source (a refund);
 * - `originatePayout`: push a company's available balance to its payout account.
 *
 * Every origination carries an idempotency key (the id of the transfer,
 * refund or payout): asking again with the same key answers the first
 * movement's reference and never moves money twice, so a use case retried
 * after a crash or a conflict is safe. The provider's reference is recorded
 * in the domain so that notifications can be matched back.
 *
 * Outcomes: Pending (still moving), Settled (the money arrived), Failed (the
 * bank refused it before settlement, with an ACH return code) and Returned
 * (it settled, then came back with a return code, e.g. R10 "unauthorised",
 * up to 60 days later). Return codes and their descriptions: `ReturnCodes.ts`.
 *
 * Only interfaces and typed errors live here; the application provides the
 * sandbox (amount-driven magic values, docs/api/sandbox.md) and real providers.
 */
import { Context, type Effect, Schema } from "effect"
import type { ProviderUnavailable } from "../infrastructure/Providers.ts"
import type { CompanyId, RegistrationId } from "../kernel/Ids.ts"
import type { Money } from "../kernel/Money.ts"
import type * as RailCapabilities from "./RailCapabilities.ts"

/** What kind of movement a reference names. */
export type MovementKind = "Debit" | "Credit" | "Payout"

/** The provider refused to originate the movement (e.g. funding source removed, account not verified). */
export class MovementRefused extends Schema.TaggedError<MovementRefused>()("MovementRefused", {
  code: Schema.String,
  reason: Schema.String,
}) {}

/** The provider's handle of one movement, recorded by the domain to match outcomes back. */
export interface MovementReference {
  readonly kind: MovementKind
  /** Our id: the transfer, refund or payout id, also the idempotency key. */
  readonly id: string
  /** The provider's id of the movement. */
  readonly providerReference: string
}

/** Where a movement stands at the bank. */
export type MovementOutcome =
  | { readonly status: "Pending" }
  | { readonly status: "Settled" }
  | { readonly status: "Failed"; readonly returnCode: string }
  | { readonly status: "Returned"; readonly returnCode: string }

export interface DebitRequest {
  /** The transfer id: one movement per key. */
  readonly idempotencyKey: string
  readonly companyId: CompanyId
  /** The payer whose funding source is debited. */
  readonly payerRegistrationId: RegistrationId
  /** The provider's id of the payer's funding source (the bank account linked). */
  readonly fundingSource: string
  readonly amount: Money
  /** Shown on the payer's statement. */
  readonly description: string
  /** Same-day clearing where the rail offers it. */
  readonly sameDay?: boolean
}

export interface CreditRequest {
  /** The refund id: one movement per key. */
  readonly idempotencyKey: string
  /** The refunded transfer: a provider's notification about the credit names it back. */
  readonly transferId: string
  readonly companyId: CompanyId
  readonly payerRegistrationId: RegistrationId
  readonly fundingSource: string
  readonly amount: Money
  readonly description: string
}

/** A bank account as a provider needs it to credit it (a company's payout account, opened from its sealed record). */
export interface BankDestination {
  readonly accountHolderName: string
  readonly routingNumber: string
  readonly accountNumber: string
  readonly accountType: "Checking" | "Savings"
}

export interface PayoutRequest {
  /** The payout id: one movement per key. */
  readonly idempotencyKey: string
  readonly companyId: CompanyId
  /** The provider's id of the company's payout account (or the sandbox's payout account id). */
  readonly payoutAccount: string
  /**
   * The account's bank details, for a provider that has no funding source for it yet (it creates one
   * on first use, keyed by `payoutAccount`). Personal data: never logged.
   */
  readonly destination: BankDestination
  readonly amount: Money
  /** Absent: Credit (pay the amount to the account). Debit: take the amount from it (a deficit's recovery). */
  readonly direction?: "Credit" | "Debit"
}

export class MoneyMovement extends Context.Service<
  MoneyMovement,
  {
    readonly originateDebit: (
      request: DebitRequest,
    ) => Effect.Effect<MovementReference, MovementRefused | ProviderUnavailable>
    readonly originateCredit: (
      request: CreditRequest,
    ) => Effect.Effect<MovementReference, MovementRefused | ProviderUnavailable>
    readonly originatePayout: (
      request: PayoutRequest,
    ) => Effect.Effect<MovementReference, MovementRefused | ProviderUnavailable>
    /** Polls one movement's outcome (the polling path; notifications give the same outcomes). */
    readonly status: (reference: MovementReference) => Effect.Effect<MovementOutcome, ProviderUnavailable>
    /**
     * What the rail can do (`RailCapabilities.ts`): its currencies and payer limit, checked when a
     * collection is asked for. Absent: any currency, no limit (a test's fake).
     */
    readonly capabilities?: RailCapabilities.Capabilities
  }
>()("partnerpay/domain/MoneyMovement") {}
