/**
 * Every aggregate of the domain, by stream type, and the decoding of stored
 * events into typed domain events. Projections, notifications and policies
 * read the log through this registry.
 */
import { Effect, Schema } from "effect"
import * as CardDispute from "../cards-and-charity/CardDispute.ts"
import * as CardPayment from "../cards-and-charity/CardPayment.ts"
import * as CardRefundAttempts from "../cards-and-charity/CardRefundAttempts.ts"
import * as CardRefunds from "../cards-and-charity/CardRefunds.ts"
import * as CharityTransaction from "../cards-and-charity/CharityTransaction.ts"
import * as Company from "../companies/Company.ts"
import * as CompanyReference from "../companies/CompanyReference.ts"
import * as BankLinkItem from "../customers/BankLinkItem.ts"
import * as Customer from "../customers/Customer.ts"
import * as LoginChallenge from "../customers/LoginChallenge.ts"
import type { Envelope as EnvelopeOf } from "../infrastructure/Envelope.ts"
import { EventDecodeFailed, type RecordedEvent } from "../infrastructure/EventStore.ts"
import * as NaturalKey from "../infrastructure/NaturalKey.ts"
import * as PaymentNotice from "../notifications/PaymentNotice.ts"
import type * as PaymentNoticeEvents from "../notifications/PaymentNoticeEvents.ts"
import * as CardAuthentication from "../payments/CardAuthentication.ts"
import * as DebitAuth from "../payments/DebitAuth.ts"
import * as PartnerFees from "../payments/PartnerFees.ts"
import * as PaymentRequest from "../payments/PaymentRequest.ts"
import type * as PaymentRequestEvents from "../payments/PaymentRequestEvents.ts"
import * as Transfer from "../payments/Transfer.ts"
import type * as TransferEvents from "../payments/TransferEvents.ts"
import * as Balance from "../payouts/Balance.ts"
import type * as BalanceEvents from "../payouts/BalanceEvents.ts"
import * as Payout from "../payouts/Payout.ts"
import type * as PayoutEvents from "../payouts/PayoutEvents.ts"
import * as Consent from "../plans/Consent.ts"
import * as PaymentPlan from "../plans/PaymentPlan.ts"

/** A decoded event of any aggregate, tagged with its stream type. */
export type DomainEvent =
  | { readonly streamType: "Company"; readonly event: Company.CompanyEvent }
  | { readonly streamType: "CompanyReference"; readonly event: CompanyReference.CompanyReferenceEvent }
  | { readonly streamType: "Consent"; readonly event: Consent.ConsentEvent }
  | { readonly streamType: "PaymentPlan"; readonly event: PaymentPlan.PaymentPlanEvent }
  | { readonly streamType: "PaymentRequest"; readonly event: PaymentRequestEvents.PaymentRequestEvent }
  | { readonly streamType: "Transfer"; readonly event: TransferEvents.TransferEvent }
  | { readonly streamType: "DebitAuth"; readonly event: DebitAuth.DebitAuthEvent }
  | { readonly streamType: "Customer"; readonly event: Customer.CustomerEvent }
  | { readonly streamType: "CardPayment"; readonly event: CardPayment.CardPaymentEvent }
  | { readonly streamType: "CardDispute"; readonly event: CardDispute.CardDisputeEvent }
  | { readonly streamType: "CardRefunds"; readonly event: CardRefunds.CardRefundEvent }
  | { readonly streamType: "CardAuthentication"; readonly event: CardAuthentication.CardAuthenticationEvent }
  | { readonly streamType: "CardRefundAttempts"; readonly event: CardRefundAttempts.CardRefundAttemptEvent }
  | { readonly streamType: "CharityTransaction"; readonly event: CharityTransaction.CharityTransactionEvent }
  | { readonly streamType: "LoginChallenge"; readonly event: LoginChallenge.LoginChallengeEvent }
  | { readonly streamType: "BankLinkItem"; readonly event: BankLinkItem.BankLinkItemEvent }
  | { readonly streamType: "PaymentNotice"; readonly event: PaymentNoticeEvents.PaymentNoticeEvent }
  | { readonly streamType: "NaturalKey"; readonly event: NaturalKey.NaturalKeyEvent }
  | { readonly streamType: "CompanyBalance"; readonly event: BalanceEvents.BalanceEvent }
  | { readonly streamType: "Payout"; readonly event: PayoutEvents.PayoutEvent }
  | { readonly streamType: "PartnerFees"; readonly event: PartnerFees.PartnerFeesEvent }

