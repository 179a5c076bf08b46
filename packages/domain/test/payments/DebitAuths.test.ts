/**
 * Debit authorizations through the use cases and the `debit_auths` read model
 * (spec 2.10, 2.11, changelog v0.2): the customer sets and updates them, lists
 * its own, and the partner reads one payer's authorization.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import * as EventPipeline from "../../src/composition/EventPipeline.ts"
import * as CommandHandler from "../../src/infrastructure/CommandHandler.ts"
import type { EventStore } from "../../src/infrastructure/EventStore.ts"
import { IdGenerator } from "../../src/infrastructure/IdGenerator.ts"
import type { Policies } from "../../src/infrastructure/Policy.ts"
import { ReadModelStore } from "../../src/infrastructure/ReadModel.ts"
import { UnitOfWork } from "../../src/infrastructure/UnitOfWork.ts"
import { NotFound } from "../../src/kernel/DomainError.ts"
import * as Ids from "../../src/kernel/Ids.ts"
import * as DebitAuth from "../../src/payments/DebitAuth.ts"
import * as DebitAuths from "../../src/payments/DebitAuths.ts"
import { collection, projection } from "../../src/payments/DebitAuthsProjection.ts"
import { Fixtures, PropertyParams } from "../../src/testing/index.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(2026112638)

const partnerId = Ids.PartnerId.make("0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b")
const otherPartnerId = Ids.PartnerId.make("1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f")
const payer = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-00000000c0de")
const otherPayer = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-00000000beef")
const acme = Ids.CompanyId.make("c0000000-0000-4000-8000-000000000001")
const globex = Ids.CompanyId.make("c0000000-0000-4000-8000-000000000002")
const foreignCompany = Ids.CompanyId.make("c0000000-0000-4000-8000-000000000003")

const domain = () => Layer.mergeAll(EventPipeline.layerMemory(), UnitOfWork.layerMemory, IdGenerator.layerRandom)
const now = Date.parse("2026-03-02T10:00:00Z")

type Env = EventStore | ReadModelStore | IdGenerator | UnitOfWork | Policies

/** A fresh domain: two companies of the partner, one of another partner, two payers of the partner. */
const scenario = <A, E>(body: Effect.Effect<A, E, Env>) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(now)
    yield* Fixtures.registerCompany(partnerId, acme, "Acme Coffee")
    yield* Fixtures.registerCompany(partnerId, globex, "Globex Water")
    yield* Fixtures.registerCompany(otherPartnerId, foreignCompany, "Initech")
    yield* Fixtures.registerCustomer(partnerId, payer)
    yield* Fixtures.registerCustomer(partnerId, otherPayer, "+14155550124")
    return yield* body
  }).pipe(Effect.provide(domain()))

const usd = (value: number) => ({ value, currencyCode: "USD" as const })
const set = (companyId: Ids.CompanyId, limit = usd(500), registrationId = payer) =>
  DebitAuths.set({ partnerId, registrationId, companyId, limit })

const fieldsOf = (error: { readonly _tag: string }) =>
  error._tag === "ValidationFailed"
    ? (error as unknown as { issues: Array<{ field: string }> }).issues.map((i) => i.field)
    : []

describe("setting a debit authorization", () => {
  it.effect("creates it Active and enabled with the limit", () =>
    scenario(
      Effect.gen(function* () {
        const auth = yield* set(acme, usd(250.5))
        assert.strictEqual(auth.status, "Active")
        assert.isTrue(auth.enabled)
        assert.deepStrictEqual(auth.limit, { minorUnits: 25050, currency: "USD" })
        assert.strictEqual(auth.companyId, acme)
        assert.strictEqual(auth.registrationId, payer)
      }),
    ),
  )

  it.effect("setting again for the same company keeps the authorization, sets the new limit and enables it", () =>
    scenario(
      Effect.gen(function* () {
        const first = yield* set(acme, usd(100))
        yield* DebitAuths.update({ partnerId, registrationId: payer, debitAuthId: first.debitAuthId, enabled: false })
        const again = yield* set(acme, usd(300))
        assert.strictEqual(again.debitAuthId, first.debitAuthId)
        assert.deepStrictEqual(again.limit, { minorUnits: 30000, currency: "USD" })
        assert.strictEqual(again.status, "Active")
        assert.lengthOf(yield* DebitAuths.list(partnerId, payer), 1)
      }),
    ),
  )

  it.effect("a limit of zero, a negative limit or too many decimals is refused on the limit", () =>
    scenario(
      Effect.gen(function* () {
        assert.deepStrictEqual(fieldsOf(yield* Effect.flip(set(acme, usd(0)))), ["limit"])
        assert.deepStrictEqual(fieldsOf(yield* Effect.flip(set(acme, usd(-5)))), ["limit.value"])
        assert.deepStrictEqual(fieldsOf(yield* Effect.flip(set(acme, usd(1.234)))), ["limit.value"])
        assert.lengthOf(yield* DebitAuths.list(partnerId, payer), 0)
      }),
    ),
  )

  it.effect("a company of another partner, or an unknown one, is not found", () =>
    scenario(
      Effect.gen(function* () {
        const foreign = yield* Effect.flip(set(foreignCompany))
        const unknown = yield* Effect.flip(set(Ids.CompanyId.make("c0000000-0000-4000-8000-0000000000ff")))
        assert.deepStrictEqual(foreign, unknown)
        assert.strictEqual(foreign._tag, "NotFound")
      }),
    ),
  )

  it.effect("a customer of another partner is not found", () =>
    scenario(
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          DebitAuths.set({
            partnerId: otherPartnerId,
            registrationId: payer,
            companyId: foreignCompany,
            limit: usd(5),
          }),
        )
        assert.deepStrictEqual(error, new NotFound({ entity: "Customer" }))
      }),
    ),
  )
})

