/**
 * LoginChallenge: the one-time-code login of one phone number at one partner
 * (stream id `LoginChallenge-<partnerId>:<phone index>`, the phone number's
 * keyed hash from the `PhoneIndex` port, never the number). It holds the OTP
 * rules (interface changelog v0.4, "stronger OTP protections"):
 *
 * - a code is valid 5 minutes and can be used once; a new code replaces the
 *   previous one;
 * - at most 5 codes per phone in any rolling hour;
 * - 5 wrong codes in a row (across resends: a new code does not reset the
 *   count) lock the phone: no login and no new code, and the pending code is
 *   void. Locks escalate: the first lock lasts 15 minutes, the next 1 hour,
 *   any further one 24 hours, while the previous lock ended less than 24
 *   hours ago; a successful login starts over at 15 minutes;
 * - at most 20 wrong codes per phone in any rolling 24 hours (a login does not
 *   reset this budget): the 20th locks the phone until the oldest of them is
 *   24 hours old, if that is later than the escalated lock;
 * - the first successful login fixes the customer's registration id for this
 *   phone at this partner; every later login gives the same id. The same phone
 *   at another partner is another challenge, hence another customer.
 *
 * Codes are made and hashed at the edge (`OtpCodes`, `CodeHasher`): the
 * commands and events carry only the keyed hash, never the code.
 *
 * A wrong code is not a refusal: it is recorded (`LoginCodeRejected`, and
 * `LoginLocked` on the fifth), so the application reads the outcome from the
 * events. Refusals record nothing: locked, too many codes, no pending code,
 * expired code, malformed input.
 */
import { DateTime } from "effect"
import { type Aggregate, accept, byCommand, byEvent, type Decision, refuse } from "../kernel/Decider.ts"
import {
  type DomainError,
  type FieldIssue,
  IllegalTransition,
  RuleViolated,
  ValidationFailed,
} from "../kernel/DomainError.ts"
import type { PartnerId, RegistrationId } from "../kernel/Ids.ts"
import { isErased } from "../kernel/Personal.ts"
import { e164Pattern } from "./CustomerEvents.ts"
import {
  type LoginChallengeEvent,
  LoginChallengeEvent as LoginChallengeEventSchema,
  type LoginCodeIssued,
  type LoginCodeRejected,
  type LoginCodeVerified,
  type LoginLocked,
} from "./LoginChallengeEvents.ts"

export * from "./LoginChallengeEvents.ts"

// ---------------------------------------------------------------------------
// Policy
// ---------------------------------------------------------------------------

/** How long a code can be used after it is sent. */
export const codeLifetimeMinutes = 5
/** Wrong codes in a row that lock the phone. */
export const maxFailedAttempts = 5
/** How long the first lock lasts. */
export const lockMinutes = 15
/** How long successive locks last (the last step repeats), while each follows the previous within a day. */
export const lockSteps: ReadonlyArray<number> = [lockMinutes, 60, 24 * 60]
/** Wrong codes a phone may send in any rolling 24 hours. */
export const maxWrongCodesPerDay = 20
/** Codes a phone may be sent in any rolling hour. */
export const maxCodesPerHour = 5

const hourMillis = 60 * 60 * 1000
const dayMillis = 24 * hourMillis

/** The stream id of the challenge of one phone at one partner, from the phone's keyed hash (`PhoneIndex`). */
export const challengeId = (partnerId: PartnerId, phoneIndex: string): string => `${partnerId}:${phoneIndex}`

// ---------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------

/** A new code was made (and will be sent); `codeHash` is its keyed hash. */
export interface IssueCode {
  readonly _tag: "IssueCode"
  readonly partnerId: PartnerId
  readonly phoneNumber: string
  readonly codeHash: string
  readonly at: DateTime.Utc
}

/**
 * Someone typed a code (`codeHash`, hashed like the issued one).
 * `registrationId` is a fresh id, used only if this is the phone's first login.
 */
export interface VerifyCode {
  readonly _tag: "VerifyCode"
  readonly partnerId: PartnerId
  readonly phoneNumber: string
  readonly codeHash: string
  readonly registrationId: RegistrationId
  readonly at: DateTime.Utc
}

/** The events of this aggregate. */
export type Event = LoginChallengeEvent

