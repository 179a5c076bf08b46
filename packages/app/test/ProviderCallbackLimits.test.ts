/**
 * The providers' callback routes the service serves are the ones the
 * rate limiter gives their own class (`CrossCutting.providerCallbackPaths`):
 * Plaid's item webhooks, Dwolla's webhooks and the money-movement bridge's
 * notifications are never limited as anonymous callers.
 */
import { assert, describe, it } from "@effect/vitest"
import { CrossCutting } from "@partnerpay/adapters-http"
import * as DwollaCallbacks from "../src/http/DwollaCallbacks.ts"
import * as MoneyMovementCallbacks from "../src/http/MoneyMovementCallbacks.ts"

describe("the providers' callback routes", () => {
  it("each have their provider's rate-limit class", () => {
    assert.strictEqual(CrossCutting.providerCallbackPaths[DwollaCallbacks.path], "dwolla")
    assert.strictEqual(CrossCutting.providerCallbackPaths[MoneyMovementCallbacks.path], "money-movement")
    assert.strictEqual(CrossCutting.providerCallbackPaths["/BankLinkWebhook/UpdateItem"], "plaid")
  })
})
