/**
 * Login when the SMS provider owns the one-time codes (Twilio Verify): the
 * provider makes, sends and checks the codes; the LoginChallenge still
 * decides expiry, single use and locks, from the provider's verdicts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Ref } from "effect"
import { TestClock } from "effect/testing"
import * as EventPipeline from "../../src/composition/EventPipeline.ts"
import * as CustomerLogin from "../../src/customers/CustomerLogin.ts"
import { OtpSender } from "../../src/customers/CustomerProviders.ts"
import { CodeHasher, OtpCodes } from "../../src/customers/OtpCodes.ts"
import { IdGenerator } from "../../src/infrastructure/IdGenerator.ts"
import { UnitOfWork } from "../../src/infrastructure/UnitOfWork.ts"
import * as Ids from "../../src/kernel/Ids.ts"

const partnerId = Ids.PartnerId.make("0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b")
const phone = "+14155550123"

/**
 * A provider that owns the codes: its code is always 424242; it records what it was asked (a send names the
 * customer's registration id when it is given one).
 */
const run = <A, E, R>(program: (asked: Ref.Ref<ReadonlyArray<string>>) => Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(Date.parse("2026-03-02T10:00:00Z"))
    const asked = yield* Ref.make<ReadonlyArray<string>>([])
    const sender = OtpSender.of({
      send: ({ code, registrationId }) =>
        Ref.update(asked, (all) => [
          ...all,
          registrationId === undefined ? `send ${code}` : `send ${code} to ${registrationId}`,
        ]),
      verify: ({ code }) =>
        Effect.as(
          Ref.update(asked, (all) => [...all, `check ${code}`]),
          code === "424242" ? "Approved" : "Rejected",
        ),
    })
    return yield* program(asked).pipe(Effect.provideService(OtpSender, sender))
  }).pipe(
    Effect.provide(
      Layer.mergeAll(
        EventPipeline.layerMemory(),
        UnitOfWork.layerMemory,
        IdGenerator.layerRandom,
        OtpCodes.layerSandbox,
        CodeHasher.layerTest,
      ),
    ),
  ) as Effect.Effect<A, E, never>

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (reason?._tag !== "Fail") throw new Error(`expected a typed failure: ${String(exit.cause)}`)
  return reason.error
}

describe("a login whose codes the provider owns", () => {
  it.effect("the code the provider approves logs the customer in; partnerpay never makes nor sends one", () =>
    run((asked) =>
      Effect.gen(function* () {
        yield* CustomerLogin.sendOtp(partnerId, phone)
        const first = yield* CustomerLogin.checkOtp(partnerId, phone, "424242")
        assert.isTrue(first.registered)
        assert.deepStrictEqual(yield* Ref.get(asked), ["send provider-owned", "check 424242"])
      }),
    ),
  )

  it.effect("a code the provider rejects counts as a wrong code", () =>
    run(() =>
      Effect.gen(function* () {
        yield* CustomerLogin.sendOtp(partnerId, phone)
        const error = failureOf(yield* Effect.exit(CustomerLogin.checkOtp(partnerId, phone, "123456")))
        assert.deepInclude(error, { _tag: "RuleViolated", code: "OTP_INVALID" })
      }),
    ),
  )

  it.effect("an approved code still expires after 5 minutes and works once only", () =>
    run(() =>
      Effect.gen(function* () {
        yield* CustomerLogin.sendOtp(partnerId, phone)
        yield* TestClock.adjust("5 minutes")
        const late = failureOf(yield* Effect.exit(CustomerLogin.checkOtp(partnerId, phone, "424242")))
        assert.deepInclude(late, { _tag: "RuleViolated", code: "OTP_EXPIRED" })
        yield* CustomerLogin.sendOtp(partnerId, phone)
        yield* CustomerLogin.checkOtp(partnerId, phone, "424242")
        const again = failureOf(yield* Effect.exit(CustomerLogin.checkOtp(partnerId, phone, "424242")))
        assert.deepInclude(again, { _tag: "RuleViolated", code: "OTP_NOT_ISSUED" })
      }),
    ),
  )

  it.effect("five rejected codes lock the phone, even for the code the provider would approve", () =>
    run(() =>
      Effect.gen(function* () {
        yield* CustomerLogin.sendOtp(partnerId, phone)
        for (let i = 1; i <= 5; i++) yield* Effect.exit(CustomerLogin.checkOtp(partnerId, phone, "000000"))
        const locked = failureOf(yield* Effect.exit(CustomerLogin.checkOtp(partnerId, phone, "424242")))
        assert.deepInclude(locked, { _tag: "LoginThrottled", code: "LOGIN_LOCKED" })
      }),
    ),
  )
})

describe("a phone number already registered at the partner", () => {
  it.effect("its new code is sent naming the customer's registration id", () =>
    run((asked) =>
      Effect.gen(function* () {
        yield* CustomerLogin.sendOtp(partnerId, phone)
        const { registrationId } = yield* CustomerLogin.checkOtp(partnerId, phone, "424242")
        yield* Ref.set(asked, [])
        yield* CustomerLogin.sendOtp(partnerId, phone)
        assert.deepStrictEqual(yield* Ref.get(asked), [`send provider-owned to ${registrationId}`])
      }),
    ),
  )
})

describe("a login's input", () => {
  const phoneMessage = "must be an E.164 phone number such as +14155550123"
  it.effect("a phone number that is not E.164 is refused before any code is sent, naming phoneNumber", () =>
    run((asked) =>
      Effect.gen(function* () {
        const error = failureOf(yield* Effect.exit(CustomerLogin.sendOtp(partnerId, "415-555-0123")))
        assert.deepInclude(error, { _tag: "ValidationFailed" })
        assert.deepStrictEqual((error as { issues: unknown }).issues, [{ field: "phoneNumber", message: phoneMessage }])
        assert.deepStrictEqual(yield* Ref.get(asked), [])
      }),
    ),
  )
  it.effect("a code that is not 6 digits is refused, naming code, with the phone number when both are bad", () =>
    run(() =>
      Effect.gen(function* () {
        const error = failureOf(yield* Effect.exit(CustomerLogin.checkOtp(partnerId, phone, "12345")))
        assert.deepStrictEqual((error as { issues: unknown }).issues, [
          { field: "code", message: "must be the 6-digit code that was sent" },
        ])
        const both = failureOf(yield* Effect.exit(CustomerLogin.checkOtp(partnerId, "415", "12345")))
        assert.deepStrictEqual((both as { issues: unknown }).issues, [
          { field: "phoneNumber", message: phoneMessage },
          { field: "code", message: "must be the 6-digit code that was sent" },
        ])
      }),
    ),
  )
  it.effect("sending a code tells when it expires: 5 minutes later", () =>
    run(() =>
      Effect.gen(function* () {
        const { expiresAt } = yield* CustomerLogin.sendOtp(partnerId, phone)
        assert.strictEqual(expiresAt.epochMilliseconds, Date.parse("2026-03-02T10:05:00Z"))
      }),
    ),
  )
})
