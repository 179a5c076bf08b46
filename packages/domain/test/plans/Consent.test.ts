import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import fc from "fast-check"
import { fold, run } from "../../src/kernel/Decider.ts"
import type {
  BankAccountId,
  CompanyId,
  ConsentId,
  PartnerId,
  PaymentPlanId,
  RegistrationId,
} from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as AuthorizationEvidence from "../../src/payments/AuthorizationEvidence.ts"
import * as Consent from "../../src/plans/Consent.ts"
import type { ConsentEvent } from "../../src/plans/ConsentEvents.ts"
import { DeciderSpecification, PropertyParams } from "../../src/testing/index.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(2026112605)

const spec = DeciderSpecification.forAggregate(Consent.aggregate)

const consentId = "0c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a60" as ConsentId
const paymentPlanId = "1c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a61" as PaymentPlanId
const partnerId = "2c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a62" as PartnerId
const companyId = "3c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a63" as CompanyId
const payer = "4c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a64" as RegistrationId
const stranger = "4c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a65" as RegistrationId
const bankAccount = "5c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a66" as BankAccountId
const otherBankAccount = "5c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a67" as BankAccountId

const requestedAt = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const acceptedAt = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")
const declinedAt = DateTime.makeUnsafe("2026-03-03T10:00:00.000Z")

const amount = Money.make(2_500, "USD")
const ids = { consentId, paymentPlanId, partnerId, companyId, payerRegistrationId: payer }

const request = (overrides: Partial<Consent.RequestConsent> = {}): Consent.RequestConsent => ({
  _tag: "RequestConsent",
  ...ids,
  amount,
  frequency: "Monthly",
  at: requestedAt,
  ...overrides,
})
const acceptBy = (registrationId = payer, bankAccountId = bankAccount): Consent.AcceptConsent => ({
  _tag: "AcceptConsent",
  consentId,
  registrationId,
  payerKyc: "Verified",
  bankAccountId,
  at: acceptedAt,
})
const declineBy = (registrationId = payer): Consent.DeclineConsent => ({
  _tag: "DeclineConsent",
  consentId,
  registrationId,
  at: declinedAt,
})

const requested: ConsentEvent = { _tag: "ConsentRequested", ...ids, amount, frequency: "Monthly", at: requestedAt }
const accepted: ConsentEvent = { _tag: "ConsentAccepted", ...ids, bankAccountId: bankAccount, at: acceptedAt }
const declined: ConsentEvent = { _tag: "ConsentDeclined", ...ids, at: declinedAt }
const revoked: ConsentEvent = { _tag: "ConsentRevoked", ...ids, bankAccountId: bankAccount, at: declinedAt }

describe("a consent that does not exist", () => {
  it("a request creates it Pending", () => {
    spec.given([]).when(request()).then([requested])
    spec
      .given([])
      .when(request())
      .thenState((state) => assert.strictEqual(Consent.statusOf(state), "Pending"))
  })
  it("a request for a zero amount is refused, naming the field", () => {
    spec
      .given([])
      .when(request({ amount: Money.make(0, "USD") }))
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "amount", message: "must be greater than zero" }] })
  })
  it("cannot be accepted or declined: it is not found", () => {
    spec.given([]).when(acceptBy()).thenFails({ _tag: "NotFound", entity: "Consent" })
    spec.given([]).when(declineBy()).thenFails({ _tag: "NotFound", entity: "Consent" })
  })
})

describe("a Pending consent accepted through a request", () => {
  const client = { ipAddress: "203.0.113.9", userAgent: "payer-app/1.0" }
  it("records the payer's authorization, with the consent's text", () => {
    spec
      .given([requested])
      .when({ ...acceptBy(), client })
      .then([
        {
          ...accepted,
          authorization: {
            acceptedAt,
            ...client,
            text: AuthorizationEvidence.defaultTexts.Consent.text,
            textVersion: "consent/2026-11-28",
          },
        },
      ])
  })
})

