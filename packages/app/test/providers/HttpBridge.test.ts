/**
 * The provider HTTP bridges against a fake provider server: signed requests,
 * retries on 5xx and timeouts only, answers decoded (a malformed one is a
 * clear ProviderUnavailable, never quoted), refusals mapped to the ports' errors.
 */
import { assert, describe, it } from "@effect/vitest"
import { CardCharger, CustomerProviders, Ids, PaymentProviders } from "@partnerpay/domain"
import { Context, DateTime, Effect, Layer, Redacted } from "effect"
import * as BankLinkerBridge from "../../src/providers/BankLinkerBridge.ts"
import * as CardProcessorBridge from "../../src/providers/CardProcessorBridge.ts"
import * as ESignatureBridge from "../../src/providers/ESignatureBridge.ts"
import * as HttpBridge from "../../src/providers/HttpBridge.ts"
import * as KycBridge from "../../src/providers/KycBridge.ts"
import * as MoneyMovementBridge from "../../src/providers/MoneyMovementBridge.ts"
import * as OtpSenderBridge from "../../src/providers/OtpSenderBridge.ts"
import * as ProviderPorts from "../../src/providers/ProviderPorts.ts"
import * as FakeProvider from "./FakeProvider.ts"

const registrationId = Ids.RegistrationId.make("7b0c9f9e-3a51-4a7e-9a53-4d6f2a0b1c11")
const transferId = Ids.TransferId.make("2f7a1c3e-8b4d-4e6f-9a0b-1c2d3e4f5a6b")
/** A debit's reference as the money-movement port polls it. */
const debitOf = (id: string) => ({ kind: "Debit" as const, id, providerReference: `ref-${id}` })

/** A bridge on the fake, with short backoffs. */
const bridgeOn = (fake: FakeProvider.FakeProvider, overrides?: Partial<HttpBridge.BridgeConfig>) =>
  HttpBridge.makeFetch("test provider", fake.config(overrides), { backoffMillis: 5 })

