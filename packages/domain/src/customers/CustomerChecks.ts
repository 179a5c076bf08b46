/**
 * What the Customer decider's modules share: the field checks of its
 * commands, the identity every event carries, and the refusal of a command
 * the customer's verification state does not allow.
 */
import type { DateTime } from "effect"
import { refuse } from "../kernel/Decider.ts"
import { type FieldIssue, IllegalTransition, ValidationFailed } from "../kernel/DomainError.ts"
import { maxTextLength, type RegisteredCustomer } from "./CustomerState.ts"

export const entity = "Customer"

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

export type Issues = Array<FieldIssue>

/** A non-empty (unless allowed) string of at most `maxTextLength` characters. */
export const text = (issues: Issues, field: string, value: string, options: { allowEmpty?: boolean } = {}): void => {
  if (typeof value !== "string") issues.push({ field, message: "must be a string" })
  else if (!options.allowEmpty && value.trim().length === 0) issues.push({ field, message: "must not be empty" })
  else if (value.length > maxTextLength) issues.push({ field, message: `must be at most ${maxTextLength} characters` })
}

export const pattern = (issues: Issues, field: string, value: string, re: RegExp, message: string): void => {
  if (typeof value !== "string" || !re.test(value)) issues.push({ field, message })
}

export const phoneMessage = "must be an E.164 phone number such as +14155550123"
export const lastFourMessage = "must be exactly the last 4 digits"
export const uuidMessage = "must be a lowercase UUID"

export const millis = (instant: DateTime.Utc): number => instant.epochMilliseconds

export const failIfAny = (issues: Issues): ValidationFailed | undefined =>
  issues.length > 0 ? new ValidationFailed({ issues }) : undefined

/** The registration id and partner id every event carries. */
export const identityOf = (state: RegisteredCustomer) => ({
  registrationId: state.registrationId,
  partnerId: state.partnerId,
})

/** A command the customer's verification state does not allow. */
export const illegal = (state: RegisteredCustomer, command: { readonly _tag: string }, reason: string) =>
  refuse(new IllegalTransition({ entity, state: state.kycStatus, command: command._tag, reason }))