describe("a Pending consent", () => {
  it("a payer whose KYC is not Verified cannot accept it (CUSTOMER_NOT_VERIFIED)", () => {
    for (const payerKyc of ["NotStarted", "Pending", "Rejected"] as const)
      spec
        .given([requested])
        .when({ ...acceptBy(), payerKyc })
        .thenFails({ _tag: "RuleViolated", code: "CUSTOMER_NOT_VERIFIED" })
  })
  it("is listed", () => {
    assert.isTrue(Consent.isListable(fold(Consent.aggregate, [requested])))
  })
  it("a repeated request with the same terms changes nothing", () => {
    spec
      .given([requested])
      .when(request({ at: acceptedAt }))
      .thenNothingHappens()
  })
  it("a request with other terms under the same id is refused as AlreadyExists", () => {
    spec
      .given([requested])
      .when(request({ amount: Money.make(9_999, "USD") }))
      .thenFails({ _tag: "AlreadyExists", entity: "Consent" })
  })
  it("acceptance by the payer moves it to Accepted with the payer's bank account", () => {
    spec.given([requested]).when(acceptBy()).then([accepted])
    spec
      .given([requested])
      .when(acceptBy())
      .thenState((state) => {
        assert.strictEqual(state._tag, "Accepted")
        if (state._tag === "Accepted") assert.strictEqual(state.bankAccountId, bankAccount)
      })
  })
  it("decline by the payer moves it to Declined", () => {
    spec.given([requested]).when(declineBy()).then([declined])
  })
  it("to anyone but its payer it does not exist", () => {
    spec.given([requested]).when(acceptBy(stranger)).thenFails({ _tag: "NotFound", entity: "Consent" })
    spec.given([requested]).when(declineBy(stranger)).thenFails({ _tag: "NotFound", entity: "Consent" })
  })
})

describe("an Accepted consent", () => {
  it("is listed", () => {
    assert.isTrue(Consent.isListable(fold(Consent.aggregate, [requested, accepted])))
  })
  it("accepting again with the same bank account changes nothing", () => {
    spec.given([requested, accepted]).when(acceptBy()).thenNothingHappens()
  })
  it("accepting again with another bank account is refused", () => {
    spec.given([requested, accepted]).when(acceptBy(payer, otherBankAccount)).thenFails({
      _tag: "IllegalTransition",
      entity: "Consent",
      state: "Accepted",
      command: "AcceptConsent",
      reason: "the consent is already accepted with another bank account",
    })
  })
  it("decline by the payer revokes it (there is no separate revoke)", () => {
    spec.given([requested, accepted]).when(declineBy()).then([revoked])
    spec
      .given([requested, accepted])
      .when(declineBy())
      .thenState((state) => assert.strictEqual(Consent.statusOf(state), "Revoked"))
  })
  it("to anyone but its payer it does not exist", () => {
    spec.given([requested, accepted]).when(declineBy(stranger)).thenFails({ _tag: "NotFound", entity: "Consent" })
    spec.given([requested, accepted]).when(acceptBy(stranger)).thenFails({ _tag: "NotFound", entity: "Consent" })
  })
})

describe("a Declined consent", () => {
  it("is not listed", () => {
    assert.isFalse(Consent.isListable(fold(Consent.aggregate, [requested, declined])))
    assert.isFalse(Consent.isListable("Declined"))
  })
  it("cannot be accepted", () => {
    spec.given([requested, declined]).when(acceptBy()).thenFails({
      _tag: "IllegalTransition",
      entity: "Consent",
      state: "Declined",
      command: "AcceptConsent",
      reason: "a Declined consent cannot be accepted",
    })
  })
  it("declining again changes nothing", () => {
    spec.given([requested, declined]).when(declineBy()).thenNothingHappens()
  })
  it("a repeated request changes nothing and does not reopen it", () => {
    spec.given([requested, declined]).when(request()).thenNothingHappens()
  })
})

