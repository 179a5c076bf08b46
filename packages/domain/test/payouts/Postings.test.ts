/**
 * Executable specification of the double-entry postings (`Postings.ts`,
 * decision table packages/domain/docs/DoubleEntry.md): given a money event,
 * when it is posted, then these lines reach the books, balanced.
 *
 * One case per row: `cases` names, for every event type of `Postings.rules`
 * and every entry type of `Postings.counterAccount`, the event and the lines
 * expected (`[account, side, minor units]`). A new row of either table fails
 * "every row of the posting table has a case" until its case is added here.
 * A transfer's failure or return names neither partner nor company: its case
 * gives what the books kept of the transfer's initiation (`transfer`), and
 * the read model's document keyed by transfer is specified below
 * (`PostingsProjection.returnFees`).
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import type {
  CardPaymentId,
  CompanyId,
  MerchantId,
  PartnerId,
  PaymentRequestId,
  PayoutAccountId,
  PayoutId,
  RegistrationId,
  TransferId,
} from "../../src/kernel/Ids.ts"
import type * as FeeSchedule from "../../src/payments/FeeSchedule.ts"
import type * as PaymentRequestEvents from "../../src/payments/PaymentRequestEvents.ts"
import type { Of, RefundId } from "../../src/payments/TransferEvents.ts"
import type * as BalanceEvents from "../../src/payouts/BalanceEvents.ts"
import type * as Ledger from "../../src/payouts/Ledger.ts"
import * as Postings from "../../src/payouts/Postings.ts"
import * as PostingsProjection from "../../src/payouts/PostingsProjection.ts"
import { Fixtures } from "../../src/testing/index.ts"
import { documentOf } from "../properties/RandomHistory.ts"

const companyId = "5a1b2c3d-4e5f-4a6b-8c7d-000000000001" as CompanyId
const partnerId = "5a1b2c3d-4e5f-4a6b-8c7d-000000000002" as PartnerId
const transferId = "5a1b2c3d-4e5f-4a6b-8c7d-000000000003" as TransferId
const cardPaymentId = "5a1b2c3d-4e5f-4a6b-8c7d-000000000004" as CardPaymentId
const refundId = "5a1b2c3d-4e5f-4a6b-8c7d-000000000005" as RefundId
const payoutId = "5a1b2c3d-4e5f-4a6b-8c7d-000000000006" as PayoutId
const at = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")

const paidInTheApp = (
  books: Partial<PaymentRequestEvents.Of<"PaymentRequestPaidByCard">> = {},
): PaymentRequestEvents.Of<"PaymentRequestPaidByCard"> => ({
  _tag: "PaymentRequestPaidByCard",
  paymentRequestId: "5a1b2c3d-4e5f-4a6b-8c7d-000000000007" as PaymentRequestId,
  registrationId: "5a1b2c3d-4e5f-4a6b-8c7d-000000000008" as RegistrationId,
  cardPaymentId,
  paymentMethodId: "pm_1",
  brand: "visa",
  last4: "4242",
  processorReference: "pi_1",
  ...books,
  at,
})

const payable = Postings.Account.payable(companyId)
const ach = Postings.Account.cash("ach")
const processor = Postings.Account.cash("card-processor")
const revenue = Postings.Account.feeRevenue
const expense = Postings.Account.providerCost

const entry = (
  type: Ledger.EntryType,
  minorUnits: number,
  extra: Partial<Ledger.LedgerEntry> = {},
): Ledger.LedgerEntry => ({
  entryId: `${transferId}:${type}:${minorUnits}`,
  type,
  transferId,
  amount: { minorUnits, currency: "USD" },
  ...extra,
})

const recorded = (ledgerEntry: Ledger.LedgerEntry): BalanceEvents.Of<"LedgerEntryRecorded"> => ({
  _tag: "LedgerEntryRecorded",
  companyId,
  partnerId,
  entry: ledgerEntry,
  at,
})

const paidOut = (
  items: ReadonlyArray<Ledger.LedgerEntry>,
  direction: "Credit" | "Debit",
): BalanceEvents.Of<"BalancePaidOut"> => {
  const sum = items.reduce((total, item) => total + item.amount.minorUnits, 0)
  return {
    _tag: "BalancePaidOut",
    companyId,
    partnerId,
    payoutId,
    direction,
    amount: { minorUnits: Math.abs(sum), currency: "USD" },
    items,
    payoutAccountId: payoutId as string as PayoutAccountId,
    accountNumberMasked: "****6789",
    at,
  }
}

const usd = (minorUnits: number) => ({ minorUnits, currency: "USD" as const })

/** A debit of 100.00 initiated for the company, with the fee terms given (none: an older transfer). */
const initiated = (
  terms: { readonly providerCost?: number; readonly returnFee?: FeeSchedule.ReturnFee } = {},
): Of<"TransferInitiated"> => ({
  _tag: "TransferInitiated",
  transferId,
  ...(terms.providerCost === undefined ? {} : { providerCost: usd(terms.providerCost) }),
  ...(terms.returnFee === undefined ? {} : { returnFeeTerms: terms.returnFee }),
  partnerId,
  companyId,
  amount: usd(10_000),
  senderName: "Ada Lovelace",
  recipientName: "Acme Coffee",
  senderAccountMasked: "****6789",
  recipientAddress: Fixtures.recipientAddress,
  attachments: [],
  description: "Invoice 42",
  at,
})

