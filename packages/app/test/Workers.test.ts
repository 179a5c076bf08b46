/** The workers' pure rules: webhook signatures and retry schedule, sandbox verdicts, the sandbox partner id, log redaction. */
import { assert, describe, it } from "@effect/vitest"
import { Hmac } from "@partnerpay/secrets"
import { Effect, Redacted } from "effect"
import * as Logging from "../src/observability/Logging.ts"
import { sandboxPartnerId } from "../src/sandbox/Partners.ts"
import { outcomeFor } from "../src/sandbox/SandboxMoneyMovement.ts"
import { verdictFor } from "../src/workers/SandboxKyb.ts"
import {
  firstRetryMillis,
  giveUpAfterMillis,
  maxRetryMillis,
  retryDelayMillis,
  sign,
} from "../src/workers/WebhookDispatcher.ts"

describe("webhook delivery", () => {
  it("the signature is sha256=<hex HMAC-SHA256 of the exact body> with the partner's secret", () => {
    const body = JSON.stringify({ Live: false, Event: "COMPANY_VERIFICATION_STATUS_CHANGED", Data: { Status: "é" } })
    const expected = Hmac.sha256Hex("whsec", body)
    assert.strictEqual(sign(body, Redacted.make("whsec")), `sha256=${expected}`)
  })

  it("retries wait 5 s, 10 s, 20 s... (times a jitter in [0.5, 1)), never more than an hour", () => {
    assert.strictEqual(retryDelayMillis(1, 1), firstRetryMillis)
    assert.strictEqual(retryDelayMillis(1, 0), firstRetryMillis / 2)
    assert.strictEqual(retryDelayMillis(2, 1), 2 * firstRetryMillis)
    assert.strictEqual(retryDelayMillis(4, 1), 8 * firstRetryMillis)
    assert.strictEqual(retryDelayMillis(30, 1), maxRetryMillis)
    for (let attempt = 1; attempt < 100; attempt++) {
      const delay = retryDelayMillis(attempt)
      assert.isAtLeast(delay, Math.min(maxRetryMillis, firstRetryMillis * 2 ** (attempt - 1)) / 2)
      assert.isAtMost(delay, maxRetryMillis)
    }
  })

  it("retrying for 72 hours takes dozens of attempts, not thousands", () => {
    let elapsed = 0
    let attempts = 1
    while (elapsed + retryDelayMillis(attempts, 1) <= giveUpAfterMillis) {
      elapsed += retryDelayMillis(attempts, 1)
      attempts++
    }
    assert.isAbove(attempts, 60)
    assert.isBelow(attempts, 90)
  })
})

describe("sandbox magic values", () => {
  it('a company whose name contains "reject" (any case) is rejected, others verified', () => {
    assert.strictEqual(verdictFor("Please REJECT me"), "Rejected")
    assert.strictEqual(verdictFor("rejected goods ltd"), "Rejected")
    assert.strictEqual(verdictFor("Acme Coffee"), "Verified")
  })

  it("a debit of an amount ending in .13 fails (R01), .03 fails (R03), .10 is returned (R10); others settle", () => {
    assert.strictEqual(outcomeFor({ minorUnits: 1013, currency: "USD" }), "FailR01")
    assert.strictEqual(outcomeFor({ minorUnits: 13, currency: "EUR" }), "FailR01")
    assert.strictEqual(outcomeFor({ minorUnits: 1003, currency: "USD" }), "FailR03")
    assert.strictEqual(outcomeFor({ minorUnits: 2510, currency: "USD" }), "ReturnR10")
    assert.strictEqual(outcomeFor({ minorUnits: 1300, currency: "USD" }), "Settle")
    assert.strictEqual(outcomeFor({ minorUnits: 113, currency: "JPY" }), "Settle")
  })

  it("the sandbox partner's id is a stable v4-shaped UUID derived from its ClientId", () => {
    const id = sandboxPartnerId("sandbox-client")
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    assert.strictEqual(sandboxPartnerId("sandbox-client"), id)
    assert.notStrictEqual(sandboxPartnerId("other-client"), id)
  })
})

describe("logs", () => {
  it.effect("are JSON lines at the configured level, with Redacted values hidden", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      yield* Effect.logInfo("partner authenticated", { clientSecret: Redacted.make("s3cr3t-value") }).pipe(
        Effect.andThen(Effect.logDebug("not shown at Info")),
        Effect.annotateLogs({ requestId: "r-1", token: Redacted.make("eyJ.token.value") }),
        Effect.provide(Logging.layer("Info", (line) => lines.push(line))),
      )
      assert.strictEqual(lines.length, 1)
      const line = JSON.parse(lines[0]!) as { level: string; annotations: Record<string, unknown> }
      assert.strictEqual(line.level, "INFO")
      assert.strictEqual(line.annotations.requestId, "r-1")
      assert.notInclude(lines[0]!, "s3cr3t-value")
      assert.notInclude(lines[0]!, "eyJ.token.value")
    }),
  )
})