describe("a Revoked consent", () => {
  it("is not listed", () => {
    assert.isFalse(Consent.isListable(fold(Consent.aggregate, [requested, accepted, revoked])))
    assert.isFalse(Consent.isListable("Revoked"))
  })
  it("cannot be accepted again", () => {
    spec.given([requested, accepted, revoked]).when(acceptBy()).thenFails({
      _tag: "IllegalTransition",
      entity: "Consent",
      state: "Revoked",
      command: "AcceptConsent",
      reason: "a Revoked consent cannot be accepted",
    })
  })
  it("declining again changes nothing", () => {
    spec.given([requested, accepted, revoked]).when(declineBy()).thenNothingHappens()
  })
  it("to anyone but its payer it does not exist", () => {
    spec.given([requested, accepted, revoked]).when(declineBy(stranger)).thenFails({ _tag: "NotFound" })
  })
})

// ---------------------------------------------------------------------------
// Properties over generated command sequences

const arbitraryCommand: fc.Arbitrary<Consent.Command> = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom(request(), request({ amount: Money.make(1, "USD") })) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.constantFrom(payer, payer, payer, stranger), fc.constantFrom(bankAccount, otherBankAccount))
      .map(([who, account]) => acceptBy(who, account)),
  },
  { weight: 3, arbitrary: fc.constantFrom(payer, payer, stranger).map((who) => declineBy(who)) },
)

/** A history: the consent is requested, then any commands follow. */
const arbitraryCommands = fc.array(arbitraryCommand, { maxLength: 12 }).map((rest) => [request(), ...rest])

interface Step {
  readonly before: Consent.State
  readonly command: Consent.Command
  readonly decision: ReturnType<typeof Consent.decide>
  readonly after: Consent.State
}

/** Runs the commands in order; refused commands leave the state as it was. */
const play = (commands: ReadonlyArray<Consent.Command>) => {
  const steps: Array<Step> = []
  const emitted: Array<ConsentEvent> = []
  let state = Consent.initialState
  for (const command of commands) {
    const decision = Consent.decide(command, state)
    const outcome = run(Consent.aggregate, command, state)
    const after = outcome._tag === "Success" ? outcome.success.state : state
    if (decision._tag === "Success") emitted.push(...decision.success)
    steps.push({ before: state, command, decision, after })
    state = after
  }
  return { steps, emitted, state }
}

const isPayerDecline = (command: Consent.Command) =>
  command._tag === "DeclineConsent" && command.registrationId === payer

describe("a repeated request under the same id", () => {
  const otherTerms: ReadonlyArray<[string, Partial<Consent.RequestConsent>]> = [
    ["consent", { consentId: "0c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6f" as ConsentId }],
    ["payment plan", { paymentPlanId: "1c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6f" as PaymentPlanId }],
    ["partner", { partnerId: "2c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6f" as PartnerId }],
    ["company", { companyId: "3c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6f" as CompanyId }],
    ["payer", { payerRegistrationId: stranger }],
    ["frequency", { frequency: "Weekly" }],
    ["amount", { amount: Money.make(2_501, "USD") }],
  ]
  for (const [term, overrides] of otherTerms) {
    it(`with another ${term} is refused as AlreadyExists, whatever the consent's state`, () => {
      for (const given of [[requested], [requested, accepted], [requested, declined]])
        spec.given(given).when(request(overrides)).thenFails({ _tag: "AlreadyExists", entity: "Consent" })
    })
  }
})

describe("a consent's status and finality", () => {
  it("a consent that does not exist has no status", () => {
    assert.isUndefined(Consent.statusOf(Consent.initialState))
  })
  it("its status is its state: Pending, Accepted, Declined, Revoked", () => {
    assert.strictEqual(Consent.statusOf(fold(Consent.aggregate, [requested])), "Pending")
    assert.strictEqual(Consent.statusOf(fold(Consent.aggregate, [requested, accepted])), "Accepted")
    assert.strictEqual(Consent.statusOf(fold(Consent.aggregate, [requested, declined])), "Declined")
    assert.strictEqual(Consent.statusOf(fold(Consent.aggregate, [requested, accepted, revoked])), "Revoked")
  })
  it("Declined and Revoked are final; Pending and Accepted are not", () => {
    assert.isTrue(Consent.isTerminal(fold(Consent.aggregate, [requested, declined])))
    assert.isTrue(Consent.isTerminal(fold(Consent.aggregate, [requested, accepted, revoked])))
    assert.isFalse(Consent.isTerminal(fold(Consent.aggregate, [requested])))
    assert.isFalse(Consent.isTerminal(fold(Consent.aggregate, [requested, accepted])))
  })
  it("its events are stored at version 1", () => {
    for (const event of [requested, accepted, declined, revoked])
      assert.strictEqual(Consent.aggregate.eventVersion(event._tag), 1)
  })
})

