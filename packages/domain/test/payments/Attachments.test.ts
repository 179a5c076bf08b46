/** The attachment rules: kept content types, retry schedule and attempts, the addresses production may fetch. */
import { assert, describe, it } from "@effect/vitest"
import { Attachments } from "../../src/index.ts"

describe("a downloaded document", () => {
  it("is kept only as PDF, PNG or JPEG, whatever the header's case and parameters", () => {
    assert.strictEqual(Attachments.acceptedContentType("Application/PDF; charset=binary"), "application/pdf")
    assert.strictEqual(Attachments.acceptedContentType("image/png"), "image/png")
    assert.strictEqual(Attachments.acceptedContentType("image/jpeg"), "image/jpeg")
    assert.isUndefined(Attachments.acceptedContentType("text/html"))
    assert.isUndefined(Attachments.acceptedContentType("image/gif"))
    assert.isUndefined(Attachments.acceptedContentType(undefined))
  })
})

describe("a failed download", () => {
  const now = 1_000_000
  it("is retried with doubling delays until the last attempt, then Failed", () => {
    assert.deepStrictEqual(Attachments.afterFailure({ reason: "x", permanent: false }, 1, now), {
      _tag: "Retry",
      nextAttemptAtMillis: now + 30_000,
    })
    assert.deepStrictEqual(Attachments.afterFailure({ reason: "x", permanent: false }, 3, now), {
      _tag: "Retry",
      nextAttemptAtMillis: now + 120_000,
    })
    assert.deepStrictEqual(Attachments.afterFailure({ reason: "x", permanent: false }, Attachments.maxAttempts, now), {
      _tag: "Failed",
    })
    assert.strictEqual(Attachments.retryDelayMillis(30), Attachments.maxRetryDelayMillis)
  })
  it("is Failed at once when retrying cannot help", () => {
    assert.deepStrictEqual(Attachments.afterFailure({ reason: "text/html", permanent: true }, 1, now), {
      _tag: "Failed",
    })
  })
})

describe("the addresses fetched", () => {
  it("in production are public ones only", () => {
    for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:93.184.216.34"])
      assert.isTrue(Attachments.isPublicAddress(address), address)
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "::1",
      "::",
      "fe80::1",
      "fd00::1",
      "::ffff:127.0.0.1",
      "::ffff:169.254.169.254",
      "localhost",
    ])
      assert.isFalse(Attachments.isPublicAddress(address), address)
    assert.isFalse(Attachments.mayConnect("127.0.0.1", false))
    assert.deepStrictEqual(Attachments.allowedSchemes(false), ["https:"])
  })
  it("in the sandbox include local ones, over http too", () => {
    assert.isTrue(Attachments.mayConnect("127.0.0.1", true))
    assert.deepStrictEqual(Attachments.allowedSchemes(true), ["https:", "http:"])
  })
})
