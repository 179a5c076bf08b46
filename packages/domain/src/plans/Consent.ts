/**
 * Consent: a payer's consent to a company's recurring payment plan (spec 3.2,
 * changelog v0.4.1-v0.4.4).
 *
 * States: Pending, Accepted, Declined, Revoked. The company's plan creation
 * requests the consent (Pending); the payer accepts it (Accepted) or declines
 * it: a Pending consent becomes Declined, an Accepted one becomes Revoked
 * (there is no separate revoke operation). Declined and Revoked are terminal.
 * Only Pending and Accepted consents are listed.
 *
 * Only the consent's own payer may accept or decline it; to anyone else the
 * consent does not exist (NotFound), so its existence is not disclosed.
 */
import { type DateTime, Schema } from "effect"
import { type Aggregate, accept, byCommand, byEvent, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { type DomainError, refusalsOf, ValidationFailed } from "../kernel/DomainError.ts"
import type * as Ids from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import { AuthorizationEvidence, WhoMayCollect } from "../payments/index.ts"
import type { ConsentEvent } from "./ConsentEvents.ts"
import * as ConsentEvents from "./ConsentEvents.ts"

export { ConsentEvent } from "./ConsentEvents.ts"

// ---------------------------------------------------------------------------
// Commands

/** The company asks the payer to consent to a plan (sent together with the plan's creation). */
export interface RequestConsent extends ConsentEvents.ConsentTerms {
  readonly _tag: "RequestConsent"
  readonly at: DateTime.Utc
}

/** The payer (`registrationId`) accepts, naming the bank account to debit. */
export interface AcceptConsent {
  readonly _tag: "AcceptConsent"
  readonly consentId: Ids.ConsentId
  readonly registrationId: Ids.RegistrationId
  /** The payer's KYC status (read by the edge): only a Verified payer consents (`WhoMayCollect`). */
  readonly payerKyc: WhoMayCollect.KycStatus
  readonly bankAccountId: Ids.BankAccountId
  /** The request that carried the acceptance, recorded as the authorization's evidence. */
  readonly client?: AuthorizationEvidence.ClientContext
  readonly at: DateTime.Utc
}

/** The payer (`registrationId`) declines: a Pending consent is Declined, an Accepted one is Revoked. */
export interface DeclineConsent {
  readonly _tag: "DeclineConsent"
  readonly consentId: Ids.ConsentId
  readonly registrationId: Ids.RegistrationId
  readonly at: DateTime.Utc
}

/**
 * The payer's bank returned a debit to the company as unauthorized (`returnCode`): an Accepted
 * consent is Revoked (issued by the service, `Returns.actOn`; any other state changes nothing).
 */
export interface RevokeConsentOnReturn {
  readonly _tag: "RevokeConsentOnReturn"
  readonly consentId: Ids.ConsentId
  readonly registrationId: Ids.RegistrationId
  readonly returnCode: string
  readonly at: DateTime.Utc
}

/** The events of this aggregate. */
export type Event = ConsentEvent

export type Command = RequestConsent | AcceptConsent | DeclineConsent | RevokeConsentOnReturn

// ---------------------------------------------------------------------------
// State

/** The status a client sees, PascalCase as in the spec. */
export const ConsentStatus = Schema.Literals(["Pending", "Accepted", "Declined", "Revoked"])
export type ConsentStatus = typeof ConsentStatus.Type

/** What the consent is about, fixed when it is requested (`ConsentEvents.ConsentTerms`), and when. */
export interface ConsentTerms extends ConsentEvents.ConsentTerms {
  readonly requestedAt: DateTime.Utc
}

export type State =
  | { readonly _tag: "Initial" }
  | ({ readonly _tag: "Pending" } & ConsentTerms)
  | ({
      readonly _tag: "Accepted"
      readonly bankAccountId: Ids.BankAccountId
      readonly acceptedAt: DateTime.Utc
    } & ConsentTerms)
  | ({ readonly _tag: "Declined"; readonly declinedAt: DateTime.Utc } & ConsentTerms)
  | ({
      readonly _tag: "Revoked"
      readonly bankAccountId: Ids.BankAccountId
      readonly acceptedAt: DateTime.Utc
      readonly revokedAt: DateTime.Utc
    } & ConsentTerms)

export type ExistingState = Exclude<State, { readonly _tag: "Initial" }>

export const initialState: State = { _tag: "Initial" }

/** The client-visible status of a consent, undefined when it does not exist. */
export const statusOf = (state: State): ConsentStatus | undefined => (state._tag === "Initial" ? undefined : state._tag)

/** Only Pending and Accepted consents appear in the consent list (changelog v0.4.3). */
export const isListable = (state: State | ConsentStatus): boolean => {
  const status = typeof state === "string" ? state : state._tag
  return status === "Pending" || status === "Accepted"
}

/** Declined and Revoked are final: no command moves a consent out of them. */
export const isTerminal = (state: State): boolean => state._tag === "Declined" || state._tag === "Revoked"

// ---------------------------------------------------------------------------
// Decide

const refusals = refusalsOf("Consent")

const validateRequest = (command: RequestConsent) =>
  command.amount.minorUnits > 0 ? undefined : ValidationFailed.of("amount", "must be greater than zero")

const sameTerms = (state: ExistingState, command: RequestConsent): boolean =>
  state.consentId === command.consentId &&
  state.paymentPlanId === command.paymentPlanId &&
  state.partnerId === command.partnerId &&
  state.companyId === command.companyId &&
  state.payerRegistrationId === command.payerRegistrationId &&
  state.frequency === command.frequency &&
  Money.equals(state.amount, command.amount)

const ids = (state: ExistingState) => ({
  consentId: state.consentId,
  paymentPlanId: state.paymentPlanId,
  partnerId: state.partnerId,
  companyId: state.companyId,
  payerRegistrationId: state.payerRegistrationId,
})

const requestConsent = (command: RequestConsent, state: State): Decision<Event> => {
  const { _tag, at, ...terms } = command
  if (state._tag !== "Initial") {
    // A retried request with the same terms changes nothing; other terms under the same id are refused.
    return sameTerms(state, command) ? nothing : refuse(refusals.alreadyExists)
  }
  const invalid = validateRequest(command)
  if (invalid) return refuse(invalid)
  return accept<ConsentEvent>({ _tag: "ConsentRequested", ...terms, at })
}

const acceptConsent = (command: AcceptConsent, state: ExistingState): Decision<Event> => {
  switch (state._tag) {
    case "Pending": {
      const unverified = WhoMayCollect.payerRefusal(command.payerKyc)
      if (unverified) return refuse(unverified)
      return accept<ConsentEvent>({
        _tag: "ConsentAccepted",
        ...ids(state),
        bankAccountId: command.bankAccountId,
        ...(command.client === undefined
          ? {}
          : { authorization: AuthorizationEvidence.evidenceOf("Consent", command.client, command.at) }),
        at: command.at,
      })
    }
    case "Accepted":
      // Accepting again with the same account is a retry; switching accounts is not a move the spec offers.
      return state.bankAccountId === command.bankAccountId
        ? nothing
        : refuse(refusals.illegal(state, command, "the consent is already accepted with another bank account"))
    case "Declined":
    case "Revoked":
      return refuse(refusals.illegal(state, command, `a ${state._tag} consent cannot be accepted`))
  }
}

const declineConsent = (command: DeclineConsent, state: ExistingState): Decision<Event> => {
  switch (state._tag) {
    case "Pending":
      return accept<ConsentEvent>({ _tag: "ConsentDeclined", ...ids(state), at: command.at })
    case "Accepted":
      return accept<ConsentEvent>({
        _tag: "ConsentRevoked",
        ...ids(state),
        bankAccountId: state.bankAccountId,
        at: command.at,
      })
    case "Declined":
    case "Revoked":
      // Declining again changes nothing: the consent is already withdrawn.
      return nothing
  }
}

/** Only an Accepted consent authorizes collections, so only it is revoked; the others change nothing. */
const revokeOnReturn = (command: RevokeConsentOnReturn, state: ExistingState): Decision<Event> =>
  state._tag === "Accepted"
    ? accept<ConsentEvent>({
        _tag: "ConsentRevoked",
        ...ids(state),
        bankAccountId: state.bankAccountId,
        returnCode: command.returnCode,
        at: command.at,
      })
    : nothing

/** Every command of the payer on a consent that exists, each to its function. */
const decideExisting = byCommand<Exclude<Command, RequestConsent>, ExistingState, Event>({
  AcceptConsent: acceptConsent,
  DeclineConsent: declineConsent,
  RevokeConsentOnReturn: revokeOnReturn,
})

export const decide = (command: Command, state: State): Decision<Event> => {
  if (command._tag === "RequestConsent") return requestConsent(command, state)
  // To anyone but its payer, a consent does not exist.
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, an Initial state has no payer, so the second test refuses it too (the first narrows the type)
  if (state._tag === "Initial" || state.payerRegistrationId !== command.registrationId) {
    return refuse(refusals.notFound)
  }
  return decideExisting(command, state)
}

// ---------------------------------------------------------------------------
// Evolve

export const evolve: (state: State, event: Event) => State = byEvent<Event, State>({
  ConsentRequested: (_state, event) => {
    const { _tag, at, ...terms } = event
    return { _tag: "Pending", ...terms, requestedAt: at }
  },
  ConsentAccepted: (state, event) =>
    state._tag === "Pending"
      ? { ...state, _tag: "Accepted", bankAccountId: event.bankAccountId, acceptedAt: event.at }
      : state,
  ConsentDeclined: (state, event) =>
    state._tag === "Pending" ? { ...state, _tag: "Declined", declinedAt: event.at } : state,
  ConsentRevoked: (state, event) =>
    state._tag === "Accepted" ? { ...state, _tag: "Revoked", revokedAt: event.at } : state,
})

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "Consent",
  initialState,
  decide,
  evolve,
  events: ConsentEvents.ConsentEvent,
  eventVersion: () => 1,
}
