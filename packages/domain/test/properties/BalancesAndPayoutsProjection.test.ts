/**
 * The `balances`, `ledger_entries` and `payouts` read models agree with their
 * aggregates (every entry a balance recorded has its document, as recorded); after
 * any history of entries recorded, payouts taken and restored, a company's
 * document holds the balance's available money per currency; after any
 * history of a payout (created, originated, paid, failed, returned), its
 * document says what the Payout's state says.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import type { CalendarDate } from "../../src/kernel/CalendarDate.ts"
import type { CompanyId, PartnerId, PayoutAccountId, PayoutId, TransferId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as Balance from "../../src/payouts/Balance.ts"
import * as BalancesProjection from "../../src/payouts/BalancesProjection.ts"
import type * as Ledger from "../../src/payouts/Ledger.ts"
import * as LedgerEntriesProjection from "../../src/payouts/LedgerEntriesProjection.ts"
import * as Payout from "../../src/payouts/Payout.ts"
import * as PayoutsProjection from "../../src/payouts/PayoutsProjection.ts"
import { PropertyParams } from "../../src/testing/index.ts"
import { documentOf, history, iso, type Timed, uuid } from "./RandomHistory.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(42)

const currency = fc.constantFrom<Money.CurrencyCode>("USD", "EUR")

const arbitraryEntry = fc
  .record({ transfer: uuid, minorUnits: fc.integer({ min: -20_000, max: 50_000 }), currency })
  .map(
    ({ transfer, minorUnits, currency }): Ledger.LedgerEntry => ({
      entryId: `${transfer}:settled`,
      type: minorUnits < 0 ? "refund" : "payment",
      transferId: transfer as TransferId,
      amount: { minorUnits, currency },
    }),
  )

describe("the balances read model", () => {
  it("holds each currency's available money of the company's balance", () => {
    fc.assert(
      fc.property(
        uuid,
        uuid,
        fc.array(
          fc.oneof(
            arbitraryEntry.map(
              (entry): Timed<Balance.Command> =>
                (at) => ({
                  _tag: "RecordLedgerEntry",
                  companyId: "" as CompanyId,
                  partnerId: "" as PartnerId,
                  entry,
                  at,
                }),
            ),
            fc.record({ payout: uuid, currency, minimum: fc.integer({ min: 0, max: 10_000 }) }).map(
              ({ payout, currency, minimum }): Timed<Balance.Command> =>
                (at) => ({
                  _tag: "PayOutBalance",
                  companyId: "" as CompanyId,
                  payoutId: payout as PayoutId,
                  currency,
                  minimumMinorUnits: minimum,
                  intervalMillis: 0,
                  payoutAccountId: payout as PayoutAccountId,
                  accountNumberMasked: "****6789",
                  at,
                }),
            ),
          ),
          { maxLength: 30 },
        ),
        (companyId, partnerId, commands) => {
          const named = commands.map(
            (command): Timed<Balance.Command> =>
              (at, state) => {
                const c = command(at, state)
                return c._tag === "RecordLedgerEntry"
                  ? { ...c, companyId: companyId as CompanyId, partnerId: partnerId as PartnerId }
                  : { ...c, companyId: companyId as CompanyId }
              },
          )
          const { events, state } = history(Balance.aggregate, named)
          for (const event of events) {
            if (event._tag !== "LedgerEntryRecorded") continue
            const entryDoc = documentOf(LedgerEntriesProjection.projection, "CompanyBalance", companyId, [event])
            assert.deepStrictEqual(entryDoc, {
              ...event.entry,
              companyId,
              partnerId,
              recordedAt: iso(event.at),
            })
          }
          const doc = documentOf(BalancesProjection.projection, "CompanyBalance", companyId, events)
          if (state._tag === "Initial") return assert.isUndefined(doc)
          for (const code of ["USD", "EUR"] as const)
            assert.strictEqual(BalancesProjection.availableIn(doc, code), Balance.availableOf(state, code))
          assert.strictEqual(doc?.partnerId, partnerId)
        },
      ),
      seeded(),
    )
  })
})

describe("the payouts read model", () => {
  it("says what the payout's state says: status, amount, items, reference and return code", () => {
    const outcome = fc.oneof(
      fc.constant({ status: "Settled" as const }),
      fc.constant({ status: "Pending" as const }),
      fc.constantFrom("R02", "R03").map((returnCode) => ({ status: "Failed" as const, returnCode })),
      fc.constantFrom("R16").map((returnCode) => ({ status: "Returned" as const, returnCode })),
    )
    fc.assert(
      fc.property(
        uuid,
        fc.array(arbitraryEntry, { minLength: 1, maxLength: 5 }),
        fc.array(
          fc.oneof(
            outcome.map((value) => ({ _tag: "Outcome" as const, value })),
            fc.constantFrom("po_1", "po_2").map((reference) => ({ _tag: "Originate" as const, reference })),
          ),
          { maxLength: 6 },
        ),
        (payoutId, entries, steps) => {
          const items = entries.map((entry) => ({ ...entry, amount: { ...entry.amount, currency: "USD" as const } }))
          const total = items.reduce((sum, item) => sum + item.amount.minorUnits, 0)
          const commands: Array<Timed<Payout.Command>> = [
            (at) => ({
              _tag: "CreatePayout",
              payoutId: payoutId as PayoutId,
              companyId: payoutId as CompanyId,
              partnerId: payoutId as PartnerId,
              amount: Money.make(Math.max(total, 0), "USD"),
              items,
              payoutAccountId: payoutId as PayoutAccountId,
              accountNumberMasked: "****6789",
              arrivalDate: "2026-03-02" as CalendarDate,
              at,
            }),
            ...steps.map(
              (step): Timed<Payout.Command> =>
                (at) =>
                  step._tag === "Outcome"
                    ? { _tag: "RecordPayoutOutcome", payoutId: payoutId as PayoutId, outcome: step.value, at }
                    : {
                        _tag: "RecordPayoutOrigination",
                        payoutId: payoutId as PayoutId,
                        providerReference: step.reference,
                        at,
                      },
            ),
          ]
          const { events, state } = history(Payout.aggregate, commands)
          const doc = documentOf(PayoutsProjection.projection, "Payout", payoutId, events)
          if (state._tag === "Initial") return assert.isUndefined(doc)
          assert.strictEqual(doc?.status, state._tag)
          assert.deepStrictEqual(doc?.amount, state.details.amount)
          assert.deepStrictEqual(doc?.items, state.details.items)
          assert.strictEqual(doc?.providerReference, state.providerReference)
          assert.strictEqual(doc?.createdAt, iso(state.details.createdAt))
          assert.strictEqual(doc?.returnCode, state._tag === "Failed" ? state.returnCode : undefined)
        },
      ),
      seeded(),
    )
  })
})
