/**
 * Use cases of a customer's own settings: notification preferences
 * (GET/PUT /Customer/Notifications), device push tokens
 * (POST/DELETE /Customer/NotificationToken) and saved card payment methods
 * (GET /Payment/CardPaymentMethods/{registrationId}).
 *
 * The customer is read from its own aggregate (`CommandHandler.load`), which is
 * always current. Tenancy: a customer of another partner, or one that never
 * registered, is `NotFound("Customer")`, exactly like a missing one.
 */

import { DateTime, Effect } from "effect"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { EventStoreUnavailable } from "../infrastructure/EventStore.ts"
import { notAvailable } from "../infrastructure/Providers.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import { NotFound } from "../kernel/DomainError.ts"
import type { PartnerId, RegistrationId } from "../kernel/Ids.ts"
import * as Traced from "../kernel/Traced.ts"
import * as Customer from "./Customer.ts"
import { CardProcessor } from "./CustomerProviders.ts"

/** The registered customer `registrationId` of the partner, or NotFound. */
export const loadCustomer = Traced.fn("CustomerPreferences.loadCustomer")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
) {
  const { state } = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Customer.aggregate, registrationId))
  if (state._tag !== "Registered" || state.partnerId !== partnerId) {
    return yield* new NotFound({ entity: "Customer" })
  }
  return state
})

/** Runs a command for the partner's customer (tenancy checked first), in the caller's unit of work. */
const handleForCustomer = Traced.fn("CustomerPreferences.handleForCustomer")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
  command: (at: DateTime.Utc) => Customer.Command,
) {
  yield* loadCustomer(partnerId, registrationId)
  const at = yield* DateTime.now
  return yield* CommandHandler.handle(Customer.aggregate, registrationId, command(at))
})

// ---------------------------------------------------------------------------
// Notification preferences

/** The customer's eight notification switches (spec 2.13). */
export const notificationPreferences = Traced.fn("CustomerPreferences.notificationPreferences")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
) {
  const customer = yield* loadCustomer(partnerId, registrationId)
  return customer.notificationPreferences
})

/** Changes the given switches (the others keep their value); answers the complete new set. */
export const updateNotificationPreferences = UseCase.fn("CustomerPreferences.updateNotificationPreferences")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
  changes: Partial<Customer.NotificationPreferences>,
) {
  const handled = yield* handleForCustomer(partnerId, registrationId, (at) => ({
    _tag: "UpdateNotificationPreferences",
    changes,
    at,
  }))
  return Customer.notificationPreferences(handled.state)
})

// ---------------------------------------------------------------------------
// Push tokens

/** Registers (or refreshes the expiry of) a device push token. */
export const registerPushToken = UseCase.fn("CustomerPreferences.registerPushToken")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
  input: { readonly token: string; readonly expireAt: DateTime.Utc },
) {
  yield* handleForCustomer(partnerId, registrationId, (at) => ({
    _tag: "RegisterPushToken",
    token: input.token,
    expireAt: input.expireAt,
    at,
  }))
})

/** Removes a device push token; removing an unknown token changes nothing (idempotent). */
export const removePushToken = UseCase.fn("CustomerPreferences.removePushToken")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
  token: string,
) {
  yield* handleForCustomer(partnerId, registrationId, (at) => ({ _tag: "RemovePushToken", token, at }))
})

// ---------------------------------------------------------------------------
// Saved card payment methods

export interface CardPaymentMethodsQuery {
  /** Only methods of this type (compared without regard to case), e.g. "card". */
  readonly type?: string | undefined
}

/** The customer's saved card payment methods (spec 2.12), in the order they were first saved. */
export const cardPaymentMethods = Traced.fn("CustomerPreferences.cardPaymentMethods")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
  query: CardPaymentMethodsQuery = {},
) {
  const customer = yield* loadCustomer(partnerId, registrationId)
  const type = query.type?.toLowerCase()
  return {
    registrationId: customer.registrationId,
    paymentMethods: customer.cardPaymentMethods.filter((m) => type === undefined || m.type.toLowerCase() === type),
  }
})

/**
 * Starts adding a card for the partner's customer (POST /Payment/CardPaymentMethods/{registrationId}/Setup):
 * the card processor's setup, whose client secret the app completes with the processor's SDK on the
 * device; the processor's integration then saves the card (Stripe: its `setup_intent.succeeded`
 * webhook). The customer is checked first (another partner's or unknown: NotFound); the processor is
 * called outside any unit of work; nothing is recorded. Unavailable: 503; no processor: 422
 * FEATURE_NOT_AVAILABLE.
 */
export const setupCard = Traced.fn("CustomerPreferences.setupCard")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
) {
  const customer = yield* loadCustomer(partnerId, registrationId)
  const processor = yield* CardProcessor
  const setup = yield* processor.setupCard({ partnerId, registrationId: customer.registrationId }).pipe(
    Effect.catchTags({
      ProviderUnavailable: (unavailable) =>
        Effect.fail(new EventStoreUnavailable({ reason: `the card processor is unavailable: ${unavailable.reason}` })),
      FeatureNotAvailable: (error) => Effect.fail(notAvailable(error)),
    }),
  )
  return {
    registrationId: customer.registrationId,
    setupIntentId: setup.setupIntentId,
    clientSecret: setup.clientSecret,
  }
})

/**
 * Records a card saved with the card processor (called by the card processor
 * integration, and by tests and sandbox seeding; there is no public endpoint:
 * cards are saved through the processor's own flow, never by sending card
 * details to this service).
 */
export const saveCardPaymentMethod = UseCase.fn("CustomerPreferences.saveCardPaymentMethod")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
  method: Customer.CardPaymentMethod,
) {
  yield* handleForCustomer(partnerId, registrationId, (at) => ({ _tag: "SaveCardPaymentMethod", method, at }))
})