export type Command = IssueCode | VerifyCode

// ---------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------

interface Known {
  readonly partnerId: PartnerId
  readonly phoneNumber: string
  /** Fixed by the first successful login (null before). */
  readonly registrationId: RegistrationId | null
  /** Wrong codes since the last login or lock. */
  readonly failedAttempts: number
  /** When the latest codes were sent (at most `maxCodesPerHour`, oldest first). */
  readonly recentCodes: ReadonlyArray<DateTime.Utc>
  /** When the latest wrong codes were typed (at most `maxWrongCodesPerDay`, oldest first). */
  readonly recentWrongCodes: ReadonlyArray<DateTime.Utc>
  /** The latest lock since the last login: its step in `lockSteps` and its end (null when none). */
  readonly lastLock: { readonly step: number; readonly until: DateTime.Utc } | null
}

/** A code was sent and is neither used nor replaced (it may have expired: see `expiresAt`). */
export interface AwaitingCode extends Known {
  readonly _tag: "AwaitingCode"
  readonly codeHash: string
  readonly expiresAt: DateTime.Utc
}

/** No usable code: the last one was used. */
export interface Idle extends Known {
  readonly _tag: "Idle"
}

/** Locked after too many wrong codes, until `lockedUntil` (afterwards it behaves as Idle). */
export interface Locked extends Known {
  readonly _tag: "Locked"
  readonly lockedUntil: DateTime.Utc
}

export type State = { readonly _tag: "Initial" } | AwaitingCode | Idle | Locked

export const initialState: State = { _tag: "Initial" }

// ---------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------

const millis = (instant: DateTime.Utc): number => instant.epochMilliseconds

/** True while the phone is locked at `at`. */
export const isLocked = (state: State, at: DateTime.Utc): state is Locked =>
  state._tag === "Locked" && millis(at) < millis(state.lockedUntil)

/** The codes sent in the hour before `at`. */
const codesInLastHour = (state: State, at: DateTime.Utc): ReadonlyArray<DateTime.Utc> =>
  // Stryker disable next-line ArrayDeclaration: equivalent, a phone never sent a code is below the hourly limit either way
  state._tag === "Initial" ? [] : state.recentCodes.filter((sent) => millis(sent) > millis(at) - hourMillis)

/**
 * How long a lock starting at `at` lasts, in minutes: one step longer than the
 * previous lock when that one ended less than 24 hours before `at`.
 */
export const nextLockMinutes = (state: State, at: DateTime.Utc): number =>
  lockSteps[nextLockStep(state, at)] ?? lockMinutes

const nextLockStep = (state: State, at: DateTime.Utc): number => {
  if (state._tag === "Initial" || state.lastLock === null) return 0
  if (millis(at) - millis(state.lastLock.until) >= dayMillis) return 0
  return Math.min(state.lastLock.step + 1, lockSteps.length - 1)
}

/** When the lock caused by a wrong code at `at` ends: the escalated lock, or later when the daily budget is used up. */
const lockEndAt = (state: AwaitingCode, at: DateTime.Utc): DateTime.Utc => {
  const escalated = DateTime.add(at, { minutes: nextLockMinutes(state, at) })
  const today = [...state.recentWrongCodes, at].filter((wrong) => millis(wrong) > millis(at) - dayMillis)
  const oldest = today[0]
  // Stryker disable next-line ConditionalExpression: equivalent, the day's wrong codes include this one (the test narrows the type)
  if (today.length < maxWrongCodesPerDay || oldest === undefined) return escalated
  // Stryker disable next-line EqualityOperator: equivalent, when both ends are the same instant either is the answer
  return millis(oldest) + dayMillis > millis(escalated) ? DateTime.add(oldest, { hours: 24 }) : escalated
}

/** True when a wrong code at `at` would use up the phone's daily budget of wrong codes. */
const lastWrongCodeOfTheDay = (state: AwaitingCode, at: DateTime.Utc): boolean =>
  state.recentWrongCodes.filter((wrong) => millis(wrong) > millis(at) - dayMillis).length + 1 >= maxWrongCodesPerDay

