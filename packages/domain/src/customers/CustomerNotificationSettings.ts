/**
 * How the Customer is notified: the eight notification switches and the
 * device push tokens (at most `maxPushTokens`, each until it expires).
 */
import { DateTime } from "effect"
import { accept, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { failIfAny, type Issues, identityOf, millis } from "./CustomerChecks.ts"
import {
  type CustomerEvent,
  type NotificationPreferences,
  NotificationPreferencesUpdated,
  type PushToken,
  PushTokenRegistered,
  PushTokenRemoved,
} from "./CustomerEvents.ts"
import {
  defaultNotificationPreferences,
  maxPushTokenLength,
  maxPushTokens,
  pushTokens,
  type RegisteredCustomer,
  type State,
} from "./CustomerState.ts"

/** Changes some preferences; the others keep their value. */
export interface UpdateNotificationPreferences {
  readonly _tag: "UpdateNotificationPreferences"
  readonly changes: Partial<NotificationPreferences>
  readonly at: DateTime.Utc
}

export interface RegisterPushToken {
  readonly _tag: "RegisterPushToken"
  readonly token: string
  readonly expireAt: DateTime.Utc
  readonly at: DateTime.Utc
}

export interface RemovePushToken {
  readonly _tag: "RemovePushToken"
  readonly token: string
  readonly at: DateTime.Utc
}

/** Removes every push token expired at `at` (before pushing a message: an expired token is never used). */
export interface PruneExpiredPushTokens {
  readonly _tag: "PruneExpiredPushTokens"
  readonly at: DateTime.Utc
}

export const updateNotificationPreferences = (
  command: UpdateNotificationPreferences,
  state: RegisteredCustomer,
): Decision<CustomerEvent> => {
  const customer = identityOf(state)
  const issues: Issues = []
  const preferences = { ...state.notificationPreferences }
  for (const [key, value] of Object.entries(command.changes)) {
    if (!Object.hasOwn(defaultNotificationPreferences, key)) {
      issues.push({ field: `changes.${key}`, message: "is not a notification preference" })
    } else if (typeof value !== "boolean") {
      issues.push({ field: `changes.${key}`, message: "must be true or false" })
    } else {
      preferences[key as keyof NotificationPreferences] = value
    }
  }
  const invalid = failIfAny(issues)
  if (invalid) return refuse(invalid)
  const unchanged = (Object.keys(preferences) as Array<keyof NotificationPreferences>).every(
    (key) => preferences[key] === state.notificationPreferences[key],
  )
  if (unchanged) return nothing
  return accept<CustomerEvent>(NotificationPreferencesUpdated.make({ ...customer, preferences, at: command.at }))
}

export const registerPushToken = (command: RegisterPushToken, state: RegisteredCustomer): Decision<CustomerEvent> => {
  const customer = identityOf(state)
  const issues: Issues = []
  if (typeof command.token !== "string") {
    issues.push({ field: "token", message: "must be a string" })
  } else if (command.token.trim().length === 0) {
    issues.push({ field: "token", message: "must not be empty" })
  } else if (command.token.length > maxPushTokenLength) {
    issues.push({ field: "token", message: `must be at most ${maxPushTokenLength} characters` })
  }
  if (millis(command.expireAt) <= millis(command.at)) {
    issues.push({ field: "expireAt", message: "must be in the future" })
  }
  const invalid = failIfAny(issues)
  if (invalid) return refuse(invalid)
  const known = state.pushTokens.find((t) => t.token === command.token)
  if (known !== undefined && millis(known.expireAt) === millis(command.expireAt)) return nothing
  const events: Array<CustomerEvent> = []
  // At the cap, a new token replaces the least recently registered one.
  const replaced = state.pushTokens.length >= maxPushTokens ? state.pushTokens[0] : undefined
  if (known === undefined && replaced !== undefined) {
    events.push(PushTokenRemoved.make({ ...customer, token: replaced.token, reason: "CapReached", at: command.at }))
  }
  events.push(
    PushTokenRegistered.make({ ...customer, token: command.token, expireAt: command.expireAt, at: command.at }),
  )
  return accept(...events)
}

export const removePushToken = (command: RemovePushToken, state: RegisteredCustomer): Decision<CustomerEvent> => {
  const customer = identityOf(state)
  if (!state.pushTokens.some((t) => t.token === command.token)) return nothing
  return accept<CustomerEvent>(
    PushTokenRemoved.make({ ...customer, token: command.token, reason: "RemovedByCustomer", at: command.at }),
  )
}

/** The push tokens that can still be used at `at` (expiry is exclusive: a token expiring at `at` is expired). */
export const activePushTokens = (state: State, at: DateTime.Utc): ReadonlyArray<PushToken> =>
  pushTokens(state).filter((t) => DateTime.isGreaterThan(t.expireAt, at))

export const pruneExpiredPushTokens = (
  command: PruneExpiredPushTokens,
  state: RegisteredCustomer,
): Decision<CustomerEvent> => {
  const customer = identityOf(state)
  const expired = state.pushTokens.filter((t) => !DateTime.isGreaterThan(t.expireAt, command.at))
  // No expired token: no event (accept() with none is `nothing`).
  return accept<CustomerEvent>(
    ...expired.map((t) => PushTokenRemoved.make({ ...customer, token: t.token, reason: "Expired", at: command.at })),
  )
}
