/**
 * Executable specification of the double-entry postings (`Postings.ts`,
 * decision table packages/domain/docs/DoubleEntry.md): given a money event,
 * when it is posted, then these lines reach the books, balanced.
 *
 * One case per row: `cases` names, for every event type of `Postings.rules`
 * and every entry type of `Postings.counterAccount`, the event and the lines
 * expected (`[account, side, minor units]`). A new row of either table fails
 * "every row of the posting table has a case" until its case is added here.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import type {
  CardPaymentId,
  CompanyId,
  PartnerId,
  PayoutAccountId,
  PayoutId,
  TransferId,
} from "../../src/kernel/Ids.ts"
import type { RefundId } from "../../src/payments/TransferEvents.ts"
import type * as BalanceEvents from "../../src/payouts/BalanceEvents.ts"
import type * as Ledger from "../../src/payouts/Ledger.ts"
import * as Postings from "../../src/payouts/Postings.ts"

const companyId = "5a1b2c3d-4e5f-4a6b-8c7d-000000000001" as CompanyId
const partnerId = "5a1b2c3d-4e5f-4a6b-8c7d-000000000002" as PartnerId
const transferId = "5a1b2c3d-4e5f-4a6b-8c7d-000000000003" as TransferId
const cardPaymentId = "5a1b2c3d-4e5f-4a6b-8c7d-000000000004" as CardPaymentId
const refundId = "5a1b2c3d-4e5f-4a6b-8c7d-000000000005" as RefundId
const payoutId = "5a1b2c3d-4e5f-4a6b-8c7d-000000000006" as PayoutId
const at = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")

const payable = Postings.Account.payable(companyId)
const ach = Postings.Account.cash("ach")
const processor = Postings.Account.cash("card-processor")
const revenue = Postings.Account.feeRevenue

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

const recorded = (ledgerEntry: Ledger.LedgerEntry): BalanceEvents.LedgerEntryRecorded => ({
  _tag: "LedgerEntryRecorded",
  companyId,
  partnerId,
  entry: ledgerEntry,
  at,
})

const paidOut = (
  items: ReadonlyArray<Ledger.LedgerEntry>,
  direction: "Credit" | "Debit",
): BalanceEvents.BalancePaidOut => {
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

type Line = readonly [account: string, side: Postings.Side, minorUnits: number]

interface Case {
  /** The money event, in words. */
  readonly given: string
  readonly event: Postings.PostedEvent
  /** The lines posted; empty: the event moves no money. */
  readonly posts: ReadonlyArray<Line>
}

const credit = [entry("payment", 10_000), entry("refund", -2_500)]
const deficit = [entry("refund", -4_000)]

/** Every row of the posting table, by example. FEES (issue 37 §4): add the cases of the new rows here. */
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
]

const linesOf = (event: Postings.PostedEvent): ReadonlyArray<Line> =>
  (Postings.postingOf(event)?.lines ?? []).map((line) => [line.account, line.side, line.amount.minorUnits] as const)

describe("a money event", () => {
  for (const { given, event, posts } of cases) {
    it(`posts balanced lines: given ${given}`, () => {
      assert.deepStrictEqual(linesOf(event), posts)
      const posting = Postings.postingOf(event)
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

describe("a posting with lines in two currencies", () => {
  it("balances only when each currency does", () => {
    const lines = [...Postings.transfer(ach, payable, 100, "USD"), ...Postings.transfer(ach, payable, 100, "EUR")]
    const posting: Postings.Posting = { eventType: "X", partnerId, reference: "r", postedAt: at, lines }
    assert.isTrue(Postings.isBalanced(posting))
    assert.isFalse(Postings.isBalanced({ ...posting, lines: [lines[0]!, lines[1]!, lines[2]!] }))
  })
})