describe("an event that does not fit the state leaves it unchanged", () => {
  it("acceptance of a consent that is not Pending", () => {
    spec.given([]).ignores(accepted)
    spec.given([requested, declined]).ignores(accepted)
    spec.given([requested, accepted, revoked]).ignores(accepted)
  })
  it("decline of a consent that is not Pending", () => {
    spec.given([]).ignores(declined)
    spec.given([requested, accepted]).ignores(declined)
    spec.given([requested, accepted, revoked]).ignores(declined)
  })
  it("revocation of a consent that is not Accepted", () => {
    spec.given([]).ignores(revoked)
    spec.given([requested]).ignores(revoked)
    spec.given([requested, declined]).ignores(revoked)
  })
})

describe("consent rules (properties)", () => {
  it("decline of an Accepted consent yields Revoked", () => {
    let seen = 0
    fc.assert(
      fc.property(arbitraryCommands, (commands) => {
        for (const step of play(commands).steps) {
          if (step.before._tag === "Accepted" && isPayerDecline(step.command)) {
            seen++
            assert.strictEqual(step.after._tag, "Revoked")
          }
        }
      }),
      seeded({ numRuns: 200 }),
    )
    assert.isAbove(seen, 0)
  })

  it("decline of a Pending consent yields Declined", () => {
    let seen = 0
    fc.assert(
      fc.property(arbitraryCommands, (commands) => {
        for (const step of play(commands).steps) {
          if (step.before._tag === "Pending" && isPayerDecline(step.command)) {
            seen++
            assert.strictEqual(step.after._tag, "Declined")
          }
        }
      }),
      seeded({ numRuns: 200 }),
    )
    assert.isAbove(seen, 0)
  })

  it("no command moves a consent out of a terminal state", () => {
    let seen = 0
    fc.assert(
      fc.property(arbitraryCommands, (commands) => {
        for (const step of play(commands).steps) {
          if (Consent.isTerminal(step.before)) {
            seen++
            assert.strictEqual(step.after._tag, step.before._tag)
            if (step.decision._tag === "Success") assert.lengthOf(step.decision.success, 0)
          }
        }
      }),
      seeded({ numRuns: 200 }),
    )
    assert.isAbove(seen, 0)
  })

  it("only the consent's payer can change it", () => {
    fc.assert(
      fc.property(arbitraryCommands, (commands) => {
        for (const step of play(commands).steps) {
          if (step.command._tag !== "RequestConsent" && step.command.registrationId === stranger) {
            assert.strictEqual(step.decision._tag, "Failure")
            if (step.decision._tag === "Failure") assert.strictEqual(step.decision.failure._tag, "NotFound")
          }
        }
      }),
      seeded({ numRuns: 200 }),
    )
  })

  it("only Pending and Accepted consents are listed", () => {
    fc.assert(
      fc.property(arbitraryCommands, (commands) => {
        const { state } = play(commands)
        assert.strictEqual(Consent.isListable(state), state._tag === "Pending" || state._tag === "Accepted")
      }),
      seeded({ numRuns: 200 }),
    )
  })

  it("replaying the events decide emitted reproduces the state", () => {
    fc.assert(
      fc.property(arbitraryCommands, (commands) => {
        const { emitted, state } = play(commands)
        assert.deepStrictEqual(fold(Consent.aggregate, emitted), state)
      }),
      seeded({ numRuns: 200 }),
    )
  })
})
