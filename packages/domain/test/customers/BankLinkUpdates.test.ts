/**
 * The bank-link provider's notifications through their use cases, on the
 * in-memory domain stack: accounts linked through an item are found again by
 * the item's id; a revocation unlinks them from the customer once; a repair
 * request is recorded once; an unknown item changes nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as EventPipeline from "../../src/composition/EventPipeline.ts"
import * as BankAccounts from "../../src/customers/BankAccounts.ts"
import * as BankLinkNotices from "../../src/customers/BankLinkNotices.ts"
import * as BankLinkUpdates from "../../src/customers/BankLinkUpdates.ts"
import * as CustomerLogin from "../../src/customers/CustomerLogin.ts"
import * as CustomerProviderSandboxes from "../../src/customers/CustomerProviderSandboxes.ts"
import { BankLinker } from "../../src/customers/CustomerProviders.ts"
import { CodeHasher, OtpCodes } from "../../src/customers/OtpCodes.ts"
import * as Verification from "../../src/customers/Verification.ts"
import { EventStore } from "../../src/infrastructure/EventStore.ts"
import { IdGenerator } from "../../src/infrastructure/IdGenerator.ts"
import { UnitOfWork } from "../../src/infrastructure/UnitOfWork.ts"
import * as Ids from "../../src/kernel/Ids.ts"

const partnerId = Ids.PartnerId.make("0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b")
const phone = "+14155550123"
const itemId = "item-1"

/** A bank linker like Plaid's: two accounts of one item. */
const plaidLike = Layer.succeed(
  BankLinker,
  BankLinker.of({
    createLinkToken: () => Effect.die("unused"),
    exchangePublicToken: () =>
      Effect.succeed({
        accounts: [
          {
            providerAccountId: "acc-1",
            institutionId: "ins_1",
            name: "Checking",
            mask: "0001",
            type: "checking",
            itemId,
          },
          {
            providerAccountId: "acc-2",
            institutionId: "ins_1",
            name: "Savings",
            mask: "0002",
            type: "savings",
            itemId,
          },
        ],
      }),
  }),
)

const run = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(Date.parse("2026-03-02T10:00:00Z"))
    return yield* effect
  }).pipe(
    Effect.provide(
      Layer.mergeAll(
        EventPipeline.layerMemory(),
        UnitOfWork.layerMemory,
        IdGenerator.layerRandom,
        OtpCodes.layerSandbox,
        CodeHasher.layerTest,
        CustomerProviderSandboxes.layerOtpSenderMemory,
        CustomerProviderSandboxes.layerKycProviderSandbox,
        plaidLike,
      ),
    ),
  ) as Effect.Effect<A, E, never>

/** A logged-in customer with both accounts of the item linked. */
const linkedCustomer = Effect.gen(function* () {
  yield* CustomerLogin.sendOtp(partnerId, phone)
  const { registrationId } = yield* CustomerLogin.checkOtp(partnerId, phone, "123456")
  const { tokenId } = yield* Verification.start(partnerId, registrationId, "device-1")
  const linked = yield* BankAccounts.link(partnerId, registrationId, {
    tokenId,
    publicToken: "public-token",
    linkSessionId: "session-1",
    institutionId: "ins_1",
    accountIds: ["acc-1", "acc-2"],
  })
  assert.isTrue(linked.isOk)
  return registrationId
})

const masks = (registrationId: Ids.RegistrationId) =>
  Effect.map(BankAccounts.list(partnerId, registrationId), (accounts) => accounts.map((account) => account.mask))

describe("the bank-link provider's notifications", () => {
  it.effect("the customer revoking one account unlinks that account, once", () =>
    run(
      Effect.gen(function* () {
        const registrationId = yield* linkedCustomer
        const notification = {
          itemId,
          action: "RemoveAccount" as const,
          accountId: "acc-2",
          reason: "USER_ACCOUNT_REVOKED",
        }
        assert.strictEqual(yield* BankLinkUpdates.receive(notification), "Recorded")
        assert.deepStrictEqual(yield* masks(registrationId), ["0001"])
        const before = yield* (yield* EventStore).readAll({ after: 0, limit: 1000 })
        yield* BankLinkUpdates.receive(notification)
        const after = yield* (yield* EventStore).readAll({ after: 0, limit: 1000 })
        assert.strictEqual(after.length, before.length)
      }),
    ),
  )

  it.effect("the customer revoking the whole item unlinks every account it carried", () =>
    run(
      Effect.gen(function* () {
        const registrationId = yield* linkedCustomer
        yield* BankLinkUpdates.receive({ itemId, action: "RemoveItem", reason: "USER_PERMISSION_REVOKED" })
        assert.deepStrictEqual(yield* masks(registrationId), [])
      }),
    ),
  )

  it.effect("a notification about an item never linked here, or asking nothing, changes nothing", () =>
    run(
      Effect.gen(function* () {
        const registrationId = yield* linkedCustomer
        assert.strictEqual(
          yield* BankLinkUpdates.receive({ itemId: "item-unknown", action: "RemoveItem", reason: "x" }),
          "UnknownItem",
        )
        assert.strictEqual(
          yield* BankLinkUpdates.receive({ itemId, action: "None", reason: "WEBHOOK_UPDATE_ACKNOWLEDGED" }),
          "Ignored",
        )
        assert.deepStrictEqual(yield* masks(registrationId), ["0001", "0002"])
      }),
    ),
  )

  describe("a customer whose identity verification is Pending", () => {
    it.effect("the provider's notice that it changed records the verdict a check would, once", () =>
      run(
        Effect.gen(function* () {
          yield* CustomerLogin.sendOtp(partnerId, phone)
          const { registrationId } = yield* CustomerLogin.checkOtp(partnerId, phone, "123456")
          yield* Verification.start(partnerId, registrationId, "device-1")
          const notice = { itemId: "idv-1", action: "CheckIdentity" as const, reason: "STATUS_UPDATED", registrationId }
          const pending = yield* (yield* EventStore).readAll({ after: 0, limit: 1000 })
          assert.strictEqual(yield* BankLinkNotices.receive(notice), "Recorded")
          const before = yield* (yield* EventStore).readAll({ after: 0, limit: 1000 })
          assert.isAbove(before.length, pending.length)
          const recorded = yield* Verification.check(partnerId, registrationId)
          assert.strictEqual(recorded.status, "Verified")
          yield* BankLinkNotices.receive(notice)
          const after = yield* (yield* EventStore).readAll({ after: 0, limit: 1000 })
          assert.strictEqual(after.length, before.length)
        }),
      ),
    )

    it.effect("a notice naming no customer of ours changes nothing", () =>
      run(
        Effect.gen(function* () {
          const before = yield* (yield* EventStore).readAll({ after: 0, limit: 1000 })
          const received = yield* BankLinkNotices.receive({
            itemId: "idv-2",
            action: "CheckIdentity",
            reason: "STATUS_UPDATED",
            registrationId: "3d2c1b0a-0000-4000-8000-000000000000",
          })
          assert.strictEqual(received, "UnknownCustomer")
          const after = yield* (yield* EventStore).readAll({ after: 0, limit: 1000 })
          assert.strictEqual(after.length, before.length)
        }),
      ),
    )
  })
})