/** A decoded event of any aggregate with where and when it was recorded. */
export type Envelope = EnvelopeOf<DomainEvent>

/** Event codecs by stream type. */
export const codecs: Record<DomainEvent["streamType"], Schema.Codec<unknown, unknown>> = {
  Company: Company.aggregate.events as Schema.Codec<unknown, unknown>,
  CompanyReference: CompanyReference.aggregate.events as Schema.Codec<unknown, unknown>,
  Consent: Consent.aggregate.events as Schema.Codec<unknown, unknown>,
  PaymentPlan: PaymentPlan.aggregate.events as Schema.Codec<unknown, unknown>,
  PaymentRequest: PaymentRequest.aggregate.events as Schema.Codec<unknown, unknown>,
  Transfer: Transfer.aggregate.events as Schema.Codec<unknown, unknown>,
  DebitAuth: DebitAuth.aggregate.events as Schema.Codec<unknown, unknown>,
  Customer: Customer.aggregate.events as Schema.Codec<unknown, unknown>,
  CardPayment: CardPayment.aggregate.events as Schema.Codec<unknown, unknown>,
  CardDispute: CardDispute.aggregate.events as Schema.Codec<unknown, unknown>,
  CardRefunds: CardRefunds.aggregate.events as Schema.Codec<unknown, unknown>,
  CardAuthentication: CardAuthentication.aggregate.events as Schema.Codec<unknown, unknown>,
  CardRefundAttempts: CardRefundAttempts.aggregate.events as Schema.Codec<unknown, unknown>,
  CharityTransaction: CharityTransaction.aggregate.events as Schema.Codec<unknown, unknown>,
  LoginChallenge: LoginChallenge.aggregate.events as Schema.Codec<unknown, unknown>,
  BankLinkItem: BankLinkItem.aggregate.events as Schema.Codec<unknown, unknown>,
  PaymentNotice: PaymentNotice.aggregate.events as Schema.Codec<unknown, unknown>,
  NaturalKey: NaturalKey.aggregate.events as Schema.Codec<unknown, unknown>,
  CompanyBalance: Balance.aggregate.events as Schema.Codec<unknown, unknown>,
  Payout: Payout.aggregate.events as Schema.Codec<unknown, unknown>,
  PartnerFees: PartnerFees.aggregate.events as Schema.Codec<unknown, unknown>,
}

const decoders = Object.fromEntries(
  Object.entries(codecs).map(([name, codec]) => [name, Schema.decodeUnknownExit(codec)]),
) as Record<string, (input: unknown) => ReturnType<ReturnType<typeof Schema.decodeUnknownExit>>>

/** The envelope of a recorded event and its typed form. */
const envelopeOf = (recorded: RecordedEvent, event: unknown): Envelope =>
  ({
    streamType: recorded.streamType,
    event,
    eventId: recorded.eventId,
    streamId: recorded.streamId,
    streamVersion: recorded.streamVersion,
    globalPosition: recorded.globalPosition,
    recordedAt: recorded.recordedAt,
    metadata: recorded.metadata,
  }) as Envelope

/**
 * Decodes one stored event; an unknown stream type or a bad payload is reported, never dropped.
 * An event appended by this process carries its typed form (`event`): it is used as is.
 */
export const decode = (recorded: RecordedEvent): Effect.Effect<Envelope, EventDecodeFailed> => {
  if (recorded.event !== undefined && recorded.streamType in codecs) {
    return Effect.succeed(envelopeOf(recorded, recorded.event))
  }
  const decoder = decoders[recorded.streamType]
  const fail = (reason: string) =>
    Effect.fail(
      new EventDecodeFailed({
        streamId: recorded.streamId,
        streamVersion: recorded.streamVersion,
        eventType: recorded.eventType,
        reason,
      }),
    )
  if (decoder === undefined) return fail(`unknown stream type ${recorded.streamType}`)
  const exit = decoder(recorded.data)
  if (exit._tag === "Failure") return fail(String(exit.cause))
  return Effect.succeed(envelopeOf(recorded, exit.value))
}
