/**
 * The attachment rules: kept content types, retry schedule and attempts, the addresses production may fetch,
 * and who may read a payment request's stored document.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as EventPipeline from "../../src/composition/EventPipeline.ts"
import { Attachments, type CalendarDate, IdGenerator, Payments, UnitOfWork } from "../../src/index.ts"
import { NotFound } from "../../src/kernel/DomainError.ts"
import type { CompanyId, PartnerId, RegistrationId } from "../../src/kernel/Ids.ts"
import { Fixtures } from "../../src/testing/index.ts"

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

describe("a payment request's stored document", () => {
  const partnerId = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b" as PartnerId
  const otherPartnerId = "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f" as PartnerId
  const companyId = "5d1e7a3c-2b4f-4c8d-9e6a-7f0b1c2d3e4f" as CompanyId
  const payer = "7e57ab1e-0000-4000-8000-00000000c0de" as RegistrationId
  const otherCustomer = "7e57ab1e-0000-4000-8000-00000000beef" as RegistrationId
  const pdf = new Uint8Array([0x25, 0x50, 0x44, 0x46])
  const layer = () =>
    Layer.mergeAll(
      EventPipeline.layerMemory(),
      UnitOfWork.UnitOfWork.layerMemory,
      IdGenerator.IdGenerator.layerRandom,
      Attachments.PaymentAttachments.layerMemory,
    )

  /** A request of `partnerId` to `payer` whose document was downloaded; its id and the document's. */
  const stored = Effect.gen(function* () {
    yield* TestClock.setTime(Date.parse("2026-03-01T10:00:00.000Z"))
    yield* Fixtures.registerVerifiedCompany(partnerId, companyId, "Acme Coffee")
    yield* Fixtures.registerCustomer(partnerId, payer)
    yield* Fixtures.registerCustomer(partnerId, otherCustomer, "+14155550199")
    const { paymentRequestId } = yield* Payments.create({
      partnerId,
      companyId,
      payerRegistrationId: payer,
      amount: { value: 10, currencyCode: "USD" },
      description: "Invoice 7",
      dueDate: "2026-03-15" as CalendarDate.CalendarDate,
      attachmentUrl: "https://files.example.com/invoice-7.pdf",
    })
    const [document] = yield* Attachments.forRequest({
      partnerId,
      paymentRequestId,
      attachmentUrl: "https://files.example.com/invoice-7.pdf",
    })
    const store = yield* Attachments.PaymentAttachments
    yield* store.recordStored(document!.id, { contentType: "application/pdf", bytes: pdf, sha256: "x" })
    return { paymentRequestId, attachmentId: document!.id }
  })

  it.effect("is read by the request's partner and by its payer", () =>
    Effect.gen(function* () {
      const { paymentRequestId, attachmentId } = yield* stored
      const byPartner = yield* Attachments.content({ _tag: "Partner", partnerId }, paymentRequestId, attachmentId)
      const byPayer = yield* Attachments.content(
        { _tag: "Customer", partnerId, registrationId: payer },
        paymentRequestId,
        attachmentId,
      )
      assert.deepStrictEqual(byPartner, { contentType: "application/pdf", bytes: pdf })
      assert.deepStrictEqual(byPayer, byPartner)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("is NotFound for another customer, exactly like a missing document", () =>
    Effect.gen(function* () {
      const { paymentRequestId, attachmentId } = yield* stored
      const other = { _tag: "Customer", partnerId, registrationId: otherCustomer } as const
      const notTheirs = yield* Effect.flip(Attachments.content(other, paymentRequestId, attachmentId))
      const missing = yield* Effect.flip(
        Attachments.content({ _tag: "Partner", partnerId }, paymentRequestId, "00000000-0000-4000-8000-0000000000ff"),
      )
      assert.deepStrictEqual(notTheirs, new NotFound({ entity: "Attachment" }))
      assert.deepStrictEqual(missing, notTheirs)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("is NotFound (PaymentRequest) for another partner", () =>
    Effect.gen(function* () {
      const { paymentRequestId, attachmentId } = yield* stored
      const error = yield* Effect.flip(
        Attachments.content({ _tag: "Partner", partnerId: otherPartnerId }, paymentRequestId, attachmentId),
      )
      assert.deepStrictEqual(error, new NotFound({ entity: "PaymentRequest" }))
    }).pipe(Effect.provide(layer())),
  )
})