const later = DateTime.makeUnsafe("2026-03-05T10:00:00.000Z")
const kept: FeeSchedule.ReturnFee = { amount: usd(500), passedOn: false }
const passedOn: FeeSchedule.ReturnFee = { amount: usd(500), passedOn: true }

/** The bank failed the debit with R01 before settlement (its return fee recorded when the terms had one). */
const failed = (returnFee?: FeeSchedule.ReturnFee): Of<"TransferFailed"> => ({
  _tag: "TransferFailed",
  transferId,
  returnCode: "R01",
  reason: "Insufficient funds",
  ...(returnFee === undefined ? {} : { returnFee }),
  at: later,
})

/** The bank returned the settled debit with R10. */
const returned = (returnFee?: FeeSchedule.ReturnFee): Of<"TransferReturned"> => ({
  _tag: "TransferReturned",
  transferId,
  returnCode: "R10",
  reason: "Not authorized",
  ...(returnFee === undefined ? {} : { returnFee }),
  at: later,
})

/** What the books kept of the transfer's initiation. */
const ofTransfer: Postings.TransferOfPosting = { partnerId, companyId }

type Line = readonly [account: string, side: Postings.Side, minorUnits: number]

interface Case {
  /** The money event, in words. */
  readonly given: string
  readonly event: Postings.PostedEvent
  /** What the books kept of the event's transfer's initiation (a failure or return names neither partner nor company). */
  readonly transfer?: Postings.TransferOfPosting
  /** The lines posted; empty: the event moves no money. */
  readonly posts: ReadonlyArray<Line>
}

const credit = [entry("payment", 10_000), entry("refund", -2_500)]
const deficit = [entry("refund", -4_000)]

