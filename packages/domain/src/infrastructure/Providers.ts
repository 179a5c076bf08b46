/**
 * What every provider port shares. The provider ports are the outside
 * services partnerpay relies on, as Effect services; each area declares its
 * own (`companies/CompanyProviders.ts`, `customers/CustomerProviders.ts`,
 * `payments/PaymentProviders.ts`, `payments/CardCharger.ts`, the messaging
 * senders of `notifications/Messaging.ts`). Only interfaces and typed errors
 * live there; the application provides implementations (sandbox fakes first,
 * real providers later).
 *
 * Providers are called by the application around the deciders, never from
 * inside them: a use case calls a port outside its unit of work, then puts
 * the outcome in a command (for example `RecordKycResult` with the verdict of
 * `KycProvider.check`), so a unit retried after a conflict never calls a
 * provider twice.
 *
 * Every port may fail with `ProviderUnavailable` (timeout, 5xx, network):
 * nothing is known to have happened and the call may be retried. Each port
 * adds the refusals its callers can act on.
 */
import { Schema } from "effect"
import { RuleViolated } from "../kernel/DomainError.ts"

/** The provider could not be reached or failed; nothing is known to have happened, a retry is safe. */
export class ProviderUnavailable extends Schema.TaggedError<ProviderUnavailable>()("ProviderUnavailable", {
  provider: Schema.String,
  reason: Schema.String,
}) {
  override get message(): string {
    return `${this.provider} unavailable: ${this.reason}`
  }
}

/**
 * The service runs without a provider for this optional capability (production may leave the card
 * processor, e-signature and push ports unset): the operation cannot be served here, whatever is asked.
 * Use cases answer it as the business refusal `FEATURE_NOT_AVAILABLE` (422, `notAvailable`).
 */
export class FeatureNotAvailable extends Schema.TaggedError<FeatureNotAvailable>()("FeatureNotAvailable", {
  capability: Schema.String,
}) {
  override get message(): string {
    return `${this.capability} is not available on this service (no provider is configured)`
  }
}

/** The refusal a client gets for an operation needing a capability the service runs without (422). */
export const notAvailable = (error: FeatureNotAvailable): RuleViolated =>
  new RuleViolated({ code: "FEATURE_NOT_AVAILABLE", reason: error.message })
