import { assert, describe, it } from "@effect/vitest"
import { DateTime, Schema } from "effect"
import fc from "fast-check"
import { fold } from "../../src/kernel/Decider.ts"
import type { CompanyId, DebitAuthId, PartnerId, PaymentRequestId, RegistrationId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as DebitAuth from "../../src/payments/DebitAuth.ts"
import { DeciderSpecification, PropertyParams } from "../../src/testing/index.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(2026112637)

const spec = DeciderSpecification.forAggregate(DebitAuth.aggregate)

const debitAuthId = "0b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a60" as DebitAuthId
const partnerId = "1b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a61" as PartnerId
const companyId = "2b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a62" as CompanyId
const otherCompanyId = "2b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a63" as CompanyId
const registrationId = "3b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a64" as RegistrationId
const paymentRequestId = "4b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a65" as PaymentRequestId
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const later = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")

const usd = (minorUnits: number) => Money.make(minorUnits, "USD")
const parties = { debitAuthId, partnerId, companyId, registrationId }

const set = (limit = usd(50_000)): DebitAuth.SetDebitAuth => ({ _tag: "SetDebitAuth", ...parties, limit, at })
const wasSet = (limit = usd(50_000)) => DebitAuth.DebitAuthSet.make({ ...parties, limit, at })
const wasDisabled = DebitAuth.DebitAuthDisabled.make({ ...parties, at })
const authorize = (amount: Money.Money, company = companyId): DebitAuth.AuthorizeDebit => ({
  _tag: "AuthorizeDebit",
  paymentRequestId,
  companyId: company,
  amount,
  at: later,
})

describe("no debit authorization yet", () => {
  it("set creates an Active authorization with the limit per debit", () => {
    spec.given([]).when(set()).then([wasSet()])
    spec
      .given([])
      .when(set())
      .thenState((state) => {
        assert.strictEqual(DebitAuth.status(state), "Active")
        assert.isTrue(DebitAuth.isEnabled(state))
        assert.deepStrictEqual(DebitAuth.limitInForce(state), usd(50_000))
      })
  })
  it("set refuses a zero limit, naming the field", () => {
    spec
      .given([])
      .when(set(usd(0)))
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "limit", message: "must be greater than zero" }] })
  })
  it("set refuses a limit that is not whole minor units", () => {
    spec
      .given([])
      .when(set({ minorUnits: 10.5, currency: "USD" }))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "limit", message: "must be a whole number of minor units of a supported currency" }],
      })
  })
  it("every other command is refused as NotFound", () => {
    const commands: ReadonlyArray<DebitAuth.Command> = [
      { _tag: "UpdateDebitAuthLimit", limit: usd(1), at },
      { _tag: "EnableDebitAuth", at },
      { _tag: "DisableDebitAuth", at },
      authorize(usd(1)),
    ]
    for (const command of commands) spec.given([]).when(command).thenFails({ _tag: "NotFound", entity: "DebitAuth" })
  })
})

describe("an Active debit authorization", () => {
  it("setting it again identically changes nothing", () => {
    spec.given([wasSet()]).when(set()).thenNothingHappens()
  })
  it("setting it again with another limit is refused as AlreadyExists (update the limit instead)", () => {
    spec
      .given([wasSet()])
      .when(set(usd(10)))
      .thenFails({ _tag: "AlreadyExists", entity: "DebitAuth" })
  })
  it("update limit records the previous and the new limit", () => {
    spec
      .given([wasSet()])
      .when({ _tag: "UpdateDebitAuthLimit", limit: usd(20_000), at: later })
      .then([
        DebitAuth.DebitAuthLimitUpdated.make({ ...parties, previousLimit: usd(50_000), limit: usd(20_000), at: later }),
      ])
  })
  it("update to the same limit changes nothing", () => {
    spec
      .given([wasSet()])
      .when({ _tag: "UpdateDebitAuthLimit", limit: usd(50_000), at })
      .thenNothingHappens()
  })
  it("update to a zero limit is refused", () => {
    spec
      .given([wasSet()])
      .when({ _tag: "UpdateDebitAuthLimit", limit: usd(0), at })
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "limit", message: "must be greater than zero" }] })
  })
  it("disable moves it to Disabled", () => {
    spec.given([wasSet()]).when({ _tag: "DisableDebitAuth", at }).then([wasDisabled])
  })
  it("enable changes nothing", () => {
    spec.given([wasSet()]).when({ _tag: "EnableDebitAuth", at }).thenNothingHappens()
  })
  it("authorizes a debit equal to the limit", () => {
    spec
      .given([wasSet()])
      .when(authorize(usd(50_000)))
      .then([
        DebitAuth.DebitAuthorized.make({
          ...parties,
          paymentRequestId,
          amount: usd(50_000),
          limit: usd(50_000),
          at: later,
        }),
      ])
  })
  it("refuses a debit one cent above the limit with DEBIT_LIMIT_EXCEEDED", () => {
    spec
      .given([wasSet()])
      .when(authorize(usd(50_001)))
      .thenFails({
        _tag: "RuleViolated",
        code: "DEBIT_LIMIT_EXCEEDED",
        reason: "the debit of 500.01 exceeds the limit of 500.00 USD",
      })
  })
  it("refuses a debit in another currency with CURRENCY_MISMATCH", () => {
    spec
      .given([wasSet()])
      .when(authorize(Money.make(100, "EUR")))
      .thenFails({
        _tag: "RuleViolated",
        code: "CURRENCY_MISMATCH",
        reason: "the debit is in EUR but the limit is in USD",
      })
  })
  it("refuses a debit for another company", () => {
    spec
      .given([wasSet()])
      .when(authorize(usd(100), otherCompanyId))
      .thenFails({
        _tag: "RuleViolated",
        code: "DEBIT_AUTH_COMPANY_MISMATCH",
        reason: "the debit authorization was given to another company",
      })
  })
  it("refuses a zero debit", () => {
    spec
      .given([wasSet()])
      .when(authorize(usd(0)))
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "amount", message: "must be greater than zero" }] })
  })
  it("the limit in force is the latest one", () => {
    spec
      .given([
        wasSet(),
        DebitAuth.DebitAuthLimitUpdated.make({ ...parties, previousLimit: usd(50_000), limit: usd(100), at }),
      ])
      .when(authorize(usd(101)))
      .thenFails({ _tag: "RuleViolated", code: "DEBIT_LIMIT_EXCEEDED" })
  })
})

