/**
 * The partner's webhook endpoint in memory (`WebhookLog.layerMemory`): which event types an endpoint gets
 * (`isSubscribed`), and a setting that rolls the signing secret (the replaced one valid for the grace period).
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer, Redacted } from "effect"
import { Outbox } from "../../src/infrastructure/Outbox.ts"
import * as WebhookLog from "../../src/infrastructure/WebhookLog.ts"

describe("an endpoint's subscribed event types", () => {
  it("null or none: every type is delivered", () => {
    assert.isTrue(WebhookLog.isSubscribed(null, "PAYOUT_STATUS_CHANGED"))
    assert.isTrue(WebhookLog.isSubscribed(undefined, "PAYOUT_STATUS_CHANGED"))
  })

  it("a list: only its types are delivered", () => {
    assert.isTrue(WebhookLog.isSubscribed(["PAYOUT_STATUS_CHANGED"], "PAYOUT_STATUS_CHANGED"))
    assert.isFalse(WebhookLog.isSubscribed(["PAYOUT_STATUS_CHANGED"], "REFUND_STATUS_CHANGED"))
    assert.isFalse(WebhookLog.isSubscribed([], "REFUND_STATUS_CHANGED"))
  })
})

describe("a partner setting its endpoint (in memory)", () => {
  it.effect("gets a new secret each time; the replaced one is valid for the grace period", () =>
    Effect.gen(function* () {
      const log = yield* WebhookLog.WebhookLog
      const first = (yield* log.setEndpoint("p1", { url: "https://example.com/h", eventTypes: null }))!
      assert.isNull(first.previousSecretExpiresAt)
      const second = (yield* log.setEndpoint("p1", { url: "https://example.com/h", eventTypes: ["X"] }))!
      assert.notStrictEqual(Redacted.value(second.signingSecret), Redacted.value(first.signingSecret))
      const now = yield* DateTime.now
      assert.strictEqual(
        DateTime.toEpochMillis(second.previousSecretExpiresAt!) - DateTime.toEpochMillis(now),
        WebhookLog.previousSecretGraceMillis,
      )
      assert.deepStrictEqual((yield* log.endpoint("p1"))!.eventTypes, ["X"])
      assert.isUndefined(yield* log.endpoint("p2"))
    }).pipe(Effect.provide(WebhookLog.WebhookLog.layerMemory.pipe(Layer.provide(Outbox.layerMemory)))),
  )
})