describe("a provider bridge that answers", () => {
  it.live("signs each request over its timestamp and body; the provider verifies it and the call succeeds", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("send", [{ status: 200, body: { delivered: true } }])
      const sender = OtpSenderBridge.make(yield* bridgeOn(fake))
      yield* sender.send({ phoneNumber: "+15551234567", code: "482913" })
      const [request] = fake.received()
      assert.strictEqual(request?.operation, "send")
      assert.isTrue(request?.signed)
      assert.strictEqual(request?.attempt, 1)
      assert.deepStrictEqual(request?.body, { phoneNumber: "+15551234567", code: "482913" })
    }),
  )

  it.live("a request signed with another secret is refused by the provider and not retried", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("send", [{ status: 200, body: {} }])
      const sender = OtpSenderBridge.make(
        yield* bridgeOn(fake, { secret: Redacted.make("another-secret-of-more-than-32-characters") }),
      )
      const error = yield* Effect.flip(sender.send({ phoneNumber: "+15551234567", code: "1" }))
      assert.strictEqual(error._tag, "ProviderUnavailable")
      assert.include(error.message, "send: unexpected answer 401")
      assert.strictEqual(fake.received().length, 1)
      assert.isFalse(fake.received()[0]?.signed)
    }),
  )

  it.live("the answer is decoded into the port's result (KYC check, personal data)", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("check", [
        { status: 200, body: { status: "Verified", referenceId: "ref-1", redirectUrl: "", extra: "ignored" } },
      ])
      fake.script("personal-data", [
        {
          status: 200,
          body: {
            firstName: "Ada",
            lastName: "Lovelace",
            birthDate: "1990-12-10",
            ssnLastFourDigits: "1234",
            emailAddress: "ada@example.com",
            phoneNumber: "+15551234567",
          },
        },
      ])
      const kyc = KycBridge.make(yield* bridgeOn(fake))
      const check = yield* kyc.check({ registrationId, tokenId: "token-1" })
      assert.deepStrictEqual(check, { status: "Verified", referenceId: "ref-1", redirectUrl: "" })
      const person = yield* kyc.personalData("ref-1")
      assert.strictEqual(person.profileName, "")
      assert.strictEqual(person.ssnLastFourDigits, "1234")
    }),
  )

  it.live("a 404 from the KYC provider is an unknown session", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("check", [{ status: 404, body: {} }])
      const kyc = KycBridge.make(yield* bridgeOn(fake))
      const error = yield* Effect.flip(kyc.check({ registrationId, tokenId: "token-unknown" }))
      assert.strictEqual(error._tag, "KycSessionNotFound")
    }),
  )

  it.live("a 422 is the port's refusal with the provider's fields (bank link error, undeliverable code)", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      const linkError = {
        errorType: "ITEM_ERROR",
        errorCode: "INVALID_CREDENTIALS",
        errorMessage: "the provided credentials were not correct",
        displayMessage: "Please try again.",
      }
      fake.script("exchange", [{ status: 422, body: linkError }])
      fake.script("send", [{ status: 422, body: { reason: "landline" } }])
      const bridge = yield* bridgeOn(fake)
      const failed = yield* Effect.flip(
        BankLinkerBridge.make(bridge).exchangePublicToken({
          registrationId,
          tokenId: "t",
          publicToken: "p",
          linkSessionId: "s",
          institutionId: "ins_1",
          accountIds: ["a"],
          holder: { firstName: "Ada", lastName: "Lovelace", emailAddress: "ada@example.com" },
        }),
      )
      // The holder's identity (for a provider making funding sources) is not part of the bridge's contract.
      assert.notInclude(JSON.stringify(fake.received()[0]?.body), "Lovelace")
      assert.include(JSON.stringify(fake.received()[0]?.body), "ins_1")
      assert.strictEqual(failed._tag, "BankLinkFailed")
      if (failed._tag === "BankLinkFailed") assert.strictEqual(failed.errorCode, "INVALID_CREDENTIALS")
      const undelivered = yield* Effect.flip(
        OtpSenderBridge.make(bridge).send({ phoneNumber: "+15550000000", code: "1" }),
      )
      assert.deepStrictEqual(
        [undelivered._tag, (undelivered as CustomerProviders.OtpDeliveryFailed).reason],
        ["OtpDeliveryFailed", "landline"],
      )
    }),
  )
})

describe("the card processor bridge", () => {
  it.live("a charge's availability date is the processor's (a payout waits for it)", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("card-charges", [
        { status: 200, body: { processorReference: "ch_1", availableAt: "2026-03-04T00:00:00.000Z" } },
      ])
      const charged = yield* CardProcessorBridge.makeCharger(yield* bridgeOn(fake)).charge({
        idempotencyKey: "7c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e62",
        paymentMethodId: "pm_1",
        last4: "4242",
        amount: { minorUnits: 2500, currency: "USD" } as never,
        description: "Invoice",
      })
      assert.deepStrictEqual(
        [
          charged.processorReference,
          "availableAt" in charged && charged.availableAt !== undefined
            ? DateTime.formatIso(charged.availableAt)
            : undefined,
        ],
        ["ch_1", "2026-03-04T00:00:00.000Z"],
      )
    }),
  )

  it.live("a card setup asks card-setups for the payer and answers the setup's client secret", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("card-setups", [
        { status: 200, body: { setupIntentId: "seti_1", clientSecret: "seti_1_secret_abc" } },
      ])
      const payer = {
        partnerId: Ids.PartnerId.make("0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6d"),
        registrationId: Ids.RegistrationId.make("6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"),
      }
      const setup = yield* CardProcessorBridge.make(yield* bridgeOn(fake)).setupCard(payer)
      assert.deepStrictEqual(setup, { setupIntentId: "seti_1", clientSecret: "seti_1_secret_abc" })
      assert.deepStrictEqual(fake.received()[0]?.body, payer)
    }),
  )

  it.live("a partial card refund goes to card-refunds with its idempotency key and amount", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("card-refunds", [{ status: 200, body: {} }])
      const charger = CardProcessorBridge.makeCharger(yield* bridgeOn(fake))
      yield* charger.refund("ch_123", {
        idempotencyKey: "7c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e61",
        amount: { minorUnits: 2500, currency: "USD" } as never,
      })
      assert.deepStrictEqual(fake.received()[0]?.body, {
        processorReference: "ch_123",
        idempotencyKey: "7c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e61",
        amount: { minorUnits: 2500, currency: "USD" },
      })
    }),
  )
})

