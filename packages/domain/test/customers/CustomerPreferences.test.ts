/**
 * A customer's own settings through the use cases: notification preferences,
 * push tokens and saved card payment methods (spec 2.12, 2.13).
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as EventPipeline from "../../src/composition/EventPipeline.ts"
import * as Customer from "../../src/customers/Customer.ts"
import * as CustomerPreferences from "../../src/customers/CustomerPreferences.ts"
import { EventStore } from "../../src/infrastructure/EventStore.ts"
import { IdGenerator } from "../../src/infrastructure/IdGenerator.ts"
import type { Policies } from "../../src/infrastructure/Policy.ts"
import { UnitOfWork } from "../../src/infrastructure/UnitOfWork.ts"
import * as Ids from "../../src/kernel/Ids.ts"
import { Fixtures } from "../../src/testing/index.ts"

const partnerId = Ids.PartnerId.make("0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b")
const otherPartnerId = Ids.PartnerId.make("1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f")
const customer = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-00000000c0de")
const stranger = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-00000000beef")

const domain = () => Layer.mergeAll(EventPipeline.layerMemory(), UnitOfWork.layerMemory, IdGenerator.layerRandom)
const now = Date.parse("2026-03-02T10:00:00Z")

/** Runs a scenario on a fresh in-memory domain with the customer registered at `now`. */
const scenario = <A, E>(body: Effect.Effect<A, E, EventStore | IdGenerator | UnitOfWork | Policies>) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(now)
    yield* Fixtures.registerCustomer(partnerId, customer)
    return yield* body
  }).pipe(Effect.provide(domain()))

const eventTypes = Effect.gen(function* () {
  const store = yield* EventStore
  const events = yield* store.readStream(`Customer-${customer}`)
  return events.map((e) => e.eventType)
})

const card = (id: string, type = "card"): Customer.CardPaymentMethod => ({
  id,
  type,
  brand: "visa",
  last4: "4242",
  expMonth: 12,
  expYear: 2030,
})

describe("notification preferences", () => {
  it.effect("a new customer gets the defaults: payment messages on, news off", () =>
    scenario(
      Effect.gen(function* () {
        const preferences = yield* CustomerPreferences.notificationPreferences(partnerId, customer)
        assert.deepStrictEqual(preferences, Customer.defaultNotificationPreferences)
      }),
    ),
  )

  it.effect("an update changes only the given switches and answers the complete set", () =>
    scenario(
      Effect.gen(function* () {
        const updated = yield* CustomerPreferences.updateNotificationPreferences(partnerId, customer, {
          newsEmail: true,
          paymentDuePush: false,
        })
        assert.deepStrictEqual(updated, {
          ...Customer.defaultNotificationPreferences,
          newsEmail: true,
          paymentDuePush: false,
        })
        assert.deepStrictEqual(yield* CustomerPreferences.notificationPreferences(partnerId, customer), updated)
      }),
    ),
  )

  it.effect("an update that changes nothing records no event", () =>
    scenario(
      Effect.gen(function* () {
        yield* CustomerPreferences.updateNotificationPreferences(partnerId, customer, { newsEmail: false })
        assert.deepStrictEqual(yield* eventTypes, ["CustomerRegistered"])
      }),
    ),
  )

  it.effect("another partner's customer is not found, exactly like an unknown one", () =>
    scenario(
      Effect.gen(function* () {
        const foreign = yield* Effect.flip(CustomerPreferences.notificationPreferences(otherPartnerId, customer))
        const unknown = yield* Effect.flip(CustomerPreferences.notificationPreferences(partnerId, stranger))
        assert.deepStrictEqual(foreign, unknown)
        assert.strictEqual(foreign._tag, "NotFound")
        const update = yield* Effect.flip(
          CustomerPreferences.updateNotificationPreferences(otherPartnerId, customer, { newsEmail: true }),
        )
        assert.strictEqual(update._tag, "NotFound")
      }),
    ),
  )
})

describe("push tokens", () => {
  const expireAt = DateTime.makeUnsafe("2026-06-01T00:00:00Z")

  it.effect("registering a token records it; registering it again with the same expiry changes nothing", () =>
    scenario(
      Effect.gen(function* () {
        yield* CustomerPreferences.registerPushToken(partnerId, customer, { token: "device-1", expireAt })
        yield* CustomerPreferences.registerPushToken(partnerId, customer, { token: "device-1", expireAt })
        assert.deepStrictEqual(yield* eventTypes, ["CustomerRegistered", "PushTokenRegistered"])
      }),
    ),
  )

  it.effect("a token that has already expired is refused on expireAt", () =>
    scenario(
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          CustomerPreferences.registerPushToken(partnerId, customer, {
            token: "device-1",
            expireAt: DateTime.makeUnsafe("2026-03-01T00:00:00Z"),
          }),
        )
        assert.deepStrictEqual(error._tag === "ValidationFailed" ? error.issues.map((i) => i.field) : [], ["expireAt"])
      }),
    ),
  )

  it.effect("removing a token is idempotent: the second removal and an unknown token change nothing", () =>
    scenario(
      Effect.gen(function* () {
        yield* CustomerPreferences.registerPushToken(partnerId, customer, { token: "device-1", expireAt })
        yield* CustomerPreferences.removePushToken(partnerId, customer, "device-1")
        yield* CustomerPreferences.removePushToken(partnerId, customer, "device-1")
        yield* CustomerPreferences.removePushToken(partnerId, customer, "never-registered")
        assert.deepStrictEqual(yield* eventTypes, ["CustomerRegistered", "PushTokenRegistered", "PushTokenRemoved"])
      }),
    ),
  )

  it.effect("another partner cannot register or remove the customer's tokens", () =>
    scenario(
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          CustomerPreferences.registerPushToken(otherPartnerId, customer, { token: "x", expireAt }),
        )
        assert.strictEqual(error._tag, "NotFound")
        const removal = yield* Effect.flip(CustomerPreferences.removePushToken(otherPartnerId, customer, "x"))
        assert.strictEqual(removal._tag, "NotFound")
        assert.deepStrictEqual(yield* eventTypes, ["CustomerRegistered"])
      }),
    ),
  )
})

describe("saved card payment methods", () => {
  it.effect("a customer without saved cards has an empty list", () =>
    scenario(
      Effect.gen(function* () {
        const methods = yield* CustomerPreferences.cardPaymentMethods(partnerId, customer)
        assert.deepStrictEqual(methods, { registrationId: customer, paymentMethods: [] })
      }),
    ),
  )

  it.effect("saved cards are listed in the order first saved; type filters without regard to case", () =>
    scenario(
      Effect.gen(function* () {
        yield* CustomerPreferences.saveCardPaymentMethod(partnerId, customer, card("pm_1"))
        yield* CustomerPreferences.saveCardPaymentMethod(partnerId, customer, card("pm_2", "wallet"))
        const all = yield* CustomerPreferences.cardPaymentMethods(partnerId, customer)
        assert.deepStrictEqual(
          all.paymentMethods.map((m) => m.id),
          ["pm_1", "pm_2"],
        )
        const cards = yield* CustomerPreferences.cardPaymentMethods(partnerId, customer, { type: "CARD" })
        assert.deepStrictEqual(cards.paymentMethods, [card("pm_1")])
      }),
    ),
  )

  it.effect("another partner's customer is not found", () =>
    scenario(
      Effect.gen(function* () {
        const error = yield* Effect.flip(CustomerPreferences.cardPaymentMethods(otherPartnerId, customer))
        assert.strictEqual(error._tag, "NotFound")
      }),
    ),
  )
})
