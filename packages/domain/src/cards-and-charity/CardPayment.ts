/**
 * Card payment: the record of a card payment made on an external terminal and
 * registered by the partner (POST /cardpayment, spec v0.4.8 and v0.4.10). The
 * merchant is identified by its MerchantId; a company id or company reference
 * id is not part of the command (removed in v0.4.10). Only the last 4 digits
 * of the card are kept.
 *
 * A record, not a process: one command, `RegisterCardPayment`. Registering the
 * same payment again with the same details changes nothing (a safe retry);
 * with other details it is refused as AlreadyExists.
 *
 * A merchant id that is one of the partner's companies (`companyId`, found by
 * the use case) makes the payment that company's money: it reaches the
 * company's balance at once (`LedgerPolicy.terminalCardPolicy`), so who may
 * collect applies: a company not Verified is refused (`companyStatus`).
 */
import { type DateTime, Schema } from "effect"
import { type Aggregate, accept, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { AlreadyExists, type DomainError, type FieldIssue, ValidationFailed } from "../kernel/DomainError.ts"
import type { CardPaymentId, CompanyId, MerchantId, PartnerId } from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import { type FeeSchedule, WhoMayCollect } from "../payments/index.ts"
import { CardPaymentEvent, type CardPaymentRegistered } from "./CardPaymentEvents.ts"

export * from "./CardPaymentEvents.ts"

/** Longest card brand accepted ("visa", "mastercard", "amex", ...). */
export const maxBrandLength = 32
/** Longest external reference accepted (the terminal's or processor's transaction id). */
export const maxExternalReferenceLength = 128

// ---------------------------------------------------------------------------
// Commands and state
// ---------------------------------------------------------------------------

export interface RegisterCardPayment {
  readonly _tag: "RegisterCardPayment"
  readonly cardPaymentId: CardPaymentId
  readonly partnerId: PartnerId
  readonly merchantId: MerchantId
  readonly amount: Money.Money
  /** The last 4 digits of the card number. */
  readonly last4: string
  readonly brand: string
  /** The terminal's or processor's id of the payment. */
  readonly externalReference: string
  /**
   * The card processor's reference: the processor registered (authorized) the payment before it is
   * recorded (`CardPayments.register`); a declined card never reaches this command.
   */
  readonly processorReference: string
  /** The partner's company the merchant id names, with its KYB status (read by the use case); absent: another merchant. */
  readonly company?: { readonly companyId: CompanyId; readonly status: WhoMayCollect.CompanyStatus }
  /** When the processor makes the money available to the company (absent: at once). */
  readonly availableAt?: DateTime.Utc | undefined
  /** A company's payment: the partner's card fee schedule in force and what it takes (`PlatformFees.appliedFor`). */
  readonly platformFee?: Money.Money
  readonly feeSchedule?: FeeSchedule.AppliedSchedule
  readonly providerCost?: Money.Money
  readonly at: DateTime.Utc
}

/** The events of this aggregate. */
export type Event = CardPaymentEvent

export type Command = RegisterCardPayment

/** Registered: what the registration recorded (but its instant and availability, which only the ledger reads). */
export type State =
  | { readonly _tag: "Initial" }
  | ({ readonly _tag: "Registered" } & Omit<CardPaymentRegistered, "_tag" | "at" | "availableAt">)

export const initialState: State = { _tag: "Initial" }

// ---------------------------------------------------------------------------
// Decide and evolve
// ---------------------------------------------------------------------------

const isMoney = Schema.is(Money.Money)

const textIssue = (field: string, value: string, max: number): FieldIssue | undefined =>
  value.trim().length === 0
    ? { field, message: "must not be empty" }
    : value.length > max
      ? { field, message: `must be at most ${max} characters` }
      : value !== value.trim()
        ? { field, message: "must not start or end with whitespace" }
        : undefined

const validate = (command: RegisterCardPayment): ValidationFailed | undefined => {
  const issues: Array<FieldIssue> = []
  if (!isMoney(command.amount)) {
    issues.push({ field: "amount", message: "must be a whole number of minor units of a supported currency" })
  } else if (command.amount.minorUnits === 0) {
    issues.push({ field: "amount", message: "must be greater than zero" })
  }
  if (!/^\d{4}$/.test(command.last4)) {
    issues.push({ field: "last4", message: "must be exactly the last 4 digits of the card number" })
  }
  const brand = textIssue("brand", command.brand, maxBrandLength)
  if (brand) issues.push(brand)
  const reference = textIssue("externalReference", command.externalReference, maxExternalReferenceLength)
  if (reference) issues.push(reference)
  return issues.length > 0 ? new ValidationFailed({ issues }) : undefined
}

export const decide = (command: Command, state: State): Decision<Event> => {
  const invalid = validate(command)
  if (invalid) return refuse(invalid)
  if (state._tag === "Registered") {
    // The stream is the card payment's own (its id), so the id needs no comparing.
    const identical =
      state.partnerId === command.partnerId &&
      state.merchantId === command.merchantId &&
      Money.equals(state.amount, command.amount) &&
      state.last4 === command.last4 &&
      state.brand === command.brand &&
      state.externalReference === command.externalReference
    return identical ? nothing : refuse(new AlreadyExists({ entity: "CardPayment" }))
  }
  const refused = command.company === undefined ? undefined : WhoMayCollect.companyRefusal(command.company.status)
  if (refused !== undefined) return refuse(refused)
  const event: CardPaymentRegistered = {
    _tag: "CardPaymentRegistered",
    cardPaymentId: command.cardPaymentId,
    partnerId: command.partnerId,
    merchantId: command.merchantId,
    amount: { minorUnits: command.amount.minorUnits, currency: command.amount.currency },
    last4: command.last4,
    brand: command.brand,
    externalReference: command.externalReference,
    processorReference: command.processorReference,
    ...(command.company === undefined ? {} : { companyId: command.company.companyId }),
    ...(command.availableAt === undefined ? {} : { availableAt: command.availableAt }),
    ...(command.company === undefined || command.platformFee === undefined || command.platformFee.minorUnits === 0
      ? {}
      : {
          platformFee: command.platformFee,
          ...(command.feeSchedule === undefined ? {} : { feeSchedule: command.feeSchedule }),
        }),
    ...(command.company === undefined || command.providerCost === undefined
      ? {}
      : { providerCost: command.providerCost }),
    at: command.at,
  }
  return accept<CardPaymentEvent>(event)
}

/** Registered once: a second registration does not fit and leaves the payment as it was. */
export const evolve = (state: State, event: Event): State => {
  if (state._tag !== "Initial") return state
  const { _tag, at: _at, availableAt: _availableAt, ...details } = event
  return { _tag: "Registered", ...details }
}

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "CardPayment",
  initialState,
  decide,
  evolve,
  events: CardPaymentEvent,
  eventVersion: () => 1,
}