describe("the money-movement bridge", () => {
  it.live("originates a debit keyed by the transfer id and answers the provider's reference", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("debits", [{ status: 200, body: { providerReference: "dw-1" } }])
      const movement = MoneyMovementBridge.make(yield* bridgeOn(fake))
      const reference = yield* movement.originateDebit({
        idempotencyKey: transferId,
        companyId: Ids.CompanyId.make("5d1e7a3c-2b4f-4c8d-9e6a-7f0b1c2d3e4f"),
        payerRegistrationId: registrationId,
        fundingSource: "ba-1",
        amount: { minorUnits: 4210, currency: "USD" },
        description: "Invoice 1003",
      })
      assert.deepStrictEqual(reference, { kind: "Debit", id: transferId, providerReference: "dw-1" })
      const [request] = fake.received()
      assert.strictEqual(request?.operation, "debits")
      assert.deepInclude(request?.body, { idempotencyKey: transferId, fundingSource: "ba-1" })
    }),
  )

  it.live("a 422 is the provider's refusal, with its code (an ACH return code fails the movement)", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("credits", [{ status: 422, body: { code: "R02", reason: "account closed" } }])
      const movement = MoneyMovementBridge.make(yield* bridgeOn(fake))
      const refusal = yield* Effect.flip(
        movement.originateCredit({
          idempotencyKey: "7c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e60",
          transferId,
          companyId: Ids.CompanyId.make("5d1e7a3c-2b4f-4c8d-9e6a-7f0b1c2d3e4f"),
          payerRegistrationId: registrationId,
          fundingSource: "ba-1",
          amount: { minorUnits: 1000, currency: "USD" },
          description: "Refund of Invoice 1003",
        }),
      )
      assert.deepInclude(refusal, { _tag: "MovementRefused", code: "R02", reason: "account closed" })
    }),
  )

  it.live("status answers Returned with its return code", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("status", [{ status: 200, body: { status: "Returned", returnCode: "R10" } }])
      const movement = MoneyMovementBridge.make(yield* bridgeOn(fake))
      assert.deepStrictEqual(yield* movement.status(debitOf(transferId)), { status: "Returned", returnCode: "R10" })
    }),
  )
})

