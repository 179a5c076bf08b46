/**
 * The workers' batch entry points: `Companies.completeKybBatch` and
 * `Payments.settleBatch` apply each item by the single-item rule, in one unit
 * of work, and report an item that is refused as Skipped without failing the
 * others.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as Companies from "../../src/companies/Companies.ts"
import * as EventPipeline from "../../src/composition/EventPipeline.ts"
import { IdGenerator } from "../../src/infrastructure/IdGenerator.ts"
import { MemoryOutbox } from "../../src/infrastructure/Outbox.ts"
import { UnitOfWork } from "../../src/infrastructure/UnitOfWork.ts"
import type { BankAccountId, CompanyId, PartnerId, RegistrationId, TransferId } from "../../src/kernel/Ids.ts"
import * as Payments from "../../src/payments/Payments.ts"
import * as Transfers from "../../src/payments/Transfers.ts"
import { Fixtures } from "../../src/testing/index.ts"

const partnerId = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b" as PartnerId
const payer = "7e57ab1e-0000-4000-8000-00000000c0de" as RegistrationId
const checking = "8b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a69" as BankAccountId
const unknownTransfer = "9f9f9f9f-0000-4000-8000-000000000000" as TransferId

const layer = () =>
  Layer.mergeAll(
    EventPipeline.layerMemory(),
    UnitOfWork.layerMemory,
    IdGenerator.layerRandom,
    Transfers.eSignatureSandbox,
  )

const march2026 = TestClock.setTime(Date.parse("2026-03-01T10:00:00.000Z"))

const company = (companyReferenceId: string) =>
  Effect.map(
    Companies.register(partnerId, {
      companyReferenceId,
      name: "Acme Coffee",
      emailAddress: "hello@acme.example.com",
      taxId: "12-3456789",
      taxIdType: "EIN",
      streetNumberAndName: "100 Main St",
      zipCode: "94105",
      city: "San Francisco",
      state: "CA",
      contactNumber: "+14155550199",
      companyType: "ForProfit",
      owner: {
        name: "Ada Lovelace",
        emailAddress: "ada@acme.example.com",
        contactNumber: "(415) 555-0100",
        title: "CEO",
        documentNumber: "D7654321",
        documentType: "DriversLicense",
        ssn: "987-65-4321",
        dateOfBirth: "1980-12-10",
        streetNumberAndName: "1 Analytical Way",
        zipCode: "94105-1234",
        city: "San Francisco",
        state: "CA",
      },
      employees: [],
      locations: [],
    }),
    (r) => r.companyId as CompanyId,
  )

/** A company whose KYB completed Verified: only a Verified company collects. */
const verifiedCompany = (companyReferenceId: string) =>
  company(companyReferenceId).pipe(Effect.tap(Fixtures.verifyCompany))

/** A verified payer with the checking account ****6789 linked. */
const customer = Fixtures.registerVerifiedCustomer(partnerId, payer, checking)

/** An accepted payment request to `companyId`: its id and its transfer's. */
const acceptedRequest = (companyId: CompanyId) => Fixtures.acceptedPaymentRequest(partnerId, companyId, payer, checking)

describe("a batch of KYB verdicts", () => {
  it.effect("records each verdict like completeKyb; a refused one is skipped, the others recorded", () =>
    Effect.gen(function* () {
      yield* march2026
      const [a, b, c] = [yield* company("a-1"), yield* company("b-1"), yield* company("c-1")]
      yield* Companies.completeKyb(b, "Rejected", "tax id mismatch")
      const results = yield* Companies.completeKybBatch([
        { companyId: a, outcome: "Verified" },
        { companyId: b, outcome: "Verified" },
        { companyId: c, outcome: "Rejected", reason: "sandbox" },
      ])
      assert.deepStrictEqual(results, [
        { _tag: "Recorded", companyId: a, changed: true },
        { _tag: "Skipped", companyId: b, error: "IllegalTransition" },
        { _tag: "Recorded", companyId: c, changed: true },
      ])
      const statuses = yield* Effect.forEach([a, b, c], (companyId) =>
        Effect.map(Companies.status(partnerId, { companyId }), (s) => s.Status),
      )
      assert.deepStrictEqual(statuses, ["Verified", "Rejected", "Rejected"])
      const { recorded } = yield* MemoryOutbox
      assert.deepStrictEqual(
        recorded.map((n) => [n.data.CompanyId, n.data.Status]),
        [
          [b, "Rejected"],
          [a, "Verified"],
          [c, "Rejected"],
        ],
      )
      // A repeat changes nothing and notifies nothing.
      const again = yield* Companies.completeKybBatch([{ companyId: a, outcome: "Verified" }])
      assert.deepStrictEqual(again, [{ _tag: "Recorded", companyId: a, changed: false }])
      assert.strictEqual(recorded.length, 3)
    }).pipe(Effect.provide(layer())),
  )
})

describe("a batch of settlement outcomes", () => {
  it.effect("settles or fails each transfer with the request it pays; an unknown transfer is skipped", () =>
    Effect.gen(function* () {
      yield* march2026
      const companyId = yield* verifiedCompany("acme-001")
      yield* customer
      const first = yield* acceptedRequest(companyId)
      const second = yield* acceptedRequest(companyId)
      yield* TestClock.adjust("1 day")
      const results = yield* Payments.settleBatch([
        { _tag: "Settle", transferId: first.transferId },
        { _tag: "Settle", transferId: unknownTransfer },
        { _tag: "Fail", transferId: second.transferId, returnCode: "R01", reason: "insufficient funds" },
      ])
      assert.deepStrictEqual(
        results.map((r) => [r._tag, r.transferId]),
        [
          ["Applied", first.transferId],
          ["Skipped", unknownTransfer],
          ["Applied", second.transferId],
        ],
      )
      const firstDoc = yield* Payments.get(partnerId, first.paymentRequestId)
      const secondDoc = yield* Payments.get(partnerId, second.paymentRequestId)
      assert.deepStrictEqual([firstDoc.status, secondDoc.status, secondDoc.returnCode], ["Paid", "Failed", "R01"])
      // A repeat changes nothing.
      const { recorded } = yield* MemoryOutbox
      const before = recorded.length
      yield* Payments.settleBatch([{ _tag: "Settle", transferId: first.transferId }])
      assert.strictEqual(recorded.length, before)
    }).pipe(Effect.provide(layer())),
  )
})