describe("updating a debit authorization", () => {
  it.effect("disables, enables and changes the limit; both in one call", () =>
    scenario(
      Effect.gen(function* () {
        const { debitAuthId } = yield* set(acme)
        const disabled = yield* DebitAuths.update({ partnerId, registrationId: payer, debitAuthId, enabled: false })
        assert.strictEqual(disabled.status, "Disabled")
        assert.isFalse(disabled.enabled)
        const both = yield* DebitAuths.update({
          partnerId,
          registrationId: payer,
          debitAuthId,
          enabled: true,
          limit: { value: 80, currencyCode: "EUR" },
        })
        assert.strictEqual(both.status, "Active")
        assert.deepStrictEqual(both.limit, { minorUnits: 8000, currency: "EUR" })
      }),
    ),
  )

  it.effect("an update with neither limit nor enabled is refused naming both fields", () =>
    scenario(
      Effect.gen(function* () {
        const { debitAuthId } = yield* set(acme)
        const error = yield* Effect.flip(DebitAuths.update({ partnerId, registrationId: payer, debitAuthId }))
        assert.deepStrictEqual(fieldsOf(error), ["limit", "enabled"])
      }),
    ),
  )

  it.effect("a zero limit is refused and nothing changes (not even enabled)", () =>
    scenario(
      Effect.gen(function* () {
        const { debitAuthId } = yield* set(acme)
        const error = yield* Effect.flip(
          DebitAuths.update({ partnerId, registrationId: payer, debitAuthId, limit: usd(0), enabled: false }),
        )
        assert.deepStrictEqual(fieldsOf(error), ["limit"])
        const [item] = yield* DebitAuths.list(partnerId, payer)
        assert.strictEqual(item?.status, "Active")
      }),
    ),
  )

  it.effect("another payer's authorization, or another partner's, is not found", () =>
    scenario(
      Effect.gen(function* () {
        const { debitAuthId } = yield* set(acme)
        const byOtherPayer = yield* Effect.flip(
          DebitAuths.update({ partnerId, registrationId: otherPayer, debitAuthId, enabled: false }),
        )
        const byOtherPartner = yield* Effect.flip(
          DebitAuths.update({ partnerId: otherPartnerId, registrationId: payer, debitAuthId, enabled: false }),
        )
        assert.strictEqual(byOtherPayer._tag, "NotFound")
        assert.strictEqual(byOtherPartner._tag, "NotFound")
      }),
    ),
  )
})

