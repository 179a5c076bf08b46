/**
 * The card processor's notifications (POST /providers/card-processor/notifications,
 * production, signed with the CARD_PROCESSOR bridge's secret): a dispute of a
 * company's card payment opened (its amount and fee out of the balance at
 * once), then won (back); a card refund's later outcome; unsigned, stale,
 * malformed and unknown ones refused.
 */
import { assert, describe, it } from "@effect/vitest"
import { CardRefundPayments, Payouts } from "@partnerpay/domain"
import { Effect, Redacted } from "effect"
import * as CardProcessorCallbacks from "../src/http/CardProcessorCallbacks.ts"
import * as HttpBridge from "../src/providers/HttpBridge.ts"
import { partnerId, terminalCardPayment, webHandler } from "./cardPaymentWorld.ts"

const bridge: HttpBridge.BridgeConfig = {
  url: "https://bridge.example.com",
  secret: Redacted.make("card-processor-bridge-secret-of-32-characters"),
  timeoutMillis: 1000,
  retries: 0,
}

describe("the card processor's notifications (POST /providers/card-processor/notifications)", () => {
  it.live(
    "a signed dispute takes the money and fee at once and gives them back when won; a refund's outcome is recorded; forged, stale, malformed or unknown ones are refused",
    () =>
      Effect.gen(function* () {
        const { context, companyId, cardPaymentId } = yield* terminalCardPayment("cards-1")
        const app = yield* webHandler(CardProcessorCallbacks.routes(bridge), context)
        const post = (body: unknown, options: { readonly secret?: string; readonly ageSeconds?: number } = {}) => {
          const text = JSON.stringify(body)
          const timestamp = String(Math.floor(Date.now() / 1000) - (options.ageSeconds ?? 0))
          const signature = HttpBridge.signature(
            options.secret === undefined ? bridge.secret : Redacted.make(options.secret),
            timestamp,
            text,
          )
          return Effect.promise(() =>
            app.handler(
              new Request(`http://partnerpay.test${CardProcessorCallbacks.path}`, {
                method: "POST",
                headers: {
                  "content-type": "application/json",
                  "x-partnerpay-timestamp": timestamp,
                  "x-partnerpay-signature": signature,
                },
                body: text,
              }),
            ),
          )
        }
        const total = Effect.provide(
          Effect.map(
            Payouts.balance(partnerId, companyId, "USD"),
            (b) => b.available.minorUnits + b.pending.minorUnits,
          ),
          context,
        )
        const opened = {
          kind: "DisputeOpened",
          disputeId: "dp_1MtJUT2eZvKYlo2CNaw2HvEv",
          cardPaymentId,
          fee: { minorUnits: 1500, currency: "USD" },
          reason: "fraudulent",
          status: "NeedsResponse",
        }
        assert.strictEqual((yield* post(opened, { secret: "another-secret-of-at-least-32-characters" })).status, 401)
        assert.strictEqual((yield* post(opened, { ageSeconds: 600 })).status, 401)
        assert.strictEqual((yield* post({ ...opened, extra: 1 })).status, 400)
        assert.strictEqual(
          (yield* post({ ...opened, paymentRequestId: "6c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e99" })).status,
          400,
        )
        assert.strictEqual(
          (yield* post({ ...opened, cardPaymentId: "6c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e99" })).status,
          404,
        )
        assert.strictEqual((yield* post({ ...opened, amount: { minorUnits: 4001, currency: "USD" } })).status, 422)
        assert.strictEqual(yield* total, 4000)

        assert.strictEqual((yield* post(opened)).status, 204)
        assert.strictEqual((yield* post(opened)).status, 204)
        assert.strictEqual(yield* total, 4000 - 4000 - 1500)
        const closed = { kind: "DisputeClosed", disputeId: opened.disputeId, outcome: "Won" }
        assert.strictEqual((yield* post(closed)).status, 204)
        assert.strictEqual(yield* total, 4000)
        assert.strictEqual((yield* post({ ...closed, outcome: "Lost" })).status, 409)
        assert.strictEqual((yield* post({ ...closed, disputeId: "dp_unknown" })).status, 404)

        // A card refund the processor completed at once: its answer repeated changes nothing, a contrary
        // one is refused, an unknown refund is 404.
        const refunded = yield* Effect.provide(
          CardRefundPayments.refund({ partnerId, id: cardPaymentId, amount: { value: 10, currencyCode: "USD" } }),
          context,
        )
        assert.strictEqual(refunded.status, "Completed")
        const outcome = { kind: "RefundOutcome", cardPaymentId, refundId: refunded.refundId, status: "Completed" }
        assert.strictEqual((yield* post(outcome)).status, 204)
        assert.strictEqual((yield* post({ ...outcome, status: "Failed", reason: "expired_card" })).status, 409)
        assert.strictEqual((yield* post({ ...outcome, refundId: "7c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e63" })).status, 404)
        assert.strictEqual(yield* total, 4000 - 1000)
      }).pipe(Effect.scoped),
    60_000,
  )
})