/** Every row of the posting table, by example: a new row adds its case here. */
const cases: ReadonlyArray<Case> = [
  {
    given: "a settled payment",
    event: recorded(entry("payment", 10_000)),
    posts: [
      [ach, "Debit", 10_000],
      [payable, "Credit", 10_000],
    ],
  },
  {
    given: "a settled instalment",
    event: recorded(entry("instalment", 5_000)),
    posts: [
      [ach, "Debit", 5_000],
      [payable, "Credit", 5_000],
    ],
  },
  {
    given: "a settled charity gift",
    event: recorded(entry("charity", 2_000)),
    posts: [
      [ach, "Debit", 2_000],
      [payable, "Credit", 2_000],
    ],
  },
  {
    given: "the charity fee of a settled gift",
    event: recorded(entry("fee", -20)),
    posts: [
      [payable, "Debit", 20],
      [revenue, "Credit", 20],
    ],
  },
  {
    given: "the charity fee given back when the gift is returned",
    event: recorded(entry("fee", 20)),
    posts: [
      [revenue, "Debit", 20],
      [payable, "Credit", 20],
    ],
  },
  {
    given: "the platform fee of a collection under the partner's fee schedule (ACH or card)",
    event: recorded(entry("fee", -156)),
    posts: [
      [payable, "Debit", 156],
      [revenue, "Credit", 156],
    ],
  },
  {
    given: "a return fee passed on to the company (the provider took it from the ACH cash)",
    event: recorded(entry("returnFee", -500)),
    posts: [
      [payable, "Debit", 500],
      [ach, "Credit", 500],
    ],
  },
  {
    given: "a refund asked for on an ACH payment",
    event: recorded(entry("refund", -2_500, { refundId })),
    posts: [
      [payable, "Debit", 2_500],
      [ach, "Credit", 2_500],
    ],
  },
  {
    given: "a refund whose credit failed",
    event: recorded(entry("refund", 2_500, { refundId })),
    posts: [
      [ach, "Debit", 2_500],
      [payable, "Credit", 2_500],
    ],
  },
  {
    given: "a return of a settled payment (R10)",
    event: recorded(entry("return", -10_000)),
    posts: [
      [payable, "Debit", 10_000],
      [ach, "Credit", 10_000],
    ],
  },
  {
    given: "a card payment",
    event: recorded({
      entryId: `${cardPaymentId}:card`,
      type: "card",
      cardPaymentId,
      amount: { minorUnits: 7_000, currency: "USD" },
    }),
    posts: [
      [processor, "Debit", 7_000],
      [payable, "Credit", 7_000],
    ],
  },
  {
    given: "a card refund",
    event: recorded({
      entryId: `${cardPaymentId}:refund:${refundId}`,
      type: "refund",
      cardPaymentId,
      refundId,
      amount: { minorUnits: -1_000, currency: "USD" },
    }),
    posts: [
      [payable, "Debit", 1_000],
      [processor, "Credit", 1_000],
    ],
  },
  {
    given: "a card dispute opened",
    event: recorded({
      entryId: "dp_1:dispute",
      type: "dispute",
      cardPaymentId,
      amount: { minorUnits: -7_000, currency: "USD" },
    }),
    posts: [
      [payable, "Debit", 7_000],
      [processor, "Credit", 7_000],
    ],
  },
  {
    given: "a card dispute's fee",
    event: recorded({
      entryId: "dp_1:dispute:fee",
      type: "fee",
      cardPaymentId,
      amount: { minorUnits: -1_500, currency: "USD" },
    }),
    posts: [
      [payable, "Debit", 1_500],
      [processor, "Credit", 1_500],
    ],
  },
  {
    given: "a card dispute won, its fee given back",
    event: recorded({
      entryId: "dp_1:dispute:fee:won",
      type: "fee",
      cardPaymentId,
      amount: { minorUnits: 1_500, currency: "USD" },
    }),
    posts: [
      [processor, "Debit", 1_500],
      [payable, "Credit", 1_500],
    ],
  },
  {
    given: "a Credit payout of a payment and a refund",
    event: paidOut(credit, "Credit"),
    posts: [
      [payable, "Debit", 7_500],
      [ach, "Credit", 7_500],
    ],
  },
  {
    given: "a Debit payout recovering a deficit",
    event: paidOut(deficit, "Debit"),
    posts: [
      [ach, "Debit", 4_000],
      [payable, "Credit", 4_000],
    ],
  },
  {
    given: "a failed Credit payout's items given back",
    event: { _tag: "PayoutItemsRestored", companyId, partnerId, payoutId, items: credit, at },
    posts: [
      [ach, "Debit", 7_500],
      [payable, "Credit", 7_500],
    ],
  },
  {
    given: "a deficit observed by a payout run",
    event: {
      _tag: "BalanceDeficitObserved",
      companyId,
      partnerId,
      deficit: { minorUnits: 4_000, currency: "USD" },
      at,
    },
    posts: [],
  },
  {
    given: "a transfer initiated with a provider cost (billed per transfer, settled or not)",
    event: initiated({ providerCost: 25, returnFee: kept }),
    posts: [
      [expense, "Debit", 25],
      [ach, "Credit", 25],
    ],
  },
  {
    given: "a transfer initiated without a provider cost (none configured, or an older transfer)",
    event: initiated(),
    posts: [],
  },
  {
    given: "a debit failed by the bank (R01), its return fee kept by the platform",
    event: failed(kept),
    transfer: ofTransfer,
    posts: [
      [expense, "Debit", 500],
      [ach, "Credit", 500],
    ],
  },
  {
    given: "a debit returned after settlement (R10), its return fee kept by the platform",
    event: returned(kept),
    transfer: ofTransfer,
    posts: [
      [expense, "Debit", 500],
      [ach, "Credit", 500],
    ],
  },
  {
    given: "a return fee passed on to the company (its returnFee entry posts it, payable against the ACH cash)",
    event: failed(passedOn),
    transfer: ofTransfer,
    posts: [],
  },
  {
    given: "a return without a return fee (none configured, or an older transfer)",
    event: returned(),
    transfer: ofTransfer,
    posts: [],
  },
  {
    given: "a return whose transfer's initiation the books did not keep (an older stream)",
    event: returned(kept),
    posts: [],
  },
  {
    given: "a company's card payment registered with the processor's cost",
    event: {
      _tag: "CardPaymentRegistered",
      cardPaymentId,
      partnerId,
      merchantId: companyId as string as MerchantId,
      amount: usd(7_000),
      last4: "4242",
      brand: "visa",
      externalReference: "term-1",
      companyId,
      providerCost: usd(233),
      at,
    },
    posts: [
      [expense, "Debit", 233],
      [processor, "Credit", 233],
    ],
  },
  {
    given: "a payment request paid in the app by card with the processor's cost",
    event: paidInTheApp({ providerCost: usd(59), partnerId, companyId }),
    posts: [
      [expense, "Debit", 59],
      [processor, "Credit", 59],
    ],
  },
  {
    given: "a payment request paid in the app by card without a processor's cost",
    event: paidInTheApp(),
    posts: [],
  },
  {
    given: "a payment request paid in the app by card before the books knew its company (an older event)",
    event: paidInTheApp({ providerCost: usd(59) }),
    posts: [],
  },
]