/** How many more wrong codes at `at` the phone may type before it is locked (the last of them locks it). */
export const wrongCodesLeft = (state: State, at: DateTime.Utc): number => {
  if (state._tag === "Initial") return maxFailedAttempts
  const today = state.recentWrongCodes.filter((wrong) => millis(wrong) > millis(at) - dayMillis).length
  return Math.max(0, Math.min(maxFailedAttempts - state.failedAttempts, maxWrongCodesPerDay - today))
}

/**
 * How many whole seconds (at least 1) until the phone may try again, when it is
 * locked or has used up its codes for the hour; undefined when it may go on.
 */
export const retryAfterSeconds = (state: State, at: DateTime.Utc): number | undefined => {
  const seconds = (until: number) => Math.max(1, Math.ceil((until - millis(at)) / 1000))
  if (isLocked(state, at)) return seconds(millis(state.lockedUntil))
  const recent = codesInLastHour(state, at)
  const oldest = recent[0]
  // Stryker disable next-line ConditionalExpression: equivalent, five codes have an oldest (the test narrows the type)
  if (recent.length >= maxCodesPerHour && oldest !== undefined) return seconds(millis(oldest) + hourMillis)
  return undefined
}

// ---------------------------------------------------------------------------
// Decide
// ---------------------------------------------------------------------------

const entity = "LoginChallenge"

/** Compares two hashes without stopping at the first difference. */
const sameHash = (a: string, b: string): boolean => {
  let difference = a.length ^ b.length
  // Stryker disable next-line EqualityOperator,MethodExpression: equivalent, hashes of other lengths already differ (one more step reads no character)
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    difference |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0)
  }
  return difference === 0
}

const validate = (command: Command): ValidationFailed | undefined => {
  const issues: Array<FieldIssue> = []
  if (!e164Pattern.test(command.phoneNumber)) {
    issues.push({ field: "phoneNumber", message: "must be an E.164 phone number such as +14155550123" })
  }
  if (command.codeHash.length === 0) {
    issues.push({ field: "codeHash", message: "must not be empty" })
  }
  return issues.length > 0 ? new ValidationFailed({ issues }) : undefined
}

/** Who a challenge's events name: the partner and the phone number. */
type Challenge = Pick<LoginChallengeEvent, "partnerId" | "phoneNumber">

/** What every command must pass first: well-formed, this challenge's phone and partner, not locked. */
const guard = (command: Command, state: State): Decision<Event> | undefined => {
  const invalid = validate(command)
  if (invalid) return refuse(invalid)
  if (
    state._tag !== "Initial" &&
    (state.partnerId !== command.partnerId ||
      // An erased phone number reads "[erased]": the challenge is still this phone's (its id is the phone's hash).
      (state.phoneNumber !== command.phoneNumber && !isErased(state.phoneNumber)))
  ) {
    return refuse(
      new IllegalTransition({
        entity,
        state: state._tag,
        command: command._tag,
        reason: "this challenge belongs to another phone number or partner",
      }),
    )
  }
  if (isLocked(state, command.at)) {
    return refuse(
      new RuleViolated({
        code: "LOGIN_LOCKED",
        reason: `too many wrong codes: this phone number is locked until ${DateTime.formatIso(state.lockedUntil)}`,
      }),
    )
  }
  return undefined
}

/** A new code replaces the pending one, at most `maxCodesPerHour` an hour. */
const issueCode = (command: IssueCode, state: State, challenge: Challenge): Decision<Event> => {
  if (codesInLastHour(state, command.at).length >= maxCodesPerHour) {
    return refuse(
      new RuleViolated({
        code: "OTP_RESEND_LIMIT",
        reason: `at most ${maxCodesPerHour} codes may be sent to a phone number in an hour`,
      }),
    )
  }
  const event: LoginCodeIssued = {
    _tag: "LoginCodeIssued",
    ...challenge,
    codeHash: command.codeHash,
    expiresAt: DateTime.add(command.at, { minutes: codeLifetimeMinutes }),
    at: command.at,
  }
  return accept<LoginChallengeEvent>(event)
}

