/** The customers read model follows every Customer event; plus the OTP code and hash ports. */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import * as Customer from "../../src/customers/Customer.ts"
import { sandboxPersonalData } from "../../src/customers/CustomerProviderSandboxes.ts"
import * as CustomersProjection from "../../src/customers/CustomersProjection.ts"
import { CodeHasher, codePattern, OtpCodes } from "../../src/customers/OtpCodes.ts"
import type { BankAccountId, PartnerId, RegistrationId } from "../../src/kernel/Ids.ts"

const registrationId = "3b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a64" as RegistrationId
const partnerId = "1b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a61" as PartnerId
const who = { registrationId, partnerId }
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const later = DateTime.makeUnsafe("2026-03-01T11:00:00.000Z")
const tokenId = "6b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a66"
const account = (id: string, mask: string) => ({
  bankAccountId: id as BankAccountId,
  institutionId: "ins",
  name: "Checking",
  mask,
  type: "checking",
})

const envelope = (event: Customer.CustomerEvent, position: number): CustomersProjection.CustomerEnvelope =>
  ({
    streamType: "Customer",
    event,
    eventId: `00000000-0000-4000-8000-${position.toString().padStart(12, "0")}`,
    streamId: `Customer-${registrationId}`,
    streamVersion: position,
    globalPosition: position,
    recordedAt: at,
    metadata: {},
  }) as CustomersProjection.CustomerEnvelope

const project = (events: ReadonlyArray<Customer.CustomerEvent>) =>
  events.reduce<CustomersProjection.CustomerDocument | undefined>(
    (doc, event, i) => CustomersProjection.projection.apply(doc, envelope(event, i + 1)),
    undefined,
  )

describe("the customers read model", () => {
  it("follows registration, KYC, accounts, preferences, push tokens and cards", () => {
    const a = account("8b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a69", "1234")
    const b = account("8b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6a", "5678")
    const card = { id: "card_1", type: "card", brand: "visa", last4: "4242", expMonth: 12, expYear: 2030 }
    const doc = project([
      Customer.CustomerRegistered.make({ ...who, phoneNumber: "+14155550123", at }),
      Customer.KycStarted.make({ ...who, tokenId, expiration: later, at }),
      Customer.KycVerified.make({
        ...who,
        referenceId: tokenId,
        personalData: sandboxPersonalData("+14155550123"),
        at,
      }),
      Customer.BankAccountsLinked.make({ ...who, tokenId, accounts: [a, b], at }),
      Customer.BankAccountUnlinked.make({ ...who, bankAccountId: a.bankAccountId, at }),
      Customer.NotificationPreferencesUpdated.make({
        ...who,
        preferences: { ...Customer.defaultNotificationPreferences, newsEmail: true },
        at,
      }),
      Customer.PushTokenRegistered.make({ ...who, token: "t1", expireAt: later, at }),
      Customer.PushTokenRegistered.make({ ...who, token: "t2", expireAt: later, at }),
      Customer.PushTokenRemoved.make({ ...who, token: "t1", reason: "RemovedByCustomer", at }),
      Customer.CardPaymentMethodSaved.make({ ...who, method: card, at }),
      Customer.CardPaymentMethodSaved.make({ ...who, method: { ...card, expYear: 2031 }, at: later }),
    ])
    assert.isDefined(doc)
    if (doc === undefined) return
    assert.strictEqual(doc.kycStatus, "Verified")
    assert.strictEqual(doc.kycSession?.tokenId, tokenId)
    assert.strictEqual(doc.personalData?.ssnLastFourDigits, "6789")
    assert.deepStrictEqual(doc.bankAccounts, [b])
    assert.isTrue(doc.notificationPreferences.newsEmail)
    assert.deepStrictEqual(
      doc.pushTokens.map((t) => t.token),
      ["t2"],
    )
    assert.deepStrictEqual(doc.cardPaymentMethods, [{ ...card, expYear: 2031 }])
    assert.deepStrictEqual(CustomersProjection.projection.index(doc), {
      partnerId,
      // Index keys are stored in plain: never the phone number; the verification's reference (a donor's
      // verification id, Charity.ts) is the provider's id, not personal data.
      keys: { kycReferenceId: tokenId },
      sortKey: "2026-03-01T10:00:00.000Z",
    })
    assert.strictEqual(DateTime.formatIso(doc.updatedAt), "2026-03-01T11:00:00.000Z")
  })

  it("ignores events of a customer it never saw registered", () => {
    assert.isUndefined(project([Customer.KycStarted.make({ ...who, tokenId, expiration: later, at })]))
  })
})

describe("one-time codes and their hash", () => {
  it.effect("random codes are 6 digits", () =>
    Effect.gen(function* () {
      const codes = yield* OtpCodes
      for (let i = 0; i < 50; i++) assert.match(yield* codes.next, codePattern)
    }).pipe(Effect.provide(OtpCodes.layerRandom)),
  )
  it.effect("the hash is stable, hex, and differs by code, phone and partner", () =>
    Effect.gen(function* () {
      const hasher = yield* CodeHasher
      const base = { partnerId, phoneNumber: "+14155550123", code: "123456" }
      const h = yield* hasher.hash(base)
      assert.match(h, /^[0-9a-f]{64}$/)
      assert.strictEqual(yield* hasher.hash(base), h)
      assert.notStrictEqual(yield* hasher.hash({ ...base, code: "123457" }), h)
      assert.notStrictEqual(yield* hasher.hash({ ...base, phoneNumber: "+14155550124" }), h)
      assert.notStrictEqual(yield* hasher.hash({ ...base, partnerId: "other" }), h)
    }).pipe(Effect.provide(CodeHasher.layerTest)),
  )
})
