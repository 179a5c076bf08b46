/**
 * Company: a business a partner registers (spec 2.2-2.8) and its business
 * verification, KYB (spec 3.1).
 *
 * States: Unverified, Verified, Rejected. Registration validates every field
 * (see `CompanyValidation.ts`) and starts the company Unverified. KYB
 * completes once: Unverified becomes Verified or Rejected, and that outcome
 * never changes (a repeat of the same outcome does nothing). Locations can be
 * added while the company is Unverified or Verified, not once Rejected.
 *
 * Facts from outside the aggregate arrive in commands: new ids (company,
 * locations) come from the edge, the KYB outcome from the KYB provider.
 * Uniqueness of `companyReferenceId` per partner is checked by the read side
 * before RegisterCompany is sent; the aggregate only sees its own stream.
 *
 * Only the partner that registered a company may add locations to it; to
 * any other partner the company does not exist (NotFound).
 */
import type { DateTime } from "effect"
import { type Aggregate, accept, byCommand, byEvent, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { AlreadyExists, type DomainError, refusalsOf, ValidationFailed } from "../kernel/DomainError.ts"
import type * as Ids from "../kernel/Ids.ts"
import type {
  CompanyEvent,
  CompanyProfile,
  CompanyStatus,
  Location,
  LocationDetails,
  PayoutAccount,
} from "./CompanyEvents.ts"
import * as CompanyEvents from "./CompanyEvents.ts"
import { type SetCompanyMetadata, setCompanyMetadata } from "./CompanyMetadata.ts"
import {
  type MarkPayoutAccountErrored,
  markPayoutAccountErrored,
  type SetPayoutAccount,
  setPayoutAccount,
} from "./CompanyPayoutAccount.ts"
import {
  alreadyValidated,
  type LocationInput,
  type RegistrationInput,
  type ValidRegistration,
  validateLocation,
  validateRegistration,
} from "./CompanyValidation.ts"

export * from "./CompanyEvents.ts"
export type { SetCompanyMetadata } from "./CompanyMetadata.ts"
export type { MarkPayoutAccountErrored, SetPayoutAccount } from "./CompanyPayoutAccount.ts"
export * from "./CompanyValidation.ts"

// ---------------------------------------------------------------------------
// Commands

/**
 * A partner registers a company. `registration` is the create request body
 * as received (spec 2.2); `locationIds` holds one new id per location of the
 * request, in the same order.
 */
export interface RegisterCompany {
  readonly _tag: "RegisterCompany"
  readonly partnerId: Ids.PartnerId
  readonly companyId: Ids.CompanyId
  readonly locationIds: ReadonlyArray<Ids.LocationId>
  /** The request as received, or the registration `validateRegistration` accepted at `at` (checked once). */
  readonly registration: RegistrationInput | ValidRegistration
  readonly at: DateTime.Utc
}

/** The partner adds a location (spec 2.5, 2.7); `location` is the request body as received. */
export interface AddLocation {
  readonly _tag: "AddLocation"
  readonly partnerId: Ids.PartnerId
  readonly companyId: Ids.CompanyId
  readonly locationId: Ids.LocationId
  readonly location: LocationInput
  readonly at: DateTime.Utc
}

/** KYB processing finished with an outcome (sent by the KYB integration). */
export interface CompleteKyb {
  readonly _tag: "CompleteKyb"
  readonly companyId: Ids.CompanyId
  readonly outcome: "Verified" | "Rejected"
  readonly reason?: string
  readonly at: DateTime.Utc
}

/**
 * The KYB provider suspended or deactivated the company (Dwolla's `customer_suspended`,
 * `customer_deactivated`): a Verified company becomes Suspended; one not verified yet is Rejected
 * (the provider's verdict); a Suspended or Rejected one stays as it is.
 */
export interface SuspendCompany {
  readonly _tag: "SuspendCompany"
  readonly companyId: Ids.CompanyId
  readonly reason?: string
  readonly at: DateTime.Utc
}

/** The company was submitted to the KYB provider, which answered `submissionId` (sent by the KYB integration). */
export interface RecordKybSubmission {
  readonly _tag: "RecordKybSubmission"
  readonly companyId: Ids.CompanyId
  readonly submissionId: string
  readonly at: DateTime.Utc
}

/** The KYB provider asks for documents or the data again before it decides (sent by the KYB integration). */
export interface RequireKybAction {
  readonly _tag: "RequireKybAction"
  readonly companyId: Ids.CompanyId
  readonly requirement: CompanyEvents.KybRequirement
  readonly at: DateTime.Utc
}

/** The events of this aggregate. */
export type Event = CompanyEvent

export type Command =
  | RegisterCompany
  | AddLocation
  | CompleteKyb
  | RecordKybSubmission
  | RequireKybAction
  | SetPayoutAccount
  | SetCompanyMetadata
  | MarkPayoutAccountErrored
  | SuspendCompany

// ---------------------------------------------------------------------------
// State

/** What is known about a registered company, whatever its status. */
export interface CompanyData {
  readonly companyId: Ids.CompanyId
  readonly partnerId: Ids.PartnerId
  readonly profile: CompanyProfile
  readonly locations: ReadonlyArray<Location>
  readonly registeredAt: DateTime.Utc
  /** Where its balance is paid out (`CompanyPayoutAccount.ts`), once the partner set one. */
  readonly payoutAccount?: PayoutAccount
}

export type State =
  | { readonly _tag: "Initial" }
  | ({
      readonly _tag: "Unverified"
      /** The KYB provider's reference, once submitted (`Companies.submitKyb`). */
      readonly kybSubmissionId?: string
      /** What the KYB provider last asked for before deciding, until it decides. */
      readonly kybRequirement?: CompanyEvents.KybRequirement
    } & CompanyData)
  | ({ readonly _tag: "Verified"; readonly verifiedAt: DateTime.Utc } & CompanyData)
  | ({ readonly _tag: "Rejected"; readonly rejectedAt: DateTime.Utc; readonly reason?: string } & CompanyData)
  | ({ readonly _tag: "Suspended"; readonly suspendedAt: DateTime.Utc; readonly reason?: string } & CompanyData)

export type Registered = Exclude<State, { readonly _tag: "Initial" }>

export const initialState: State = { _tag: "Initial" }

/** The status a client sees (spec 2.8), or undefined before registration. */
export const statusOf = (state: State): CompanyStatus | undefined => (state._tag === "Initial" ? undefined : state._tag)

// ---------------------------------------------------------------------------
// Decide

const refusals = refusalsOf("Company")
const notFound = refusals.notFound

const illegal = (state: State, command: Command, reason: string) => refuse(refusals.illegal(state, command, reason))

const sameLocation = (existing: Location, details: LocationDetails): boolean =>
  existing.name === details.name &&
  existing.streetNumberAndName === details.streetNumberAndName &&
  existing.apartmentNumber === details.apartmentNumber &&
  existing.zipCode === details.zipCode &&
  existing.city === details.city &&
  existing.state === details.state

const register = (command: RegisterCompany, state: State): Decision<Event> => {
  if (state._tag !== "Initial") return refuse(refusals.alreadyExists)
  const checked = alreadyValidated(command.registration, command.at)
  // Stryker disable next-line ConditionalExpression: equivalent, a registration already validated passes validation again (only slower)
  const validated = checked === undefined ? validateRegistration(command.registration, command.at) : undefined
  if (validated?._tag === "Failure") return refuse(validated.failure)
  const { locations, owner, ...profile } = checked ?? validated!.success
  const ids = command.locationIds
  if (ids.length !== locations.length || new Set(ids).size !== ids.length) {
    return refuse(
      ValidationFailed.of("locationIds", `must hold ${locations.length} distinct location ids, one per location`),
    )
  }
  // A plain value: the registration is validated above (a Schema `make` would check every field again).
  return accept<CompanyEvent>({
    _tag: "CompanyRegistered",
    companyId: command.companyId,
    partnerId: command.partnerId,
    ...profile,
    owner: CompanyEvents.toOwnerRecord(owner),
    locations: locations.map((details, index) => ({ locationId: ids[index]!, ...details })),
    registeredAt: command.at,
  })
}

const addLocation = (command: AddLocation, state: State): Decision<Event> => {
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, an Initial state has no partner, so the second test refuses it too (the first narrows the type)
  if (state._tag === "Initial" || state.partnerId !== command.partnerId) return refuse(notFound)
  if (state._tag === "Rejected") return illegal(state, command, "locations cannot be added to a Rejected company")
  const validated = validateLocation(command.location)
  if (validated._tag === "Failure") return refuse(validated.failure)
  const details = validated.success
  const existing = state.locations.find((location) => location.locationId === command.locationId)
  if (existing !== undefined) {
    return sameLocation(existing, details) ? nothing : refuse(new AlreadyExists({ entity: "Location" }))
  }
  return accept<CompanyEvent>(
    CompanyEvents.LocationAdded.make({
      companyId: state.companyId,
      partnerId: state.partnerId,
      location: { locationId: command.locationId, ...details },
      at: command.at,
    }),
  )
}

/** What a KYB provider's verdict on the company records: the company, the provider's reason if any, and when. */
const verdictOf = (command: CompleteKyb | SuspendCompany, state: Registered) => ({
  companyId: state.companyId,
  partnerId: state.partnerId,
  ...reasonOf(command),
  at: command.at,
})

/** The `reason` key of what gave one (absent, not undefined, otherwise). */
const reasonOf = (from: { readonly reason?: string | undefined }) =>
  from.reason === undefined ? {} : { reason: from.reason }

const completeKyb = (command: CompleteKyb, state: State): Decision<Event> => {
  switch (state._tag) {
    case "Initial":
      return refuse(notFound)
    case "Unverified": {
      const facts = verdictOf(command, state)
      return accept<CompanyEvent>(
        command.outcome === "Verified"
          ? CompanyEvents.CompanyVerified.make(facts)
          : CompanyEvents.CompanyRejected.make(facts),
      )
    }
    case "Suspended":
      // The provider verified the suspended company again: reactivated. Rejected after it: it stays Suspended.
      return command.outcome === "Verified"
        ? accept<CompanyEvent>(
            CompanyEvents.CompanyReactivated.make({
              companyId: state.companyId,
              partnerId: state.partnerId,
              at: command.at,
            }),
          )
        : nothing
    case "Verified":
    case "Rejected":
      return command.outcome === state._tag
        ? nothing
        : illegal(
            state,
            command,
            `KYB already completed with outcome ${state._tag}; a company's verification is decided once`,
          )
  }
}

/** A suspension by the KYB provider: Verified -> Suspended; Unverified -> Rejected; otherwise nothing. */
const suspend = (command: SuspendCompany, state: State): Decision<Event> => {
  if (state._tag === "Initial") return refuse(notFound)
  const facts = verdictOf(command, state)
  switch (state._tag) {
    case "Verified":
      return accept<CompanyEvent>(CompanyEvents.CompanySuspended.make(facts))
    case "Unverified":
      return accept<CompanyEvent>(CompanyEvents.CompanyRejected.make(facts))
    case "Suspended":
    case "Rejected":
      return nothing
  }
}

const recordKybSubmission = (command: RecordKybSubmission, state: State): Decision<Event> => {
  switch (state._tag) {
    case "Initial":
      return refuse(notFound)
    case "Unverified":
      if (state.kybSubmissionId === command.submissionId) return nothing
      if (state.kybSubmissionId !== undefined)
        return illegal(state, command, "the company was already submitted for business verification")
      return accept<CompanyEvent>(
        CompanyEvents.CompanyKybSubmitted.make({
          companyId: state.companyId,
          partnerId: state.partnerId,
          submissionId: command.submissionId,
          at: command.at,
        }),
      )
    case "Verified":
    case "Rejected":
    case "Suspended":
      return illegal(state, command, `KYB already completed with outcome ${state._tag}`)
  }
}

/** A requirement is recorded once while it stands (a repeat, or one after the verdict, changes nothing). */
const requireKybAction = (command: RequireKybAction, state: State): Decision<Event> => {
  if (state._tag === "Initial") return refuse(notFound)
  if (state._tag !== "Unverified" || state.kybRequirement === command.requirement) return nothing
  return accept<CompanyEvent>(
    CompanyEvents.CompanyKybActionRequired.make({
      companyId: state.companyId,
      partnerId: state.partnerId,
      requirement: command.requirement,
      at: command.at,
    }),
  )
}

export const decide: (command: Command, state: State) => Decision<Event> = byCommand<Command, State, Event>({
  RegisterCompany: register,
  AddLocation: addLocation,
  CompleteKyb: completeKyb,
  RecordKybSubmission: recordKybSubmission,
  RequireKybAction: requireKybAction,
  SetPayoutAccount: setPayoutAccount,
  SetCompanyMetadata: (command, state) =>
    setCompanyMetadata(
      command,
      state._tag === "Initial"
        ? state
        : { _tag: state._tag, partnerId: state.partnerId, metadata: state.profile.metadata },
    ),
  MarkPayoutAccountErrored: markPayoutAccountErrored,
  SuspendCompany: suspend,
})

// ---------------------------------------------------------------------------
// Evolve

export const evolve: (state: State, event: Event) => State = byEvent<Event, State>({
  CompanyRegistered: (state, event) => {
    if (state._tag !== "Initial") return state
    const { _tag, companyId, partnerId, locations, registeredAt, ...profile } = event
    return { _tag: "Unverified", companyId, partnerId, profile, locations, registeredAt }
  },
  LocationAdded: (state, event) => {
    if (state._tag === "Initial") return state
    return { ...state, locations: [...state.locations, event.location] }
  },
  CompanyVerified: (state, event) => {
    if (state._tag !== "Unverified") return state
    return { ...state, _tag: "Verified", verifiedAt: event.at }
  },
  CompanyRejected: (state, event) => {
    if (state._tag !== "Unverified") return state
    return {
      ...state,
      _tag: "Rejected",
      rejectedAt: event.at,
      ...reasonOf(event),
    }
  },
  CompanyKybSubmitted: (state, event) =>
    state._tag === "Unverified" ? { ...state, kybSubmissionId: event.submissionId } : state,
  CompanyKybActionRequired: (state, event) =>
    state._tag === "Unverified" ? { ...state, kybRequirement: event.requirement } : state,
  PayoutAccountSet: (state, event) => {
    if (state._tag === "Initial") return state
    const { _tag, companyId, partnerId, at, replacedPayoutAccountId, replacedErrored, ...payoutAccount } = event
    return { ...state, payoutAccount }
  },
  CompanyMetadataSet: (state, event) =>
    state._tag === "Initial" ? state : { ...state, profile: { ...state.profile, metadata: event.metadata } },
  CompanySuspended: (state, event) => {
    if (state._tag !== "Verified") return state
    return {
      ...state,
      _tag: "Suspended",
      suspendedAt: event.at,
      ...reasonOf(event),
    }
  },
  CompanyReactivated: (state, event) => {
    if (state._tag !== "Suspended") return state
    const { suspendedAt: _at, reason: _reason, ...data } = state
    return { ...data, _tag: "Verified", verifiedAt: event.at }
  },
  PayoutAccountErrored: (state, event) => {
    // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, an Initial state has no payout account (the test narrows the type)
    return state._tag === "Initial" ||
      state.payoutAccount === undefined ||
      state.payoutAccount.payoutAccountId !== event.payoutAccountId
      ? state
      : { ...state, payoutAccount: CompanyEvents.erroredAccount(state.payoutAccount, event) }
  },
})

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "Company",
  initialState,
  decide,
  evolve,
  events: CompanyEvents.CompanyEvent,
  eventVersion: () => 1,
}