describe("a debit already authorized for a payment request", () => {
  const authorized = DebitAuth.DebitAuthorized.make({
    ...parties,
    paymentRequestId,
    amount: usd(700),
    limit: usd(50_000),
    at,
  })
  it("asking again with the same amount changes nothing", () => {
    spec
      .given([wasSet(), authorized])
      .when(authorize(usd(700)))
      .thenNothingHappens()
  })
  it("asking again with another amount is refused", () => {
    spec
      .given([wasSet(), authorized])
      .when(authorize(usd(800)))
      .thenFails({
        _tag: "RuleViolated",
        code: "DEBIT_ALREADY_AUTHORIZED",
        reason: "a debit of 7.00 USD was already authorized for this payment request",
      })
  })
})

describe("a Disabled debit authorization", () => {
  it("refuses every debit with DEBIT_AUTH_DISABLED", () => {
    spec
      .given([wasSet(), wasDisabled])
      .when(authorize(usd(1)))
      .thenFails({ _tag: "RuleViolated", code: "DEBIT_AUTH_DISABLED", reason: "the debit authorization is disabled" })
  })
  it("enable makes it Active again", () => {
    spec
      .given([wasSet(), wasDisabled])
      .when({ _tag: "EnableDebitAuth", at })
      .then([DebitAuth.DebitAuthEnabled.make({ ...parties, at })])
  })
  it("disable changes nothing", () => {
    spec.given([wasSet(), wasDisabled]).when({ _tag: "DisableDebitAuth", at }).thenNothingHappens()
  })
  it("its limit can still be updated, and it stays Disabled", () => {
    spec
      .given([wasSet(), wasDisabled])
      .when({ _tag: "UpdateDebitAuthLimit", limit: usd(10), at })
      .thenState((state) => {
        assert.strictEqual(DebitAuth.status(state), "Disabled")
        assert.deepStrictEqual(DebitAuth.limitInForce(state), usd(10))
      })
  })
  it("setting it again is refused as AlreadyExists (enable it instead)", () => {
    spec.given([wasSet(), wasDisabled]).when(set()).thenFails({ _tag: "AlreadyExists" })
  })
})

describe("a repeated set under the same id", () => {
  const otherTerms: ReadonlyArray<[string, Partial<DebitAuth.SetDebitAuth>]> = [
    ["partner", { partnerId: "1b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6f" as PartnerId }],
    ["company", { companyId: otherCompanyId }],
    ["payer", { registrationId: "3b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6f" as RegistrationId }],
    ["limit", { limit: usd(50_001) }],
  ]
  for (const [term, overrides] of otherTerms) {
    it(`with another ${term} is refused as AlreadyExists`, () => {
      spec
        .given([wasSet()])
        .when({ ...set(), ...overrides })
        .thenFails({ _tag: "AlreadyExists", entity: "DebitAuth" })
    })
  }
})

