/**
 * The `debit_auths` read model agrees with the DebitAuth aggregate: after any
 * history (limit changes, in another currency too, enabling, disabling,
 * authorized and refused debits), the document says the status and the limit
 * in force that the aggregate's state says.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import type { CompanyId, DebitAuthId, PartnerId, PaymentRequestId, RegistrationId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as DebitAuth from "../../src/payments/DebitAuth.ts"
import { type DebitAuthDocument, projection } from "../../src/payments/DebitAuthsProjection.ts"
import { PropertyParams } from "../../src/testing/index.ts"
import { documentOf, history, start, type Timed, uuid } from "./RandomHistory.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(42)

const otherCompany = "4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a" as CompanyId
const money = fc
  .record({ units: fc.integer({ min: 1, max: 100_000 }), currency: fc.constantFrom("USD", "USD", "EUR") })
  .map(({ units, currency }) => Money.make(units, currency))

const arbitrarySet = fc.record({
  debitAuthId: uuid,
  partnerId: uuid,
  companyId: uuid,
  registrationId: uuid,
  limit: money,
})

const arbitraryCommand = (companyId: CompanyId): fc.Arbitrary<Timed<DebitAuth.Command>> =>
  fc.oneof(
    money.map(
      (limit): Timed<DebitAuth.Command> =>
        (at) => ({ _tag: "UpdateDebitAuthLimit", limit, at }),
    ),
    fc.constant<Timed<DebitAuth.Command>>((at) => ({ _tag: "EnableDebitAuth", at })),
    fc.constant<Timed<DebitAuth.Command>>((at) => ({ _tag: "DisableDebitAuth", at })),
    fc
      .record({ paymentRequestId: uuid, amount: money, company: fc.constantFrom(companyId, companyId, otherCompany) })
      .map(
        ({ paymentRequestId, amount, company }): Timed<DebitAuth.Command> =>
          (at) => ({
            _tag: "AuthorizeDebit",
            paymentRequestId: paymentRequestId as PaymentRequestId,
            companyId: company,
            amount,
            at,
          }),
      ),
  )

const arbitraryHistory = arbitrarySet.chain((set) =>
  fc.array(arbitraryCommand(set.companyId as CompanyId), { minLength: 1, maxLength: 12 }).map((commands) => {
    const create: Timed<DebitAuth.Command> = (at) => ({
      _tag: "SetDebitAuth",
      debitAuthId: set.debitAuthId as DebitAuthId,
      partnerId: set.partnerId as PartnerId,
      companyId: set.companyId as CompanyId,
      registrationId: set.registrationId as RegistrationId,
      limit: set.limit,
      at,
    })
    return { debitAuthId: set.debitAuthId, ...history(DebitAuth.aggregate, [create, ...commands]) }
  }),
)

const property = (check: (state: DebitAuth.State, document: DebitAuthDocument) => void) =>
  fc.assert(
    fc.property(arbitraryHistory, ({ debitAuthId, events, state }) => {
      const document = documentOf(projection, "DebitAuth", debitAuthId, events)
      if (document === undefined) throw new Error("a debit authorization that was set has a document")
      check(state, document)
    }),
    seeded(),
  )

describe("the debit authorization document, after any history", () => {
  it("says the status the aggregate has: enabled exactly when the aggregate is", () =>
    property((state, document) => {
      assert.strictEqual(document.status, DebitAuth.status(state))
      assert.strictEqual(document.status === "Active", DebitAuth.isEnabled(state))
    }))

  it("says the limit in force the aggregate has, amount and currency", () =>
    property((state, document) => {
      assert.deepStrictEqual(document.limit, DebitAuth.limitInForce(state))
    }))

  it("says whose authorization it is, for which company, as the aggregate recorded it", () =>
    property((state, document) => {
      if (state._tag === "Initial") throw new Error("the authorization was set")
      assert.strictEqual(document.debitAuthId, state.debitAuthId)
      assert.strictEqual(document.partnerId, state.partnerId)
      assert.strictEqual(document.companyId, state.companyId)
      assert.strictEqual(document.registrationId, state.registrationId)
      assert.deepStrictEqual(document.setAt, start)
    }))
})
