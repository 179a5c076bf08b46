/**
 * Payouts exactly once on PGlite and PostgreSQL: with money available in a
 * company's balance, several payout runs at once (as several instances'
 * workers would run them) create one payout between them, which takes the
 * whole balance; a run after it finds nothing to pay out. A balance whose
 * stream has a snapshot, appended several times in one unit of work (a
 * settlement batch), is read right each time.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  Balance,
  CommandHandler,
  Companies,
  IdGenerator,
  type Ids,
  Payouts,
  ReadModel,
  UnitOfWork,
} from "@partnerpay/domain"
import { Fixtures } from "@partnerpay/domain/testing"
import { DateTime, Effect, Layer } from "effect"
import * as PgDomain from "../src/PgDomain.ts"
import { databases } from "./readSideSupport.ts"

const partnerId = "2b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b" as Ids.PartnerId
const schedule: Payouts.PayoutSchedule = { minimumMinorUnits: 100, intervalMillis: 0 }

/** Records a settled payment of `minorUnits` in the company's balance. */
const recordPayment = (companyId: Ids.CompanyId, minorUnits: number) =>
  Effect.gen(function* () {
    const transferId = crypto.randomUUID() as Ids.TransferId
    const at = yield* DateTime.now
    return yield* CommandHandler.handle(Balance.aggregate, companyId, {
      _tag: "RecordLedgerEntry",
      companyId,
      partnerId,
      entry: { entryId: `${transferId}:settled`, type: "payment", transferId, amount: { minorUnits, currency: "USD" } },
      at,
    })
  })

/** A company with a payout account and three settled payments available in its balance. */
const companyWithBalance = Effect.gen(function* () {
  const { companyId } = yield* Companies.register(
    partnerId,
    Fixtures.companyRegistrationBody({ companyReferenceId: `payouts-${crypto.randomUUID()}` }),
  )
  yield* Companies.completeKyb(companyId, "Verified")
  yield* Companies.setPayoutAccount(partnerId, companyId, {
    accountHolderName: "Acme Coffee LLC",
    routingNumber: "011000015",
    accountNumber: "000123456789",
    accountType: "Checking",
  })
  const at = yield* DateTime.now
  for (const minorUnits of [1_000, 2_500, 4_000]) {
    const transferId = crypto.randomUUID() as Ids.TransferId
    yield* UnitOfWork.transactional(
      CommandHandler.handle(Balance.aggregate, companyId, {
        _tag: "RecordLedgerEntry",
        companyId,
        partnerId,
        entry: {
          entryId: `${transferId}:settled`,
          type: "payment",
          transferId,
          amount: { minorUnits, currency: "USD" },
        },
        at,
      }),
    )
  }
  return companyId
})

for (const database of databases) {
  describe(`payouts on ${database.name}`, () => {
    const layer = Layer.mergeAll(PgDomain.layer(), IdGenerator.IdGenerator.layerRandom).pipe(
      Layer.provideMerge(database.layer()),
    )

    it.layer(layer, { timeout: 120_000, excludeTestServices: true })((it) => {
      it.effect("four payout runs at once create one payout of the whole balance; the next run finds nothing", () =>
        Effect.gen(function* () {
          const companyId = yield* companyWithBalance
          const runs = yield* Effect.all(
            [1, 2, 3, 4].map(() => Payouts.payOutDue(companyId, schedule)),
            { concurrency: "unbounded" },
          )
          const created = runs.flat()
          assert.strictEqual(created.length, 1)
          assert.deepStrictEqual(created[0]!.amount, { minorUnits: 7_500, currency: "USD" })
          assert.deepStrictEqual(yield* Payouts.payOutDue(companyId, schedule), [])
          const listed = yield* Payouts.list(partnerId, { companyId, limit: 10 })
          assert.deepStrictEqual(
            listed.data.map((payout) => [payout.payoutId, payout.itemCount]),
            [[created[0]!.payoutId, 3]],
          )
          const balance = yield* Payouts.balance(partnerId, companyId, "USD")
          assert.strictEqual(balance.available.minorUnits, 0)
          const store = yield* ReadModel.ReadModelStore
          const entries = yield* store.find("ledger_entries", { partnerId, keys: { companyId }, limit: 10 })
          assert.strictEqual(entries.items.length, 3)
        }),
      )

      it.effect("a balance with a snapshot, appended five times in one unit, pays out every entry", () =>
        Effect.gen(function* () {
          const companyId = yield* companyWithBalance
          // 60 more entries, one unit each: the stream passes 50 events and gets a snapshot.
          for (let n = 0; n < 60; n++) yield* UnitOfWork.transactional(recordPayment(companyId, 100))
          // A batch: five entries of the same company in one unit, each read after the unit's own appends.
          const versions = yield* UnitOfWork.transactional(
            Effect.forEach([1, 2, 3, 4, 5], () =>
              Effect.map(recordPayment(companyId, 1_000), (handled) => handled.version),
            ),
          )
          assert.deepStrictEqual(versions, [64, 65, 66, 67, 68])
          const created = yield* Payouts.payOutDue(companyId, schedule)
          assert.deepStrictEqual(created[0]?.amount, { minorUnits: 7_500 + 6_000 + 5_000, currency: "USD" })
          const payout = yield* Payouts.get(partnerId, created[0]!.payoutId)
          assert.strictEqual(payout.itemCount, 68)
        }),
      )
    })
  })
}
