/** The sandbox providers keep a bounded amount of memory, for a bounded time. */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect } from "effect"
import { TestClock } from "effect/testing"
import * as CustomerProviderSandboxes from "../../src/customers/CustomerProviderSandboxes.ts"
import { type KycProvider, OtpSender } from "../../src/customers/CustomerProviders.ts"
import * as ProviderSandboxes from "../../src/infrastructure/ProviderSandboxes.ts"
import type { RegistrationId } from "../../src/kernel/Ids.ts"

const registrationId = "3b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a64" as RegistrationId
const limits = { maxEntries: 3, ttlMillis: 60_000 }

const startSession = (kyc: KycProvider["Service"], tokenId: string) =>
  kyc.start({ registrationId, tokenId, deviceId: "device", phoneNumber: "+15551234567" })

const known = (kyc: KycProvider["Service"], tokenId: string) =>
  kyc.check({ registrationId, tokenId }).pipe(
    Effect.as(true),
    Effect.catchTag("KycSessionNotFound", () => Effect.succeed(false)),
  )

describe("a bounded store", () => {
  it("keeps at most maxEntries values, evicting the oldest first", () => {
    const store = new ProviderSandboxes.BoundedStore<number>(limits)
    for (let i = 0; i < 5; i++) store.set(`k${i}`, i, 0)
    assert.strictEqual(store.size, 3)
    assert.deepStrictEqual(store.values(0), [2, 3, 4])
    assert.isUndefined(store.get("k0", 0))
  })

  it("storing a key again makes it the newest", () => {
    const store = new ProviderSandboxes.BoundedStore<number>(limits)
    store.set("a", 1, 0)
    store.set("b", 2, 0)
    store.set("c", 3, 0)
    store.set("a", 4, 0)
    store.set("d", 5, 0)
    assert.deepStrictEqual(store.values(0), [3, 4, 5])
  })

  it("forgets a value ttlMillis after it was stored", () => {
    const store = new ProviderSandboxes.BoundedStore<number>(limits)
    store.set("a", 1, 0)
    store.set("b", 2, 30_000)
    assert.strictEqual(store.get("a", 59_999), 1)
    assert.isUndefined(store.get("a", 60_000))
    assert.deepStrictEqual(store.values(60_000), [2])
    assert.deepStrictEqual(store.values(90_000), [])
    assert.strictEqual(store.size, 0)
  })
})

describe("the sandbox KYC provider", () => {
  it.effect("keeps at most maxEntries sessions: the oldest session becomes unknown", () =>
    Effect.gen(function* () {
      const kyc = yield* CustomerProviderSandboxes.makeKycProviderSandbox(limits)
      for (const tokenId of ["t1", "t2", "t3", "t4"]) yield* startSession(kyc, tokenId)
      assert.deepStrictEqual(yield* Effect.forEach(["t1", "t2", "t3", "t4"], (tokenId) => known(kyc, tokenId)), [
        false,
        true,
        true,
        true,
      ])
    }),
  )

  it.effect("a session expires ttlMillis after it started", () =>
    Effect.gen(function* () {
      const kyc = yield* CustomerProviderSandboxes.makeKycProviderSandbox(limits)
      yield* startSession(kyc, "t1")
      yield* TestClock.adjust("59 seconds")
      assert.isTrue(yield* known(kyc, "t1"))
      yield* TestClock.adjust("1 second")
      assert.isFalse(yield* known(kyc, "t1"))
      const error = yield* Effect.flip(kyc.personalData("t1"))
      assert.strictEqual(error._tag, "KycSessionNotFound")
    }),
  )
})

describe("the in-memory OTP sender", () => {
  it.effect("records at most maxEntries messages, the newest ones", () =>
    Effect.gen(function* () {
      const context = yield* CustomerProviderSandboxes.makeOtpSenderMemory(limits)
      const sender = Context.get(context, OtpSender)
      for (const code of ["1", "2", "3", "4", "5"]) yield* sender.send({ phoneNumber: "+15551234567", code })
      const sent = yield* Context.get(context, CustomerProviderSandboxes.SentOtps).all
      assert.deepStrictEqual(
        sent.map(({ code }) => code),
        ["3", "4", "5"],
      )
    }),
  )

  it.effect("forgets a message ttlMillis after it was sent", () =>
    Effect.gen(function* () {
      const context = yield* CustomerProviderSandboxes.makeOtpSenderMemory(limits)
      const sender = Context.get(context, OtpSender)
      const recorded = Context.get(context, CustomerProviderSandboxes.SentOtps).all
      yield* sender.send({ phoneNumber: "+15551234567", code: "old" })
      yield* TestClock.adjust("30 seconds")
      yield* sender.send({ phoneNumber: "+15551234567", code: "new" })
      yield* TestClock.adjust("30 seconds")
      assert.deepStrictEqual(
        (yield* recorded).map(({ code }) => code),
        ["new"],
      )
      yield* TestClock.adjust("30 seconds")
      assert.deepStrictEqual(yield* recorded, [])
    }),
  )
})
