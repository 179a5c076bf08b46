/**
 * Use cases of the customer one-time-code login (POST /Login/SendOtp,
 * PUT /Login/CheckOtp), called by a partner for one of its end users' phone
 * numbers.
 *
 * The OTP rules live in the `LoginChallenge` aggregate (one per phone number
 * and partner). Here: make the code (`OtpCodes`), hash it (`CodeHasher`),
 * record it, then send it (`OtpSender`); on check, record the attempt and, on
 * the first success, register the customer (`Customer.RegisterCustomer`) with
 * the registration id the challenge fixed. The same phone at two partners is
 * two challenges, hence two customers.
 *
 * A wrong code is recorded before the use case answers with an error (so the
 * attempt counts even though the request fails).
 */

import { DateTime, Effect, Schema } from "effect"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import type { EventStore, EventStoreUnavailable } from "../infrastructure/EventStore.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import { PhoneIndex } from "../infrastructure/PersonalData.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import { type FieldIssue, RuleViolated, ValidationFailed } from "../kernel/DomainError.ts"
import type { PartnerId, RegistrationId } from "../kernel/Ids.ts"
import * as Traced from "../kernel/Traced.ts"
import * as Customer from "./Customer.ts"
import { e164Pattern } from "./CustomerEvents.ts"
import { OtpSender } from "./CustomerProviders.ts"
import * as LoginChallenge from "./LoginChallenge.ts"
import { CodeHasher, codePattern, OtpCodes, providerOwnedCode } from "./OtpCodes.ts"

/**
 * The phone number may not log in or get a code right now (locked after too
 * many wrong codes, or too many codes sent this hour); `code` is the rule
 * (LOGIN_LOCKED, OTP_RESEND_LIMIT). HTTP: 429 with Retry-After.
 */
export class LoginThrottled extends Schema.TaggedError<LoginThrottled>()("LoginThrottled", {
  code: Schema.String,
  reason: Schema.String,
  retryAfterSeconds: Schema.Int,
}) {
  override get message(): string {
    return this.reason
  }
}

/** The keyed hash of a phone number: challenge stream ids never hold the number itself. */
const phoneIndexOf = Traced.fn("CustomerLogin.phoneIndexOf")(function* (phoneNumber: string) {
  const index = yield* PhoneIndex
  return yield* index.of(phoneNumber)
})

/** The phone number's issue, if any (the edge decoded both fields as strings). */
const phoneIssue = (phoneNumber: string): Array<FieldIssue> =>
  e164Pattern.test(phoneNumber)
    ? []
    : [{ field: "phoneNumber", message: "must be an E.164 phone number such as +14155550123" }]

/** A throttling refusal as `LoginThrottled`, with the wait computed from the challenge. */
const throttled = Traced.fn("CustomerLogin.throttled")(function* (
  partnerId: PartnerId,
  phoneNumber: string,
  refusal: RuleViolated,
) {
  const { state } = yield* UseCase.dieOnCorruptEvent(
    CommandHandler.load(
      LoginChallenge.aggregate,
      LoginChallenge.challengeId(partnerId, yield* phoneIndexOf(phoneNumber)),
    ),
  )
  const now = yield* DateTime.now
  return yield* new LoginThrottled({
    code: refusal.code,
    reason: refusal.reason,
    retryAfterSeconds: LoginChallenge.retryAfterSeconds(state, now) ?? 1,
  })
})

/** Turns the aggregate's throttling refusals into `LoginThrottled`; any other failure passes through. */
const throttle =
  (partnerId: PartnerId, phoneNumber: string) =>
  <E>(error: E): Effect.Effect<never, E | LoginThrottled | EventStoreUnavailable, EventStore> =>
    error instanceof RuleViolated && (error.code === "LOGIN_LOCKED" || error.code === "OTP_RESEND_LIMIT")
      ? throttled(partnerId, phoneNumber, error)
      : Effect.fail(error)

/** Records a new code's hash on the phone number's challenge (its own unit, before the code is sent). */
const issueCode = UseCase.fn("CustomerLogin.issueCode")(function* (
  partnerId: PartnerId,
  phoneNumber: string,
  codeHash: string,
) {
  const at = yield* DateTime.now
  return yield* CommandHandler.handle(
    LoginChallenge.aggregate,
    LoginChallenge.challengeId(partnerId, yield* phoneIndexOf(phoneNumber)),
    { _tag: "IssueCode", partnerId, phoneNumber, codeHash, at },
  )
})

/**
 * Sends a new code to the phone number (a partner's end user; the customer
 * need not exist yet). Answers when the code expires. A phone number that is
 * not E.164 is refused by the challenge (ValidationFailed naming
 * `phoneNumber`), before any code is recorded or sent.
 */
