/**
 * Debit authorization: a payer's (registration id) standing permission for one
 * company to debit their bank account up to a limit, like a card on file.
 *
 * The limit applies per debit (the spec's `preAuthLimit`): each debit must be
 * of the limit's currency and at most the limit in force when it is
 * authorized. There is no cumulative or per-period budget. A debit is
 * authorized once per payment request; asking again for the same payment
 * request and amount changes nothing.
 *
 * States: Initial (no authorization yet), Active (enabled), Disabled and
 * Revoked (an unauthorized return of one of its debits: `RevokeDebitAuth`,
 * decided by `ReturnConsequences`). Clients see `status`
 * Active/Disabled/Revoked and `enabled` true/false. A Revoked authorization
 * authorizes nothing until the payer sets a new one (`SetDebitAuth`).
 */

import { type DateTime, Schema } from "effect"
import { type Aggregate, accept, byCommand, byEvent, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { AlreadyExists, type DomainError, NotFound, RuleViolated, ValidationFailed } from "../kernel/DomainError.ts"
import type { CompanyId, DebitAuthId, PartnerId, PaymentRequestId, RegistrationId } from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import * as Payload from "../kernel/Payload.ts"
import * as AuthorizationEvidence from "./AuthorizationEvidence.ts"
import {
  DebitAuthDisabled,
  DebitAuthEnabled,
  type DebitAuthEvent,
  DebitAuthEvent as DebitAuthEventSchema,
  DebitAuthLimitUpdated,
  DebitAuthorized,
  DebitAuthRevoked,
  DebitAuthSet,
  PayerEvidence,
} from "./DebitAuthEvents.ts"

export * from "./DebitAuthEvents.ts"

// ---------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------

/** The payer authorizes the company to debit up to `limit` per debit. Creates the authorization, enabled. */
export interface SetDebitAuth {
  readonly _tag: "SetDebitAuth"
  readonly debitAuthId: DebitAuthId
  readonly partnerId: PartnerId
  readonly companyId: CompanyId
  readonly registrationId: RegistrationId
  readonly limit: Money.Money
  /** The request that carried the payer's authorization, recorded as its evidence. */
  readonly client?: AuthorizationEvidence.ClientContext
  readonly at: DateTime.Utc
}

/** Changes the limit per debit (its currency may change too). Allowed when enabled or disabled. */
export interface UpdateDebitAuthLimit {
  readonly _tag: "UpdateDebitAuthLimit"
  readonly limit: Money.Money
  readonly client?: AuthorizationEvidence.ClientContext
  readonly at: DateTime.Utc
}

export interface EnableDebitAuth {
  readonly _tag: "EnableDebitAuth"
  readonly client?: AuthorizationEvidence.ClientContext
  readonly at: DateTime.Utc
}

export interface DisableDebitAuth {
  readonly _tag: "DisableDebitAuth"
  readonly at: DateTime.Utc
}

/**
 * Asks to debit `amount` for a payment request of `companyId`. Authorized only
 * when the authorization is enabled, belongs to that company and the amount
 * is within the limit in force (same currency).
 */
export interface AuthorizeDebit {
  readonly _tag: "AuthorizeDebit"
  readonly paymentRequestId: PaymentRequestId
  readonly companyId: CompanyId
  readonly amount: Money.Money
  readonly at: DateTime.Utc
}

/**
 * The payer's bank returned a debit as unauthorized (`returnCode`, e.g. R10): the authorization is
 * revoked (issued by the service, `Returns.actOn`, never by a client).
 */
export interface RevokeDebitAuth {
  readonly _tag: "RevokeDebitAuth"
  readonly returnCode: string
  readonly reason: string
  readonly at: DateTime.Utc
}

/** The events of this aggregate. */
export type Event = DebitAuthEvent

export type Command =
  | SetDebitAuth
  | UpdateDebitAuthLimit
  | EnableDebitAuth
  | DisableDebitAuth
  | AuthorizeDebit
  | RevokeDebitAuth

// ---------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------

/** Status names visible to clients. */
export const DebitAuthStatus = Schema.Literals(["Active", "Disabled", "Revoked"])
export type DebitAuthStatus = typeof DebitAuthStatus.Type

interface Details {
  readonly debitAuthId: DebitAuthId
  readonly partnerId: PartnerId
  readonly companyId: CompanyId
  readonly registrationId: RegistrationId
  /** The limit per debit in force. */
  readonly limit: Money.Money
  /** Debits already authorized, by payment request id, so a repeated request is recognized. */
  readonly authorizedDebits: Readonly<Record<string, Money.Money>>
  /** The evidence of the payer's latest authorization (set, limit change, enabling), when recorded. */
  readonly authorization?: AuthorizationEvidence.AuthorizationEvidence
}

export type State =
  | { readonly _tag: "Initial" }
  | ({ readonly _tag: "Active" } & Details)
  | ({ readonly _tag: "Disabled" } & Details)
  | ({ readonly _tag: "Revoked"; readonly returnCode: string } & Details)

export const initialState: State = { _tag: "Initial" }

/** Refusal codes of `AuthorizeDebit` (RuleViolated.code). */
export const RefusalCode = {
  limitExceeded: "DEBIT_LIMIT_EXCEEDED",
  disabled: "DEBIT_AUTH_DISABLED",
  currencyMismatch: "CURRENCY_MISMATCH",
  companyMismatch: "DEBIT_AUTH_COMPANY_MISMATCH",
  alreadyAuthorized: "DEBIT_ALREADY_AUTHORIZED",
  revoked: "DEBIT_AUTH_REVOKED",
} as const

/** A Revoked authorization moves only by a new authorization of the payer. */
const revokedRefusal = (state: { readonly returnCode: string }) =>
  refuse(
    new RuleViolated({
      code: RefusalCode.revoked,
      reason: `the debit authorization was revoked after an unauthorized return (${state.returnCode}): the payer must set a new one`,
    }),
  )

// ---------------------------------------------------------------------------
// Queries for read models and the HTTP layer
// ---------------------------------------------------------------------------

/** Active, Disabled or Revoked; undefined when no authorization was set. */
export const status = (state: State): DebitAuthStatus | undefined => (state._tag === "Initial" ? undefined : state._tag)

/** True when debits within the limit are authorized. */
export const isEnabled = (state: State): boolean => state._tag === "Active"

/** The limit per debit in force, if the authorization exists. */
export const limitInForce = (state: State): Money.Money | undefined =>
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, an Initial state has no limit (the test narrows the type)
  state._tag === "Initial" ? undefined : state.limit

// ---------------------------------------------------------------------------
// Decide
// ---------------------------------------------------------------------------

const entity = "DebitAuth"

const isMoney = Schema.is(Money.Money)

/** A positive amount; also rejects values that are not real `Money` (fractional minor units, unknown currency). */
const positive = (field: string, money: Money.Money): ValidationFailed | undefined =>
  !isMoney(money)
    ? ValidationFailed.of(field, "must be a whole number of minor units of a supported currency")
    : money.minorUnits > 0
      ? undefined
      : ValidationFailed.of(field, "must be greater than zero")

/** The partner's company, the payer and the limit, once; repeating the same authorization changes nothing. */
const set = (command: SetDebitAuth, state: State): Decision<Event> => {
  const invalid = positive("limit", command.limit)
  if (invalid) return refuse(invalid)
  if (state._tag === "Revoked") return accept<DebitAuthEvent>(setEvent(command))
  if (state._tag !== "Initial") {
    const identical =
      state._tag === "Active" &&
      state.partnerId === command.partnerId &&
      state.companyId === command.companyId &&
      state.registrationId === command.registrationId &&
      Money.equals(state.limit, command.limit)
    return identical ? nothing : refuse(new AlreadyExists({ entity }))
  }
  return accept<DebitAuthEvent>(setEvent(command))
}

/** The evidence of an authorization the payer gives through a request (none for a command without one). */
const evidenceOf = (command: { readonly client?: AuthorizationEvidence.ClientContext; readonly at: DateTime.Utc }) =>
  command.client === undefined
    ? {}
    : { authorization: AuthorizationEvidence.evidenceOf("DebitAuthorization", command.client, command.at) }

const setEvent = (command: SetDebitAuth) =>
  DebitAuthSet.make({
    debitAuthId: command.debitAuthId,
    partnerId: command.partnerId,
    companyId: command.companyId,
    registrationId: command.registrationId,
    ...evidenceOf(command),
    limit: command.limit,
    at: command.at,
  })

/** A new positive limit per debit; the same limit again changes nothing. */
const updateLimit = (command: UpdateDebitAuthLimit, state: State): Decision<Event> => {
  if (state._tag === "Initial") return refuse(new NotFound({ entity }))
  if (state._tag === "Revoked") return revokedRefusal(state)
  const invalid = positive("limit", command.limit)
  if (invalid) return refuse(invalid)
  if (Money.equals(state.limit, command.limit)) return nothing
  return accept<DebitAuthEvent>(
    DebitAuthLimitUpdated.make({
      ...parties(state),
      ...evidenceOf(command),
      previousLimit: state.limit,
      limit: command.limit,
      at: command.at,
    }),
  )
}

const enable = (command: EnableDebitAuth, state: State): Decision<Event> => {
  if (state._tag === "Initial") return refuse(new NotFound({ entity }))
  if (state._tag === "Revoked") return revokedRefusal(state)
  if (state._tag === "Active") return nothing
  return accept<DebitAuthEvent>(DebitAuthEnabled.make({ ...parties(state), ...evidenceOf(command), at: command.at }))
}

const disable = (command: DisableDebitAuth, state: State): Decision<Event> => {
  if (state._tag === "Initial") return refuse(new NotFound({ entity }))
  if (state._tag === "Disabled" || state._tag === "Revoked") return nothing
  return accept<DebitAuthEvent>(DebitAuthDisabled.make({ ...parties(state), at: command.at }))
}

/** An unauthorized return revokes the authorization, whatever its state; revoked again (or none) changes nothing. */
const revoke = (command: RevokeDebitAuth, state: State): Decision<Event> => {
  if (state._tag === "Initial" || state._tag === "Revoked") return nothing
  return accept<DebitAuthEvent>(
    DebitAuthRevoked.make({
      ...parties(state),
      returnCode: command.returnCode,
      reason: command.reason,
      at: command.at,
    }),
  )
}

/**
 * One debit for a payment request of the authorized company: Active, in the limit's currency and
 * within it; the same debit again changes nothing, another amount for the same request is refused.
 */
const authorize = (command: AuthorizeDebit, state: State): Decision<Event> => {
  if (state._tag === "Initial") return refuse(new NotFound({ entity }))
  const invalid = positive("amount", command.amount)
  if (invalid) return refuse(invalid)
  if (command.companyId !== state.companyId) {
    return refuse(
      new RuleViolated({
        code: RefusalCode.companyMismatch,
        reason: "the debit authorization was given to another company",
      }),
    )
  }
  const previous = state.authorizedDebits[command.paymentRequestId]
  if (previous !== undefined) {
    return Money.equals(previous, command.amount)
      ? nothing
      : refuse(
          new RuleViolated({
            code: RefusalCode.alreadyAuthorized,
            reason: `a debit of ${Money.toDecimalString(previous)} ${previous.currency} was already authorized for this payment request`,
          }),
        )
  }
  if (state._tag === "Revoked") return revokedRefusal(state)
  if (state._tag === "Disabled") {
    return refuse(new RuleViolated({ code: RefusalCode.disabled, reason: "the debit authorization is disabled" }))
  }
  if (command.amount.currency !== state.limit.currency) {
    return refuse(
      new RuleViolated({
        code: RefusalCode.currencyMismatch,
        reason: `the debit is in ${command.amount.currency} but the limit is in ${state.limit.currency}`,
      }),
    )
  }
  if (!Money.isWithin(command.amount, state.limit)) {
    return refuse(
      new RuleViolated({
        code: RefusalCode.limitExceeded,
        reason: `the debit of ${Money.toDecimalString(command.amount)} exceeds the limit of ${Money.toDecimalString(state.limit)} ${state.limit.currency}`,
      }),
    )
  }
  return accept<DebitAuthEvent>(
    DebitAuthorized.make({
      ...parties(state),
      paymentRequestId: command.paymentRequestId,
      amount: command.amount,
      limit: state.limit,
      at: command.at,
    }),
  )
}

export const decide: (command: Command, state: State) => Decision<Event> = byCommand<Command, State, Event>({
  SetDebitAuth: set,
  UpdateDebitAuthLimit: updateLimit,
  EnableDebitAuth: enable,
  DisableDebitAuth: disable,
  AuthorizeDebit: authorize,
  RevokeDebitAuth: revoke,
})

const parties = (state: Details) => ({
  debitAuthId: state.debitAuthId,
  partnerId: state.partnerId,
  companyId: state.companyId,
  registrationId: state.registrationId,
})

// ---------------------------------------------------------------------------
// Evolve
// ---------------------------------------------------------------------------

export const evolve: (state: State, event: Event) => State = byEvent<Event, State>({
  DebitAuthSet: (_state, event) => {
    return {
      _tag: "Active",
      debitAuthId: event.debitAuthId,
      partnerId: event.partnerId,
      companyId: event.companyId,
      registrationId: event.registrationId,
      limit: event.limit,
      authorizedDebits: {},
      ...Payload.pick(PayerEvidence, event),
    }
  },
  DebitAuthLimitUpdated: (state, event) =>
    state._tag === "Initial" ? state : { ...state, limit: event.limit, ...Payload.pick(PayerEvidence, event) },
  DebitAuthEnabled: (state, event) =>
    state._tag === "Initial" ? state : { ...state, _tag: "Active", ...Payload.pick(PayerEvidence, event) },
  DebitAuthDisabled: (state) => (state._tag === "Initial" ? state : { ...state, _tag: "Disabled" }),
  DebitAuthRevoked: (state, event) =>
    state._tag === "Initial" ? state : { ...state, _tag: "Revoked", returnCode: event.returnCode },
  DebitAuthorized: (state, event) =>
    state._tag === "Initial"
      ? state
      : { ...state, authorizedDebits: { ...state.authorizedDebits, [event.paymentRequestId]: event.amount } },
})

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "DebitAuth",
  initialState,
  decide,
  evolve,
  events: DebitAuthEventSchema,
  eventVersion: () => 1,
}