/** The pending, unexpired code logs in; a wrong one is recorded, and locks the phone when too many were. */
const verifyCode = (command: VerifyCode, state: State, challenge: Challenge): Decision<Event> => {
  if (state._tag !== "AwaitingCode") {
    return refuse(
      new RuleViolated({
        code: "OTP_NOT_ISSUED",
        reason: "no code is pending for this phone number; request a new one",
      }),
    )
  }
  if (millis(command.at) >= millis(state.expiresAt)) {
    return refuse(new RuleViolated({ code: "OTP_EXPIRED", reason: "the code has expired; request a new one" }))
  }
  if (sameHash(command.codeHash, state.codeHash)) {
    const event: LoginCodeVerified = {
      _tag: "LoginCodeVerified",
      ...challenge,
      registrationId: state.registrationId ?? command.registrationId,
      at: command.at,
    }
    return accept<LoginChallengeEvent>(event)
  }
  const failedAttempts = state.failedAttempts + 1
  const rejected: LoginCodeRejected = { _tag: "LoginCodeRejected", ...challenge, failedAttempts, at: command.at }
  if (failedAttempts < maxFailedAttempts && !lastWrongCodeOfTheDay(state, command.at)) {
    return accept<LoginChallengeEvent>(rejected)
  }
  const locked: LoginLocked = {
    _tag: "LoginLocked",
    ...challenge,
    lockedUntil: lockEndAt(state, command.at),
    at: command.at,
  }
  return accept<LoginChallengeEvent>(rejected, locked)
}

/** Each command to its function, with the challenge it is about. */
const dispatch = byCommand<Command, State, Event>({
  IssueCode: (command, state) => issueCode(command, state, challengeOf(command)),
  VerifyCode: (command, state) => verifyCode(command, state, challengeOf(command)),
})

const challengeOf = (command: Command): Challenge => ({
  partnerId: command.partnerId,
  phoneNumber: command.phoneNumber,
})

export const decide = (command: Command, state: State): Decision<Event> =>
  guard(command, state) ?? dispatch(command, state)

// ---------------------------------------------------------------------------
// Evolve
// ---------------------------------------------------------------------------

/** What a challenge remembers across codes, without what only a pending code or a lock holds. */
const known = (state: Known): Known => ({
  partnerId: state.partnerId,
  phoneNumber: state.phoneNumber,
  registrationId: state.registrationId,
  failedAttempts: state.failedAttempts,
  recentCodes: state.recentCodes,
  recentWrongCodes: state.recentWrongCodes,
  lastLock: state.lastLock,
})

/** A challenge's first code: the phone and partner it names, nothing remembered yet. */
const firstCode = (event: LoginCodeIssued): Known => ({
  partnerId: event.partnerId,
  phoneNumber: event.phoneNumber,
  registrationId: null,
  failedAttempts: 0,
  recentCodes: [],
  recentWrongCodes: [],
  lastLock: null,
})

const codeIssued = (base: Known, event: LoginCodeIssued): AwaitingCode => ({
  ...known(base),
  _tag: "AwaitingCode",
  codeHash: event.codeHash,
  expiresAt: event.expiresAt,
  recentCodes: [...base.recentCodes, event.at].slice(-maxCodesPerHour),
})

/** Every event of a challenge that has issued its first code. */
const evolveIssued = byEvent<Event, Exclude<State, { readonly _tag: "Initial" }>, State>({
  LoginCodeIssued: (state, event) => codeIssued(state, event),
  LoginCodeVerified: (state, event) => ({
    ...known(state),
    _tag: "Idle",
    registrationId: event.registrationId,
    failedAttempts: 0,
    lastLock: null,
  }),
  LoginCodeRejected: (state, event) => ({
    ...state,
    failedAttempts: event.failedAttempts,
    recentWrongCodes: [...state.recentWrongCodes, event.at].slice(-maxWrongCodesPerDay),
  }),
  LoginLocked: (state, event) => ({
    ...known(state),
    _tag: "Locked",
    lockedUntil: event.lockedUntil,
    failedAttempts: 0,
    lastLock: { step: nextLockStep(state, event.at), until: event.lockedUntil },
  }),
})

export const evolve = (state: State, event: Event): State => {
  // A challenge starts with its first code: any other event before it does not fit and changes nothing.
  if (state._tag === "Initial") return event._tag === "LoginCodeIssued" ? codeIssued(firstCode(event), event) : state
  return evolveIssued(state, event)
}

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "LoginChallenge",
  initialState,
  decide,
  evolve,
  events: LoginChallengeEventSchema,
  eventVersion: () => 1,
}