const linesOf = (event: Postings.PostedEvent, transfer?: Postings.TransferOfPosting): ReadonlyArray<Line> =>
  (Postings.postingOf(event, transfer)?.lines ?? []).map(
    (line) => [line.account, line.side, line.amount.minorUnits] as const,
  )

describe("a money event", () => {
  for (const { given, event, transfer, posts } of cases) {
    it(`posts balanced lines: given ${given}`, () => {
      assert.deepStrictEqual(linesOf(event, transfer), posts)
      const posting = Postings.postingOf(event, transfer)
      if (posting !== undefined) {
        assert.isTrue(Postings.isBalanced(posting))
        assert.strictEqual(posting.eventType, event._tag)
        assert.strictEqual(posting.partnerId, partnerId)
        assert.strictEqual(posting.companyId, companyId)
      }
    })
  }

  it("of zero minor units posts nothing", () => {
    assert.isUndefined(Postings.postingOf(recorded(entry("payment", 0))))
  })
})

describe("the posting table", () => {
  it("every row of the posting table has a case", () => {
    const events = new Set(cases.map((c) => c.event._tag))
    for (const tag of Object.keys(Postings.rules)) assert.isTrue(events.has(tag as never), `no case posts ${tag}`)
    const entryTypes = new Set(
      cases.flatMap((c) => (c.event._tag === "LedgerEntryRecorded" ? [c.event.entry.type] : [])),
    )
    for (const type of Object.keys(Postings.counterAccount))
      assert.isTrue(entryTypes.has(type as Ledger.EntryType), `no case records an entry of type ${type}`)
  })
})

describe("the books of a transfer whose return fee the platform keeps (PostingsProjection.returnFees)", () => {
  const documentOfTransfer = (events: ReadonlyArray<unknown>) =>
    documentOf(PostingsProjection.returnFees, "Transfer", transferId, events)

  it("hold a posting without lines from its initiation, naming its partner and company", () => {
    assert.deepStrictEqual(documentOfTransfer([initiated({ returnFee: kept })]), {
      eventType: "TransferInitiated",
      partnerId,
      companyId,
      reference: `${transferId}:returnFee`,
      postedAt: at,
      lines: [],
    })
  })

  it("post the return fee at the bank's return, as the posting table says", () => {
    const settled = { _tag: "TransferSettled", transferId, status: "Settled", at } as const
    const outcomes = [
      { events: [failed(kept)], posted: failed(kept) },
      { events: [settled, returned(kept)], posted: returned(kept) },
    ]
    for (const { events, posted } of outcomes) {
      const doc = documentOfTransfer([initiated({ providerCost: 25, returnFee: kept }), ...events])
      assert.deepStrictEqual(doc, Postings.postingOf(posted, ofTransfer))
      assert.deepStrictEqual(doc?.postedAt, later)
    }
  })

  it("hold nothing once the debit fails without a return fee (the rail refused it, an outage)", () => {
    const refused: Of<"TransferFailed"> = {
      _tag: "TransferFailed",
      transferId,
      reason: "refused by the rail",
      at: later,
    }
    assert.isUndefined(documentOfTransfer([initiated({ returnFee: kept }), refused]))
  })

  it("hold nothing when the return fee is passed on, or the transfer had no return fee terms", () => {
    assert.isUndefined(documentOfTransfer([initiated({ returnFee: passedOn }), failed(passedOn)]))
    assert.isUndefined(documentOfTransfer([initiated({ providerCost: 25 }), failed()]))
  })

  it("the provider cost is the initiation's own document (PostingsProjection.projection)", () => {
    const doc = documentOf(PostingsProjection.projection, "Transfer", transferId, [initiated({ providerCost: 25 })])
    assert.deepStrictEqual(doc, Postings.postingOf(initiated({ providerCost: 25 })))
    assert.strictEqual(doc?.reference, `${transferId}:providerCost`)
  })
})

describe("a posting with lines in two currencies", () => {
  it("balances only when each currency does", () => {
    const lines = [...Postings.transfer(ach, payable, 100, "USD"), ...Postings.transfer(ach, payable, 100, "EUR")]
    const posting: Postings.Posting = { eventType: "X", partnerId, reference: "r", postedAt: at, lines }
    assert.isTrue(Postings.isBalanced(posting))
    assert.isFalse(Postings.isBalanced({ ...posting, lines: [lines[0]!, lines[1]!, lines[2]!] }))
  })
})
