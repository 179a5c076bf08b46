/**
 * Events of a login challenge: the one-time codes sent to one phone number of
 * one partner's customers, and what happened when someone typed a code.
 *
 * A code is never recorded in plain: only its keyed hash (`codeHash`, made at
 * the edge by the `CodeHasher` port). Six-digit codes have a million values,
 * so an unkeyed hash in the log could be reversed by trying them all; the
 * hasher's secret key prevents that.
 */
import { Schema } from "effect"
import { eventsOf } from "../kernel/EventSchema.ts"
import { PartnerId, RegistrationId } from "../kernel/Ids.ts"
import { Erasable } from "../kernel/Personal.ts"
import { PhoneNumber } from "./CustomerEvents.ts"

/** Every login challenge event names the phone number (within its partner) and the instant `at`. */
const challengeEvent = eventsOf({
  partnerId: PartnerId,
  /** Personal: stored sealed (subject `login:<stream id>`); "[erased]" once erased. */
  phoneNumber: Erasable(PhoneNumber),
})

/** A new code was sent; it replaces any earlier code and can be used once until `expiresAt`. */
export const LoginCodeIssued = challengeEvent("LoginCodeIssued", {
  codeHash: Schema.String,
  expiresAt: Schema.DateTimeUtcFromString,
})
export type LoginCodeIssued = typeof LoginCodeIssued.Type

/**
 * The right code was typed: it is used up, the wrong-attempt count starts
 * again, and the customer `registrationId` (the same for every later login of
 * this phone at this partner) is logged in.
 */
export const LoginCodeVerified = challengeEvent("LoginCodeVerified", { registrationId: RegistrationId })
export type LoginCodeVerified = typeof LoginCodeVerified.Type

/** A wrong code was typed; `failedAttempts` counts the wrong codes since the last login or lock. */
export const LoginCodeRejected = challengeEvent("LoginCodeRejected", { failedAttempts: Schema.Int })
export type LoginCodeRejected = typeof LoginCodeRejected.Type

/** Too many wrong codes: the phone cannot log in (nor get codes) until `lockedUntil`; the pending code is void. */
export const LoginLocked = challengeEvent("LoginLocked", { lockedUntil: Schema.DateTimeUtcFromString })
export type LoginLocked = typeof LoginLocked.Type

export const LoginChallengeEvent = Schema.Union([LoginCodeIssued, LoginCodeVerified, LoginCodeRejected, LoginLocked])
export type LoginChallengeEvent = typeof LoginChallengeEvent.Type