describe("a provider bridge that fails", () => {
  it.live("5xx answers are retried with the same request id until one succeeds", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("status", [
        { status: 503 },
        { status: 502, body: "<html>bad gateway</html>" },
        {
          status: 200,
          body: { status: "Failed", returnCode: "R01" },
        },
      ])
      const settlement = MoneyMovementBridge.make(yield* bridgeOn(fake))
      const outcome = yield* settlement.status(debitOf(transferId))
      assert.deepStrictEqual(outcome, { status: "Failed", returnCode: "R01" })
      const received = fake.received()
      assert.deepStrictEqual(
        received.map((request) => request.attempt),
        [1, 2, 3],
      )
      assert.strictEqual(new Set(received.map((request) => request.requestId)).size, 1)
      assert.isTrue(received.every((request) => request.signed))
    }),
  )

  it.live("retries are bounded: after the last one the port fails with ProviderUnavailable", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("status", [{ status: 500 }])
      const settlement = MoneyMovementBridge.make(yield* bridgeOn(fake, { retries: 2 }))
      const error = yield* Effect.flip(settlement.status(debitOf(transferId)))
      assert.strictEqual(error._tag, "ProviderUnavailable")
      assert.include(error.reason, "status: answered 500 (after 3 attempts)")
      assert.strictEqual(fake.received().length, 3)
    }),
  )

  it.live("a 4xx other than the port's refusals is final: not retried", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("status", [{ status: 400, body: { error: "bad request" } }])
      const settlement = MoneyMovementBridge.make(yield* bridgeOn(fake))
      const error = yield* Effect.flip(settlement.status(debitOf(transferId)))
      assert.include(error.reason, "status: unexpected answer 400")
      assert.strictEqual(fake.received().length, 1)
    }),
  )

  it.live("a redirect is not followed: the signed request goes only to the configured URL", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("status", [{ status: 307, headers: { location: `${fake.url}/elsewhere` } }])
      fake.script("elsewhere", [{ status: 200, body: { status: "Settled" } }])
      const settlement = MoneyMovementBridge.make(yield* bridgeOn(fake))
      const error = yield* Effect.flip(settlement.status(debitOf(transferId)))
      assert.include(error.reason, "status: unexpected answer 307")
      assert.deepStrictEqual(
        fake.received().map((request) => request.operation),
        ["status"],
      )
    }),
  )

  it.live("no answer within the timeout is retried, then ProviderUnavailable names the timeout", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("reimbursement-envelope", [{ status: 200, body: {}, delayMillis: 2_000 }])
      const signing = ESignatureBridge.make(yield* bridgeOn(fake, { timeoutMillis: 100, retries: 1 }))
      const error = yield* Effect.flip(
        signing.createReimbursementEnvelope({
          transferId,
          providerId: "docusign",
          signer: { registrationId, name: "Ada", emailAddress: "ada@example.com" },
        }),
      )
      assert.strictEqual(error._tag, "ProviderUnavailable")
      assert.include(error.message, "reimbursement-envelope: no answer within 100 ms (after 2 attempts)")
      assert.strictEqual(fake.received().length, 2)
    }),
  )

  it.live("a slow first attempt is retried and the second answer is used", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("reimbursement-envelope", [
        { status: 200, body: { envelopeId: "late", signingUrl: "https://sign/late" }, delayMillis: 1_000 },
        { status: 200, body: { envelopeId: "env-1", signingUrl: "https://sign/env-1" } },
      ])
      const signing = ESignatureBridge.make(yield* bridgeOn(fake, { timeoutMillis: 150 }))
      const envelope = yield* signing.createReimbursementEnvelope({
        transferId,
        providerId: "docusign",
        signer: { registrationId, name: "Ada", emailAddress: "ada@example.com" },
      })
      assert.strictEqual(envelope.envelopeId, "env-1")
    }),
  )

  it.live("a connection refused is retried, then ProviderUnavailable", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      const bridge = yield* HttpBridge.makeFetch(
        "test provider",
        { ...fake.config({ retries: 1 }), url: "http://127.0.0.1:1/bridge" },
        { backoffMillis: 5 },
      )
      const error = yield* Effect.flip(OtpSenderBridge.make(bridge).send({ phoneNumber: "+15551234567", code: "1" }))
      assert.strictEqual(error._tag, "ProviderUnavailable")
      assert.include(error.message, "send: connection failed")
      assert.include(error.message, "(after 2 attempts)")
    }),
  )
})

describe("a provider bridge that answers nonsense", () => {
  it.live("a body that does not match the contract is ProviderUnavailable naming the field, never its value", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("personal-data", [
        {
          status: 200,
          body: {
            firstName: "Ada",
            lastName: "Lovelace",
            birthDate: "1990-12-10",
            ssnLastFourDigits: "123-45-6789",
            emailAddress: "ada@example.com",
            phoneNumber: "+15551234567",
          },
        },
      ])
      const kyc = KycBridge.make(yield* bridgeOn(fake))
      const error = yield* Effect.flip(kyc.personalData("ref-1"))
      assert.strictEqual(error._tag, "ProviderUnavailable")
      assert.include(error.message, "personal-data: malformed answer 200 (field ssnLastFourDigits: invalid value)")
      assert.notInclude(error.message, "6789")
      assert.strictEqual(fake.received().length, 1)
    }),
  )

  it.live("a body that is not JSON, or a missing field, is a malformed answer", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("check", [{ status: 200, body: "<html>ok</html>" }])
      fake.script("status", [{ status: 200, body: { status: "Failed" } }])
      const bridge = yield* bridgeOn(fake)
      const notJson = yield* Effect.flip(KycBridge.make(bridge).check({ registrationId, tokenId: "t" }))
      assert.include(notJson.message, "check: malformed answer 200: not JSON")
      const missing = yield* Effect.flip(MoneyMovementBridge.make(bridge).status(debitOf(transferId)))
      assert.include(missing.message, "status: malformed answer 200")
    }),
  )

  it.live("a refusal whose body is malformed is ProviderUnavailable, not a refusal", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("send", [{ status: 422, body: { why: "?" } }])
      const error = yield* Effect.flip(
        OtpSenderBridge.make(yield* bridgeOn(fake)).send({ phoneNumber: "+15551234567", code: "1" }),
      )
      assert.strictEqual(error._tag, "ProviderUnavailable")
      assert.include(error.message, "send: malformed answer 422 (field reason: missing)")
    }),
  )
})