describe("a debit authorization's status", () => {
  it("one never set has no status and no limit in force, and is not enabled", () => {
    assert.isUndefined(DebitAuth.status(DebitAuth.initialState))
    assert.isUndefined(DebitAuth.limitInForce(DebitAuth.initialState))
    assert.isFalse(DebitAuth.isEnabled(DebitAuth.initialState))
  })
  it("a Disabled one is not enabled", () => {
    assert.isFalse(DebitAuth.isEnabled(fold(DebitAuth.aggregate, [wasSet(), wasDisabled])))
  })
  it("its events are stored at version 1", () => {
    assert.strictEqual(DebitAuth.aggregate.eventVersion("DebitAuthSet"), 1)
  })
})

describe("an event that does not fit the state leaves it unchanged", () => {
  it("a limit update, an enable, a disable or a debit for an authorization never set", () => {
    spec
      .given([])
      .ignores(DebitAuth.DebitAuthLimitUpdated.make({ ...parties, previousLimit: usd(1), limit: usd(2), at }))
    spec.given([]).ignores(DebitAuth.DebitAuthEnabled.make({ ...parties, at }))
    spec.given([]).ignores(wasDisabled)
    spec
      .given([])
      .ignores(DebitAuth.DebitAuthorized.make({ ...parties, paymentRequestId, amount: usd(1), limit: usd(2), at }))
  })
  it("a revocation (an unauthorized return) of an authorization never set", () => {
    spec
      .given([])
      .ignores(DebitAuth.DebitAuthRevoked.make({ ...parties, returnCode: "R10", reason: "unauthorized", at }))
  })
})

// ---------------------------------------------------------------------------
// Properties over generated command sequences
// ---------------------------------------------------------------------------

const paymentRequestIds = [0, 1, 2, 3, 4, 5].map((n) => `5b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a7${n}` as PaymentRequestId)
const currency = fc.constantFrom<Money.CurrencyCode>("USD", "USD", "USD", "EUR")
const money = fc.record({ minorUnits: fc.integer({ min: 0, max: 2_000 }), currency })
const instant = fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }).map((ms) => DateTime.makeUnsafe(ms))

const command: fc.Arbitrary<DebitAuth.Command> = fc.oneof(
  { depthSize: "small" },
  fc
    .record({ limit: money, at: instant })
    .map(({ limit, at }): DebitAuth.Command => ({ _tag: "SetDebitAuth", ...parties, limit, at })),
  fc
    .record({ limit: money, at: instant })
    .map(({ limit, at }): DebitAuth.Command => ({ _tag: "UpdateDebitAuthLimit", limit, at })),
  instant.map((at): DebitAuth.Command => ({ _tag: "EnableDebitAuth", at })),
  instant.map((at): DebitAuth.Command => ({ _tag: "DisableDebitAuth", at })),
  fc
    .record({
      amount: money,
      at: instant,
      paymentRequestId: fc.constantFrom(...paymentRequestIds),
      companyId: fc.constantFrom(companyId, companyId, otherCompanyId),
    })
    .map((c): DebitAuth.Command => ({ _tag: "AuthorizeDebit", ...c })),
)
const commands = fc.array(command, { maxLength: 40 })

/** The facts a payer would expect, tracked from the accepted commands alone (independent of evolve). */
interface Model {
  exists: boolean
  enabled: boolean
  limit: Money.Money
  authorized: Map<string, Money.Money>
}

