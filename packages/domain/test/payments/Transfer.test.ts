/**
 * Executable specification of the Transfer aggregate: initiation (with the
 * invoice of the request it pays), settlement
 * or failure, refunds (never above the amount), reimbursement (never together
 * with a refund) and the account number masking rule.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Schema } from "effect"
import fc from "fast-check"
import { fold } from "../../src/kernel/Decider.ts"
import type { CompanyId, PartnerId, PaymentRequestId, RegistrationId, TransferId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as Transfer from "../../src/payments/Transfer.ts"
import {
  MaskedAccountNumber,
  type RefundId,
  type ReimbursementProviderId,
  TransferFailed,
  TransferInitiated,
  TransferRefunded,
  TransferReimbursed,
  TransferReimbursementApplied,
  TransferSettled,
} from "../../src/payments/TransferEvents.ts"
import { DeciderSpecification } from "../../src/testing/index.ts"

const spec = DeciderSpecification.forAggregate(Transfer.aggregate)

const transferId = "6c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e50" as TransferId
const paymentRequestId = "6c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e51" as PaymentRequestId
const partnerId = "6c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e52" as PartnerId
const companyId = "6c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e53" as CompanyId
const payerRegistrationId = "6c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e54" as RegistrationId
const refundIds = [0, 1, 2, 3].map((n) => `7c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e6${n}` as RefundId)
const [refund1, refund2] = refundIds as [RefundId, RefundId]
const providerIds = [0, 1].map((n) => `8c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e7${n}` as ReimbursementProviderId)
const [provider, otherProvider] = providerIds as [ReimbursementProviderId, ReimbursementProviderId]
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const later = DateTime.makeUnsafe("2026-03-03T10:00:00.000Z")
const signingUrl = "https://sign.example.com/envelopes/abc123"

const usd = (minorUnits: number) => Money.make(minorUnits, "USD")
const amount = usd(10_000)

const address = {
  streetNumberAndName: "12 Main Street",
  apartmentNumber: "",
  city: "Springfield",
  zipCode: "62701",
  state: "IL",
  country: "US",
}

const initiate: Transfer.InitiateTransfer = {
  _tag: "InitiateTransfer",
  transferId,
  paymentRequestId,
  payerRegistrationId,
  partnerId,
  companyId,
  parties: { companyStatus: "Verified", payerKyc: "Verified" },
  amount,
  senderName: "Jane Payer",
  recipientName: "Acme Dental",
  senderAccountMasked: Transfer.maskAccountNumber("000123456789"),
  recipientAccountMasked: "****4321",
  recipientAddress: address,
  attachments: [{ id: "att-1", name: "invoice.pdf", contentType: "application/pdf" }],
  description: "Invoice 42",
  at,
}

const initiated = TransferInitiated.make({
  transferId,
  paymentRequestId,
  payerRegistrationId,
  partnerId,
  companyId,
  amount,
  senderName: "Jane Payer",
  recipientName: "Acme Dental",
  senderAccountMasked: "****6789",
  recipientAccountMasked: "****4321",
  recipientAddress: address,
  attachments: [{ id: "att-1", name: "invoice.pdf", contentType: "application/pdf" }],
  description: "Invoice 42",
  status: "Pending",
  at,
})
const settled = TransferSettled.make({ transferId, status: "Settled", at: later })
const failed = TransferFailed.make({
  transferId,
  returnCode: "R01",
  reason: "insufficient funds",
  status: "Failed",
  at,
})
const refunded = (refundId: RefundId, minorUnits: number, total: number) =>
  TransferRefunded.make({
    transferId,
    refundId,
    amount: usd(minorUnits),
    totalRefunded: usd(total),
    isRefunded: total === amount.minorUnits,
    at: later,
  })
const applied = TransferReimbursementApplied.make({ transferId, providerId: provider, signingUrl, at: later })
const reimbursed = TransferReimbursed.make({ transferId, providerId: provider, at: later })

const settle: Transfer.SettleTransfer = { _tag: "SettleTransfer", transferId, at: later }
const fail = (returnCode = "R01"): Transfer.FailTransfer => ({
  _tag: "FailTransfer",
  transferId,
  returnCode,
  reason: "insufficient funds",
  at,
})
const refund = (refundId: RefundId, minorUnits: number): Transfer.RefundTransfer => ({
  _tag: "RefundTransfer",
  transferId,
  refundId,
  amount: usd(minorUnits),
  at: later,
})
const apply = (providerId = provider, url = signingUrl): Transfer.ApplyForReimbursement => ({
  _tag: "ApplyForReimbursement",
  transferId,
  providerId,
  signingUrl: url,
  at: later,
})
const complete: Transfer.CompleteReimbursement = { _tag: "CompleteReimbursement", transferId, at: later }

describe("no transfer yet", () => {
  it("no transfer leaves a payer whose KYC is not Verified (CUSTOMER_NOT_VERIFIED)", () => {
    for (const payerKyc of ["NotStarted", "Pending", "Rejected"] as const)
      spec
        .given([])
        .when({ ...initiate, parties: { companyStatus: "Verified", payerKyc } })
        .thenFails({ _tag: "RuleViolated", code: "CUSTOMER_NOT_VERIFIED" })
  })
  it("no transfer reaches a company whose KYB is not Verified", () => {
    spec
      .given([])
      .when({ ...initiate, parties: { companyStatus: "Unverified", payerKyc: "Verified" } })
      .thenFails({ _tag: "RuleViolated", code: "COMPANY_NOT_VERIFIED" })
    spec
      .given([])
      .when({ ...initiate, parties: { companyStatus: "Rejected", payerKyc: "Verified" } })
      .thenFails({ _tag: "RuleViolated", code: "COMPANY_REJECTED" })
  })
  it("initiate records a Pending transfer with masked account numbers only", () => {
    spec.given([]).when(initiate).then([initiated])
    spec
      .given([])
      .when(initiate)
      .thenState((state) => assert.strictEqual(Transfer.summary(state)?.status, "Pending"))
  })
  it("initiate without a payment request (e.g. a charity transfer) is allowed", () => {
    const { paymentRequestId: _ignored, ...withoutRequest } = initiate
    const { paymentRequestId: _alsoIgnored, ...expected } = initiated
    spec
      .given([])
      .when(withoutRequest)
      .then([TransferInitiated.make(expected)])
  })
  it("initiate records the invoice of the request it pays, as the request stated it", () => {
    const invoice = {
      invoiceNumber: "INV-42",
      lineItems: [{ description: "Cleaning", quantity: 2, unitAmount: usd(5_000) }],
    }
    spec
      .given([])
      .when({ ...initiate, invoice })
      .then([TransferInitiated.make({ ...initiated, invoice })])
  })
  it("initiate refuses a full account number and every other bad field, naming each", () => {
    spec
      .given([])
      .when({
        ...initiate,
        amount: usd(0),
        senderName: " ",
        senderAccountMasked: "000123456789",
        recipientAccountMasked: "4321",
        recipientAddress: { ...address, city: "" },
        attachments: [{ id: "att-1", name: "", contentType: "pdf" }],
        description: "",
      })
      .thenFails({
        _tag: "ValidationFailed",
        issues: [
          { field: "amount", message: "must be greater than zero" },
          { field: "senderName", message: "must not be empty" },
          {
            field: "senderAccount",
            message: 'must be a masked account number such as "****6789" (never the full number)',
          },
          {
            field: "recipientAccount",
            message: 'must be a masked account number such as "****6789" (never the full number)',
          },
          { field: "recipientAddress.city", message: "must not be empty" },
          { field: "attachments[0].name", message: "must not be empty" },
          { field: "attachments[0].contentType", message: 'must be a media type such as "application/pdf"' },
          { field: "description", message: "must not be empty" },
        ],
      })
  })
  it("every other command is refused as NotFound", () => {
    for (const command of [settle, fail(), refund(refund1, 1), apply(), complete])
      spec.given([]).when(command).thenFails({ _tag: "NotFound", entity: "Transfer" })
  })
})

describe("a Pending transfer", () => {
  it("initiating it again is refused as AlreadyExists", () => {
    spec.given([initiated]).when(initiate).thenFails({ _tag: "AlreadyExists", entity: "Transfer" })
  })
  it("settle moves it to Settled", () => {
    spec.given([initiated]).when(settle).then([settled])
  })
  it("fail moves it to Failed with the return code", () => {
    spec.given([initiated]).when(fail()).then([failed])
  })
  it("fail refuses a malformed return code", () => {
    spec
      .given([initiated])
      .when(fail("r 01"))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "returnCode", message: 'must be 2 to 8 upper-case letters or digits, such as "R01"' }],
      })
  })
  it("refund and reimbursement are refused until it settles", () => {
    spec.given([initiated]).when(refund(refund1, 1)).thenFails({ _tag: "IllegalTransition", state: "Pending" })
    spec.given([initiated]).when(apply()).thenFails({ _tag: "IllegalTransition", state: "Pending" })
    spec.given([initiated]).when(complete).thenFails({ _tag: "IllegalTransition", state: "Pending" })
  })
})

describe("a Settled transfer", () => {
  it("settling it again changes nothing", () => {
    spec.given([initiated, settled]).when(settle).thenNothingHappens()
  })
  it("fail is refused: money already moved", () => {
    spec.given([initiated, settled]).when(fail()).thenFails({ _tag: "IllegalTransition", state: "Settled" })
  })
  it("a partial refund is recorded; the transfer is not yet refunded", () => {
    spec
      .given([initiated, settled])
      .when(refund(refund1, 4_000))
      .then([refunded(refund1, 4_000, 4_000)])
    spec
      .given([initiated, settled])
      .when(refund(refund1, 4_000))
      .thenState((state) => {
        const summary = Transfer.summary(state)
        assert.isFalse(summary?.isRefunded)
        assert.deepStrictEqual(summary?.refundedAmount, usd(4_000))
      })
  })
  it("refunds reaching the amount make it refunded", () => {
    spec
      .given([initiated, settled, refunded(refund1, 4_000, 4_000)])
      .when(refund(refund2, 6_000))
      .then([refunded(refund2, 6_000, 10_000)])
    spec
      .given([initiated, settled, refunded(refund1, 4_000, 4_000)])
      .when(refund(refund2, 6_000))
      .thenState((state) => assert.isTrue(Transfer.summary(state)?.isRefunded))
  })
  it("a refund above what remains is refused", () => {
    spec
      .given([initiated, settled, refunded(refund1, 4_000, 4_000)])
      .when(refund(refund2, 6_001))
      .thenFails({ _tag: "RuleViolated", code: "RefundExceedsTransfer" })
  })
  it("repeating a refund changes nothing; reusing its id for another amount is refused", () => {
    spec
      .given([initiated, settled, refunded(refund1, 4_000, 4_000)])
      .when(refund(refund1, 4_000))
      .thenNothingHappens()
    spec
      .given([initiated, settled, refunded(refund1, 4_000, 4_000)])
      .when(refund(refund1, 5_000))
      .thenFails({ _tag: "RuleViolated", code: "RefundIdReused" })
  })
  it("a refund of zero or in another currency is refused", () => {
    spec
      .given([initiated, settled])
      .when({ ...refund(refund1, 0), amount: Money.make(0, "EUR") })
      .thenFails({
        _tag: "ValidationFailed",
        issues: [
          { field: "amount", message: "must be greater than zero" },
          { field: "amount", message: "must be in USD, the currency of the amount" },
        ],
      })
  })
  it("apply for reimbursement records the provider and the signing URL", () => {
    spec.given([initiated, settled]).when(apply()).then([applied])
    spec
      .given([initiated, settled])
      .when(apply())
      .thenState((state) => {
        assert.isTrue(Transfer.summary(state)?.appliedForReimbursement)
        assert.isFalse(Transfer.summary(state)?.isReimbursed)
      })
  })
  it("apply for reimbursement refuses a signing URL that is not https", () => {
    spec
      .given([initiated, settled])
      .when(apply(provider, "http://sign.example.com/x"))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [
          { field: "signingUrl", message: "must be an absolute https URL such as https://example.com/file.pdf" },
        ],
      })
  })
  it("applying again with the same provider changes nothing; with another provider is refused", () => {
    spec.given([initiated, settled, applied]).when(apply()).thenNothingHappens()
    spec
      .given([initiated, settled, applied])
      .when(apply(otherProvider))
      .thenFails({ _tag: "IllegalTransition", state: "Settled" })
  })
  it("a refunded transfer cannot be applied for reimbursement", () => {
    spec
      .given([initiated, settled, refunded(refund1, 1, 1)])
      .when(apply())
      .thenFails({ _tag: "IllegalTransition", reason: "a refunded transfer cannot be reimbursed" })
  })
  it("a transfer applied for reimbursement cannot be refunded", () => {
    spec
      .given([initiated, settled, applied])
      .when(refund(refund1, 1))
      .thenFails({ _tag: "IllegalTransition", reason: "a transfer applied for reimbursement cannot be refunded" })
  })
  it("complete reimbursement is refused before applying", () => {
    spec
      .given([initiated, settled])
      .when(complete)
      .thenFails({ _tag: "IllegalTransition", reason: "the transfer was not applied for reimbursement" })
  })
  it("complete reimbursement after applying marks it reimbursed; again changes nothing", () => {
    spec.given([initiated, settled, applied]).when(complete).then([reimbursed])
    spec
      .given([initiated, settled, applied])
      .when(complete)
      .thenState((state) => assert.isTrue(Transfer.summary(state)?.isReimbursed))
    spec.given([initiated, settled, applied, reimbursed]).when(complete).thenNothingHappens()
  })
})

describe("a Failed transfer", () => {
  it("failing it again changes nothing", () => {
    spec.given([initiated, failed]).when(fail("R02")).thenNothingHappens()
  })
  it("settle, refund and reimbursement are refused", () => {
    for (const command of [settle, refund(refund1, 1), apply(), complete])
      spec.given([initiated, failed]).when(command).thenFails({ _tag: "IllegalTransition", state: "Failed" })
  })
})

describe("masking account numbers", () => {
  it("keeps only the last four digits", () => {
    assert.strictEqual(Transfer.maskAccountNumber("123456789"), "****6789")
    assert.strictEqual(Transfer.maskAccountNumber("12-3456 78"), "****5678")
    assert.strictEqual(Transfer.maskAccountNumber("42"), "****42")
  })
  it("a masked number never reveals more than four digits and is always accepted as masked", () => {
    const isMasked = Schema.is(MaskedAccountNumber)
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."0123456789- abc") }), (raw) => {
        const masked = Transfer.maskAccountNumber(raw)
        const digits = raw.replace(/\D/g, "")
        assert.isAtMost(masked.replace(/\D/g, "").length, 4)
        assert.isTrue(digits.endsWith(masked.slice(4)))
        if (digits.length > 0) assert.isTrue(isMasked(masked), masked)
        if (digits.length > 4) assert.isFalse(isMasked(digits))
      }),
      { numRuns: 200 },
    )
  })
})

// ---------------------------------------------------------------------------
// Properties over generated command sequences
// ---------------------------------------------------------------------------

const instant = fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }).map((ms) => DateTime.makeUnsafe(ms))
const command: fc.Arbitrary<Transfer.Command> = fc.oneof(
  instant.map((at): Transfer.Command => ({ ...initiate, at })),
  instant.map((at): Transfer.Command => ({ ...settle, at })),
  fc
    .record({ at: instant, returnCode: fc.constantFrom("R01", "R02", "bad") })
    .map(({ at, returnCode }): Transfer.Command => ({ ...fail(returnCode), at })),
  fc
    .record({
      at: instant,
      refundId: fc.constantFrom(...refundIds),
      minorUnits: fc.oneof(
        fc.integer({ min: 0, max: 12_000 }),
        fc.constantFrom(1, 2_999, 3_000, 5_000, 7_000, 7_001, 9_999, 10_000, 10_001),
      ),
      currency: fc.constantFrom<Money.CurrencyCode>("USD", "USD", "USD", "EUR"),
    })
    .map(
      ({ at, refundId, minorUnits, currency }): Transfer.Command => ({
        _tag: "RefundTransfer",
        transferId,
        refundId,
        amount: Money.make(minorUnits, currency),
        at,
      }),
    ),
  fc
    .record({ at: instant, providerId: fc.constantFrom(...providerIds) })
    .map(({ at, providerId }): Transfer.Command => ({ ...apply(providerId), at })),
  instant.map((at): Transfer.Command => ({ ...complete, at })),
)
// Settled transfers are where refunds and reimbursement happen: start most sequences there.
const commands = fc
  .tuple(fc.boolean(), fc.array(command, { maxLength: 30 }))
  .map(([head, rest]) => (head ? [initiate, settle, ...rest] : rest))

describe("properties of transfers", () => {
  it("replaying the stored (JSON-encoded) events decide emitted reproduces the state", () => {
    const encode = Schema.encodeSync(Transfer.aggregate.events)
    const decode = Schema.decodeUnknownSync(Transfer.aggregate.events)
    fc.assert(
      fc.property(commands, (sequence) => {
        let state = Transfer.initialState
        const stored: Array<string> = []
        for (const cmd of sequence) {
          const decision = Transfer.decide(cmd, state)
          if (decision._tag === "Failure") continue
          for (const event of decision.success) {
            stored.push(JSON.stringify(encode(event)))
            state = Transfer.evolve(state, event)
          }
        }
        const replayed = fold(
          Transfer.aggregate,
          stored.map((json) => decode(JSON.parse(json))),
        )
        assert.deepStrictEqual(replayed, state)
      }),
      { numRuns: 200 },
    )
  })

  it("refunds never exceed the transferred amount, and a transfer is never both refunded and reimbursed", () => {
    fc.assert(
      fc.property(commands, (sequence) => {
        let state = Transfer.initialState
        let refundedSum = 0
        let refundsSeen = 0
        let reimbursementApplied = false
        for (const cmd of sequence) {
          const decision = Transfer.decide(cmd, state)
          if (decision._tag === "Failure") continue
          for (const event of decision.success) {
            if (event._tag === "TransferRefunded") {
              refundedSum += event.amount.minorUnits
              refundsSeen += 1
              assert.strictEqual(event.amount.currency, amount.currency)
              assert.isAbove(event.amount.minorUnits, 0)
              assert.strictEqual(event.totalRefunded.minorUnits, refundedSum)
            }
            if (event._tag === "TransferReimbursementApplied") reimbursementApplied = true
          }
          state = fold(Transfer.aggregate, decision.success, state)
          assert.isAtMost(refundedSum, amount.minorUnits)
          assert.isFalse(refundsSeen > 0 && reimbursementApplied, "refunded and applied for reimbursement")
          const summary = Transfer.summary(state)
          if (summary) assert.strictEqual(summary.isRefunded, refundedSum === amount.minorUnits)
        }
      }),
      { numRuns: 300 },
    )
  })

  it("every status change emits exactly one status event, carrying the new status", () => {
    fc.assert(
      fc.property(commands, (sequence) => {
        let state = Transfer.initialState
        for (const cmd of sequence) {
          const decision = Transfer.decide(cmd, state)
          if (decision._tag === "Failure") continue
          const before = Transfer.summary(state)?.status
          state = fold(Transfer.aggregate, decision.success, state)
          const after = Transfer.summary(state)?.status
          const statusEvents = decision.success.filter((event) => "status" in event)
          if (before === after) assert.strictEqual(statusEvents.length, 0)
          else {
            assert.strictEqual(statusEvents.length, 1)
            assert.strictEqual((statusEvents[0] as { status: string }).status, after)
          }
        }
      }),
      { numRuns: 200 },
    )
  })

  it("no command moves a transfer out of Failed", () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 20 }), (sequence) => {
        let state = fold(Transfer.aggregate, [initiated, failed])
        for (const cmd of sequence) {
          const decision = Transfer.decide(cmd, state)
          if (decision._tag === "Success") state = fold(Transfer.aggregate, decision.success, state)
          assert.strictEqual(state._tag, "Failed")
        }
      }),
      { numRuns: 100 },
    )
  })
})