describe("production providers", () => {
  it.effect("without bridges, the providers layer refuses to build and names every missing port at once", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Layer.build(ProviderPorts.layer(ProviderPorts.onBridges({}))).pipe(Effect.scoped),
      )
      assert.strictEqual(error._tag, "ProvidersNotConfigured")
      assert.strictEqual(error.missing.length, ProviderPorts.ports.filter((entry) => entry.required).length)
      assert.include(error.message, "OTP sender (SMS one-time login codes) (set PARTNERPAY_PROVIDER_OTP_URL")
      assert.include(error.message, "money movement")
      assert.notInclude(error.message, "e-signature")
      assert.notInclude(error.message, "card processor")
    }),
  )

  it.live("with only the required ports, cards and e-signature fail FeatureNotAvailable naming the capability", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      const required = ProviderPorts.ports.filter((entry) => entry.required)
      const bridges = Object.fromEntries(required.map(({ key }) => [key, fake.config()]))
      const context = yield* Layer.build(ProviderPorts.layer(ProviderPorts.onBridges(bridges)))
      const registration = yield* Effect.flip(
        Context.get(context, CustomerProviders.CardProcessor).registerCardPayment({
          cardPaymentId: "cp-1" as never,
          merchantId: "m-1" as never,
          amount: { minorUnits: 100, currency: "USD" } as never,
          last4: "4242",
          brand: "visa",
          externalReference: "t-1",
        }),
      )
      assert.strictEqual(registration._tag, "FeatureNotAvailable")
      assert.include(registration.message, "card processor")
      const charge = yield* Effect.flip(
        Context.get(context, CardCharger.CardCharger).charge({
          idempotencyKey: "pr-1",
          paymentMethodId: "pm-1",
          last4: "4242",
          amount: { minorUnits: 100, currency: "USD" } as never,
          description: "d",
        }),
      )
      assert.strictEqual(charge._tag, "FeatureNotAvailable")
      const envelope = yield* Effect.flip(
        Context.get(context, PaymentProviders.ESignature).createReimbursementEnvelope({
          transferId: "t-1" as never,
          providerId: "p-1",
          signer: { registrationId: "r-1" as never, name: "A B", emailAddress: "a@example.com" },
        }),
      )
      assert.strictEqual(envelope._tag, "FeatureNotAvailable")
      assert.include(envelope.message, "e-signature")
      assert.strictEqual(fake.received().length, 0)
    }),
  )

  it.live("with every bridge, each port is served by its bridge (an OTP goes to the operator's provider)", () =>
    Effect.gen(function* () {
      const fake = yield* FakeProvider.start()
      fake.script("send", [{ status: 204 }])
      const bridges = Object.fromEntries(ProviderPorts.ports.map(({ key }) => [key, fake.config()]))
      const context = yield* Layer.build(ProviderPorts.layer(ProviderPorts.onBridges(bridges)))
      const sender = Context.get(context, CustomerProviders.OtpSender)
      yield* sender.send({ phoneNumber: "+15551234567", code: "777777" })
      assert.deepStrictEqual(fake.received()[0]?.body, { phoneNumber: "+15551234567", code: "777777" })
    }),
  )
})