describe("reading debit authorizations", () => {
  it.effect("the customer's list has every authorization, oldest first, with the company name", () =>
    scenario(
      Effect.gen(function* () {
        const first = yield* set(acme, usd(100))
        yield* TestClock.adjust("1 second")
        const second = yield* set(globex, usd(20))
        yield* DebitAuths.update({ partnerId, registrationId: payer, debitAuthId: second.debitAuthId, enabled: false })
        yield* set(acme, usd(7), otherPayer)
        const list = yield* DebitAuths.list(partnerId, payer)
        assert.deepStrictEqual(
          list.map((item) => [item.debitAuthId, item.companyName, item.status, item.enabled]),
          [
            [first.debitAuthId, "Acme Coffee", "Active", true],
            [second.debitAuthId, "Globex Water", "Disabled", false],
          ],
        )
      }),
    ),
  )

  it.effect("the partner reads a payer's only authorization without companyId", () =>
    scenario(
      Effect.gen(function* () {
        const auth = yield* set(acme, usd(42))
        const read = yield* DebitAuths.forUser(partnerId, payer)
        assert.deepStrictEqual(read, auth)
      }),
    ),
  )

  it.effect("with several authorizations companyId is required; with it, that company's is answered", () =>
    scenario(
      Effect.gen(function* () {
        yield* set(acme, usd(42))
        const globexAuth = yield* set(globex, usd(9))
        assert.deepStrictEqual(fieldsOf(yield* Effect.flip(DebitAuths.forUser(partnerId, payer))), ["companyId"])
        assert.deepStrictEqual(yield* DebitAuths.forUser(partnerId, payer, globex), globexAuth)
      }),
    ),
  )

  it.effect("no authorization, or one for another company only, is not found", () =>
    scenario(
      Effect.gen(function* () {
        assert.strictEqual((yield* Effect.flip(DebitAuths.forUser(partnerId, payer)))._tag, "NotFound")
        yield* set(acme)
        const error = yield* Effect.flip(DebitAuths.forUser(partnerId, payer, globex))
        assert.deepStrictEqual(error, new NotFound({ entity: "DebitAuth" }))
      }),
    ),
  )

  it.effect("another partner reads nothing about the payer", () =>
    scenario(
      Effect.gen(function* () {
        yield* set(acme)
        assert.strictEqual((yield* Effect.flip(DebitAuths.forUser(otherPartnerId, payer)))._tag, "NotFound")
        assert.strictEqual((yield* Effect.flip(DebitAuths.list(otherPartnerId, payer)))._tag, "NotFound")
      }),
    ),
  )
})

describe("the debit_auths read model", () => {
  type Step =
    | { readonly _tag: "set"; readonly company: 0 | 1; readonly payer: 0 | 1; readonly cents: number }
    | { readonly _tag: "enable"; readonly index: number; readonly enabled: boolean }
    | { readonly _tag: "limit"; readonly index: number; readonly cents: number }

  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({
      _tag: fc.constant("set" as const),
      company: fc.constantFrom(0 as const, 1 as const),
      payer: fc.constantFrom(0 as const, 1 as const),
      cents: fc.integer({ min: 0, max: 100_000 }),
    }),
    fc.record({ _tag: fc.constant("enable" as const), index: fc.nat(10), enabled: fc.boolean() }),
    fc.record({ _tag: fc.constant("limit" as const), index: fc.nat(10), cents: fc.integer({ min: 0, max: 100_000 }) }),
  )

  const snapshot = Effect.gen(function* () {
    const store = yield* ReadModelStore
    const page = yield* store.find(collection, { partnerId, limit: 100, order: "asc" })
    return page.items.map((item) => ({ id: item.id, data: item.data, index: item.index }))
  })

  it("rebuilding it from the log equals the live read model, and every document matches its aggregate", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), (steps) =>
        Effect.runPromise(
          scenario(
            Effect.gen(function* () {
              const ids: Array<Ids.DebitAuthId> = []
              for (const s of steps) {
                const registrationId = s._tag === "set" ? [payer, otherPayer][s.payer]! : payer
                const debitAuthId = s._tag === "set" ? undefined : ids[s.index % Math.max(ids.length, 1)]
                const outcome =
                  s._tag === "set"
                    ? set([acme, globex][s.company]!, usd(s.cents / 100), registrationId)
                    : debitAuthId === undefined
                      ? Effect.succeed(undefined)
                      : DebitAuths.update({
                          partnerId,
                          registrationId: payer,
                          debitAuthId,
                          ...(s._tag === "enable" ? { enabled: s.enabled } : { limit: usd(s.cents / 100) }),
                        })
                const result = yield* Effect.result(outcome)
                if (
                  result._tag === "Success" &&
                  result.success !== undefined &&
                  !ids.includes(result.success.debitAuthId)
                ) {
                  ids.push(result.success.debitAuthId)
                }
                yield* TestClock.adjust("1 second")
              }
              const live = yield* snapshot
              yield* EventPipeline.rebuild([projection])
              const rebuilt = yield* snapshot
              assert.deepStrictEqual(rebuilt, live)
              // one authorization per payer and company
              const pairs = live.map((doc) => `${doc.index.keys.registrationId}/${doc.index.keys.companyId}`)
              assert.strictEqual(new Set(pairs).size, pairs.length)
              for (const doc of live) {
                const { state } = yield* CommandHandler.load(DebitAuth.aggregate, doc.id)
                const data = doc.data as { status: string; limit: unknown }
                assert.strictEqual(data.status, DebitAuth.status(state))
                assert.deepStrictEqual(data.limit, DebitAuth.limitInForce(state))
              }
            }),
          ).pipe(Effect.provide(IdGenerator.layerRandom), Effect.provide(TestClock.layer())),
        ),
      ),
      seeded({ numRuns: 30 }),
    )
  })
})
