/**
 * Dwolla's webhooks as Dwolla signs them: the hex HMAC-SHA256 of the exact
 * body with the subscription's secret (`signatureOf`, on the one HMAC of
 * `@partnerpay/secrets`), compared in constant time; what each topic asks of
 * partnerpay.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as DwollaWebhooks from "../../src/providers/DwollaWebhooks.ts"

const secret = Redacted.make("a-dwolla-webhook-secret")
const body = JSON.stringify({ id: "event-1", resourceId: "customer-1", topic: "customer_verified" })
const signed = DwollaWebhooks.signatureOf(secret, body)

describe("a Dwolla webhook's signature", () => {
  it("is accepted when it is the body's HMAC-SHA256 with the subscription's secret (any hex case)", () => {
    assert.isTrue(DwollaWebhooks.isSigned(secret, signed, body))
    assert.isTrue(DwollaWebhooks.isSigned(secret, signed.toUpperCase(), body))
  })

  it("is refused when missing, malformed, made with another secret, or the body was altered", () => {
    assert.isFalse(DwollaWebhooks.isSigned(secret, undefined, body))
    assert.isFalse(DwollaWebhooks.isSigned(secret, "", body))
    assert.isFalse(DwollaWebhooks.isSigned(secret, `${signed}00`, body))
    assert.isFalse(DwollaWebhooks.isSigned(secret, `sha256=${signed}`, body))
    assert.isFalse(DwollaWebhooks.isSigned(Redacted.make("another-secret"), signed, body))
    assert.isFalse(DwollaWebhooks.isSigned(secret, signed, body.replace("customer-1", "customer-2")))
  })
})

describe("a Dwolla webhook's signature during a secret roll", () => {
  const previous = Redacted.make("the-replaced-secret")
  const byPrevious = DwollaWebhooks.signatureOf(previous, body)
  it("is accepted when made with the current or the replaced subscription's secret", () => {
    assert.isTrue(DwollaWebhooks.isSignedByAny([secret, previous], signed, body))
    assert.isTrue(DwollaWebhooks.isSignedByAny([secret, previous], byPrevious, body))
  })
  it("is refused when made with any other secret, or with the replaced one once it is unset", () => {
    const other = DwollaWebhooks.signatureOf(Redacted.make("another-secret"), body)
    assert.isFalse(DwollaWebhooks.isSignedByAny([secret, previous], other, body))
    assert.isFalse(DwollaWebhooks.isSignedByAny([secret, undefined], byPrevious, body))
    assert.isFalse(DwollaWebhooks.isSignedByAny([secret, previous], undefined, body))
  })
})

describe("a verified Dwolla event", () => {
  it.effect("decodes its id, resource and topic, Dwolla's other fields ignored", () =>
    Effect.gen(function* () {
      const event = yield* DwollaWebhooks.decodeEvent(
        JSON.stringify({ id: "e", resourceId: "r", topic: "t", _links: {}, created: "2026-11-26T00:00:00Z" }),
      )
      assert.deepStrictEqual(event, { id: "e", resourceId: "r", topic: "t" })
      const missing = yield* Effect.flip(DwollaWebhooks.decodeEvent(JSON.stringify({ id: "e", topic: "t" })))
      assert.include(String(missing), "resourceId")
    }),
  )

  it("asks: a customer's verdict, a transfer's outcome, the operator's attention, or nothing", () => {
    const action = (topic: string) => DwollaWebhooks.actionOf({ id: "e", resourceId: "r", topic })
    assert.deepStrictEqual(action("customer_verified"), { _tag: "KybVerdict", customerId: "r", outcome: "Verified" })
    // A suspension: the domain makes a Verified company Suspended, one not verified yet Rejected.
    for (const topic of ["customer_suspended", "customer_deactivated"])
      assert.deepStrictEqual(action(topic), { _tag: "KybVerdict", customerId: "r", outcome: "Suspended" })
    assert.deepStrictEqual(action("customer_reactivated"), { _tag: "KybVerdict", customerId: "r", outcome: "Verified" })
    for (const [topic, outcome] of [
      ["customer_transfer_completed", "Settled"],
      ["transfer_completed", "Settled"],
      ["customer_transfer_failed", "Failed"],
      ["transfer_failed", "Failed"],
      ["customer_transfer_cancelled", "Cancelled"],
    ] as const)
      assert.deepStrictEqual(action(topic), { _tag: "TransferOutcome", transferId: "r", outcome })
    for (const [topic, requirement] of [
      ["customer_reverification_needed", "RetryRequired"],
      ["customer_verification_document_needed", "DocumentRequired"],
      ["customer_verification_document_failed", "DocumentRequired"],
    ] as const)
      assert.deepStrictEqual(action(topic), { _tag: "KybRequirement", customerId: "r", requirement })
    for (const topic of ["customer_bank_transfer_completed", "customer_created"])
      assert.deepStrictEqual(action(topic), { _tag: "None" })
  })
})