export const sendOtp = Traced.fn("CustomerLogin.sendOtp")(function* (partnerId: PartnerId, phoneNumber: string) {
  const sender = yield* OtpSender
  // A provider that owns the codes makes its own: the challenge records the stand-in's hash.
  const code = sender.verify === undefined ? yield* (yield* OtpCodes).next : providerOwnedCode
  const codeHash = yield* (yield* CodeHasher).hash({ partnerId, phoneNumber, code })
  const handled = yield* issueCode(partnerId, phoneNumber, codeHash).pipe(
    Effect.catch(throttle(partnerId, phoneNumber)),
  )
  // IssueCode has one outcome when accepted: LoginCodeIssued, which leaves the challenge awaiting that code.
  const { expiresAt, registrationId } = handled.state as LoginChallenge.AwaitingCode
  yield* sender.send({ phoneNumber, code, partnerId, registrationId: registrationId ?? undefined }).pipe(
    Effect.catchTag("OtpDeliveryFailed", (failed) =>
      Effect.fail(
        new RuleViolated({
          code: "OTP_DELIVERY_FAILED",
          reason: `the code could not be delivered: ${failed.reason}`,
        }),
      ),
    ),
  )
  return { expiresAt }
})

export interface LoggedIn {
  readonly registrationId: RegistrationId
  /** True when this login registered the customer. */
  readonly registered: boolean
}

/**
 * Records a typed code's check on the challenge and, on the first success, registers the customer
 * (one unit); a wrong code is recorded too (the refusal is reported after the unit committed).
 * `loggedIn` is present when the code was right.
 */
const verifyCode = UseCase.fn("CustomerLogin.verifyCode")(function* (
  partnerId: PartnerId,
  phoneNumber: string,
  codeHash: string,
  candidate: RegistrationId,
) {
  const at = yield* DateTime.now
  const { events, state } = yield* CommandHandler.handle(
    LoginChallenge.aggregate,
    LoginChallenge.challengeId(partnerId, yield* phoneIndexOf(phoneNumber)),
    { _tag: "VerifyCode", partnerId, phoneNumber, codeHash, registrationId: candidate, at },
  )
  for (const event of events) {
    if (event._tag !== "LoginCodeVerified") continue
    const registration = yield* CommandHandler.handle(Customer.aggregate, event.registrationId, {
      _tag: "RegisterCustomer",
      registrationId: event.registrationId,
      partnerId,
      phoneNumber,
      at,
    })
    const loggedIn: LoggedIn = { registrationId: event.registrationId, registered: registration.events.length > 0 }
    return { events, state, at, loggedIn }
  }
  return { events, state, at, loggedIn: undefined }
})

/**
 * The hash a typed code presents to the challenge: its own keyed hash, or, when the provider owns the
 * codes, the stand-in's hash if the provider approves it (the challenge then applies expiry and locks as
 * for any code) and the typed code's hash (a wrong code) if not.
 */
const presentedHash = Traced.fn("CustomerLogin.presentedHash")(function* (
  partnerId: PartnerId,
  phoneNumber: string,
  code: string,
) {
  const sender = yield* OtpSender
  const hasher = yield* CodeHasher
  if (sender.verify === undefined) return yield* hasher.hash({ partnerId, phoneNumber, code })
  const verdict = yield* sender.verify({ phoneNumber, code })
  return yield* hasher.hash({ partnerId, phoneNumber, code: verdict === "Approved" ? providerOwnedCode : code })
})

/**
 * Checks a code typed by the end user. Success logs the customer in (and
 * registers them on their first login). A wrong code: RuleViolated
 * OTP_INVALID (the attempt is recorded); the fifth in a row: LoginThrottled
 * LOGIN_LOCKED. No pending code or an expired one: RuleViolated OTP_NOT_ISSUED
 * / OTP_EXPIRED.
 */
export const checkOtp = Traced.fn("CustomerLogin.checkOtp")(function* (
  partnerId: PartnerId,
  phoneNumber: string,
  code: string,
) {
  // Checked here, not only by the challenge: the code must be well-formed before a provider is asked about it.
  const issues = phoneIssue(phoneNumber)
  if (!codePattern.test(code)) {
    issues.push({ field: "code", message: "must be the 6-digit code that was sent" })
  }
  if (issues.length > 0) return yield* new ValidationFailed({ issues })
  const codeHash = yield* presentedHash(partnerId, phoneNumber, code)
  const candidate = (yield* (yield* IdGenerator).next) as RegistrationId
  const outcome = yield* verifyCode(partnerId, phoneNumber, codeHash, candidate).pipe(
    Effect.catch(throttle(partnerId, phoneNumber)),
  )
  if (outcome.loggedIn !== undefined) return outcome.loggedIn
  // Otherwise the code was wrong: LoginCodeRejected, with LoginLocked when it locks the phone.
  for (const event of outcome.events) {
    if (event._tag === "LoginLocked") {
      const seconds = Math.max(1, Math.ceil((event.lockedUntil.epochMilliseconds - event.at.epochMilliseconds) / 1000))
      return yield* new LoginThrottled({
        code: "LOGIN_LOCKED",
        reason: `too many wrong codes: this phone number is locked until ${DateTime.formatIso(event.lockedUntil)}`,
        retryAfterSeconds: seconds,
      })
    }
  }
  const left = LoginChallenge.wrongCodesLeft(outcome.state, outcome.at)
  return yield* new RuleViolated({
    code: "OTP_INVALID",
    reason: `the code is wrong; ${left} attempt(s) left before the phone number is locked`,
  })
})