describe("properties of debit authorizations", () => {
  it("no debit is ever authorized above the limit in force, in another currency, or while disabled", () => {
    fc.assert(
      fc.property(commands, (sequence) => {
        let state = DebitAuth.initialState
        const model: Model = { exists: false, enabled: false, limit: usd(0), authorized: new Map() }
        for (const cmd of sequence) {
          const decision = DebitAuth.decide(cmd, state)
          if (decision._tag === "Failure") continue
          for (const event of decision.success) {
            if (event._tag === "DebitAuthorized") {
              assert.isTrue(model.exists && model.enabled, "authorized while disabled or missing")
              assert.strictEqual(event.amount.currency, model.limit.currency)
              assert.isAtMost(event.amount.minorUnits, model.limit.minorUnits)
              assert.isAbove(event.amount.minorUnits, 0)
              assert.deepStrictEqual(event.limit, model.limit)
            }
          }
          if (decision.success.length > 0) {
            if (cmd._tag === "SetDebitAuth") Object.assign(model, { exists: true, enabled: true, limit: cmd.limit })
            if (cmd._tag === "UpdateDebitAuthLimit") model.limit = cmd.limit
            if (cmd._tag === "EnableDebitAuth") model.enabled = true
            if (cmd._tag === "DisableDebitAuth") model.enabled = false
            if (cmd._tag === "AuthorizeDebit") model.authorized.set(cmd.paymentRequestId, cmd.amount)
          }
          state = fold(DebitAuth.aggregate, decision.success, state)
        }
      }),
      seeded({ numRuns: 300 }),
    )
  })

  it("a new debit within the limit of an enabled authorization of its company is always authorized", () => {
    fc.assert(
      fc.property(commands, (sequence) => {
        let state = DebitAuth.initialState
        const model: Model = { exists: false, enabled: false, limit: usd(0), authorized: new Map() }
        for (const cmd of sequence) {
          const decision = DebitAuth.decide(cmd, state)
          if (
            cmd._tag === "AuthorizeDebit" &&
            model.exists &&
            model.enabled &&
            cmd.companyId === companyId &&
            !model.authorized.has(cmd.paymentRequestId) &&
            cmd.amount.minorUnits > 0 &&
            Money.isWithin(cmd.amount, model.limit)
          ) {
            assert.strictEqual(decision._tag, "Success")
            if (decision._tag === "Success") assert.strictEqual(decision.success.length, 1)
          }
          if (decision._tag === "Failure") continue
          if (decision.success.length > 0) {
            if (cmd._tag === "SetDebitAuth") Object.assign(model, { exists: true, enabled: true, limit: cmd.limit })
            if (cmd._tag === "UpdateDebitAuthLimit") model.limit = cmd.limit
            if (cmd._tag === "EnableDebitAuth") model.enabled = true
            if (cmd._tag === "DisableDebitAuth") model.enabled = false
            if (cmd._tag === "AuthorizeDebit") model.authorized.set(cmd.paymentRequestId, cmd.amount)
          }
          state = fold(DebitAuth.aggregate, decision.success, state)
        }
      }),
      seeded({ numRuns: 300 }),
    )
  })

  it("replaying the stored (JSON-encoded) events reproduces the state", () => {
    const encode = Schema.encodeSync(DebitAuth.aggregate.events)
    const decode = Schema.decodeUnknownSync(DebitAuth.aggregate.events)
    fc.assert(
      fc.property(commands, (sequence) => {
        let state = DebitAuth.initialState
        const stored: Array<string> = []
        for (const cmd of sequence) {
          const decision = DebitAuth.decide(cmd, state)
          if (decision._tag === "Failure") continue
          for (const event of decision.success) {
            stored.push(JSON.stringify(encode(event)))
            state = DebitAuth.evolve(state, event)
          }
        }
        const replayed = fold(
          DebitAuth.aggregate,
          stored.map((json) => decode(JSON.parse(json))),
        )
        assert.deepStrictEqual(replayed, state)
      }),
      seeded({ numRuns: 200 }),
    )
  })
})

describe("a debit authorization the payer gives through a request", () => {
  const client = { ipAddress: "203.0.113.9", userAgent: "payer-app/2.0" }
  const evidence = (when: DateTime.Utc) => ({
    acceptedAt: when,
    ...client,
    text: "I authorize the company named to debit my linked bank account for its payment requests, each up to the limit I set, until I disable or change this authorization.",
    textVersion: "debit-authorization/2026-11-28",
  })
  const setThrough = { ...set(), client }
  const wasSetThrough = DebitAuth.DebitAuthSet.make({ ...parties, authorization: evidence(at), limit: usd(50_000), at })
  const latestEvidence = (state: DebitAuth.State) => (state._tag === "Initial" ? undefined : state.authorization)

  it("set records the payer's evidence: when, the client, the text and its version", () => {
    spec.given([]).when(setThrough).then([wasSetThrough])
  })
  it("a limit change records the payer's new evidence, which the authorization then holds", () => {
    const update: DebitAuth.UpdateDebitAuthLimit = {
      _tag: "UpdateDebitAuthLimit",
      limit: usd(60_000),
      client,
      at: later,
    }
    spec
      .given([wasSetThrough])
      .when(update)
      .then([
        DebitAuth.DebitAuthLimitUpdated.make({
          ...parties,
          authorization: evidence(later),
          previousLimit: usd(50_000),
          limit: usd(60_000),
          at: later,
        }),
      ])
    spec
      .given([wasSetThrough])
      .when(update)
      .thenState((state) => assert.deepStrictEqual(latestEvidence(state), evidence(later)))
  })
  it("enabling records the payer's evidence, which the authorization then holds", () => {
    const enable: DebitAuth.EnableDebitAuth = { _tag: "EnableDebitAuth", client, at: later }
    spec
      .given([wasSetThrough, wasDisabled])
      .when(enable)
      .then([DebitAuth.DebitAuthEnabled.make({ ...parties, authorization: evidence(later), at: later })])
    spec
      .given([wasSetThrough, wasDisabled])
      .when(enable)
      .thenState((state) => assert.deepStrictEqual(latestEvidence(state), evidence(later)))
  })
  it("the evidence of the latest authorization is kept when the authorization is disabled", () => {
    spec
      .given([wasSetThrough])
      .when({ _tag: "DisableDebitAuth", at: later })
      .thenState((state) => assert.deepStrictEqual(latestEvidence(state), evidence(at)))
  })
})
