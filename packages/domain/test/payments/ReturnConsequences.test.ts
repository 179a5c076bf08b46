/**
 * What an ACH return does beyond its transfer (packages/domain/docs/ReturnConsequences.md): the
 * groups of codes, the commands each group issues (`ReturnConsequences.reactionsTo`), and the rule
 * of each aggregate that receives them, given/when/then; a property: after an unauthorized return,
 * no automatic collection from that payer to that company is authorized without a new
 * authorization.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import fc from "fast-check"
import * as CharityTransaction from "../../src/cards-and-charity/CharityTransaction.ts"
import * as Customer from "../../src/customers/Customer.ts"
import type { CalendarDate } from "../../src/kernel/CalendarDate.ts"
import { type Decider, fold } from "../../src/kernel/Decider.ts"
import type {
  BankAccountId,
  CompanyId,
  ConsentId,
  DebitAuthId,
  PartnerId,
  PaymentPlanId,
  PaymentRequestId,
  RegistrationId,
} from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as DebitAuth from "../../src/payments/DebitAuth.ts"
import * as PaymentRequest from "../../src/payments/PaymentRequest.ts"
import * as ReturnCodes from "../../src/payments/ReturnCodes.ts"
import * as ReturnConsequences from "../../src/payments/ReturnConsequences.ts"
import * as Consent from "../../src/plans/Consent.ts"
import * as ConsentAnswerPolicy from "../../src/plans/ConsentAnswerPolicy.ts"
import * as PaymentPlan from "../../src/plans/PaymentPlan.ts"
import { DeciderSpecification, PropertyParams } from "../../src/testing/index.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(2026112837)

const partnerId = "1e8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a61" as PartnerId
const companyId = "2e8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a62" as CompanyId
const otherCompanyId = "2e8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a63" as CompanyId
const registrationId = "3e8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a64" as RegistrationId
const debitAuthId = "4e8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a65" as DebitAuthId
const consentId = "5e8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a66" as ConsentId
const paymentPlanId = "6e8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a67" as PaymentPlanId
const accountA = "7e8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a68" as BankAccountId
const accountB = "7e8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a69" as BankAccountId
const paymentRequestId = "8e8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6a" as PaymentRequestId
const giftId = "9e8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6b"
const tokenId = "ae8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6c"
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const returnedAt = DateTime.makeUnsafe("2026-03-05T10:00:00.000Z")
const usd = (minorUnits: number) => Money.make(minorUnits, "USD")

const debit = (returnCode: string, extra: Partial<ReturnConsequences.ReturnedDebit> = {}) => ({
  returnCode,
  companyId,
  payerRegistrationId: registrationId,
  bankAccountId: accountA,
  ...extra,
})

describe("the return codes", () => {
  it("the unauthorized group is exactly the codes the table marks unauthorized", () => {
    const marked = ReturnCodes.codes.filter((code) => ReturnCodes.table[code].unauthorized)
    assert.deepStrictEqual([...ReturnConsequences.unauthorizedCodes].sort(), [...marked].sort())
  })
  it("each code belongs to one group; the others concern the debit alone", () => {
    for (const code of ReturnConsequences.unauthorizedCodes)
      assert.strictEqual(ReturnConsequences.groupOf(code), "Unauthorized")
    for (const code of ReturnConsequences.accountLevelCodes)
      assert.strictEqual(ReturnConsequences.groupOf(code), "AccountLevel")
    for (const code of ["R01", "R08", "R09", "R99"]) assert.strictEqual(ReturnConsequences.groupOf(code), "DebitOnly")
  })
})

describe("a returned debit", () => {
  const found = { debitAuthId, acceptedConsentIds: [consentId] }
  it("an unauthorized return revokes the debit authorization, every accepted consent, the gift, and autopay for the company", () => {
    const issued = ReturnConsequences.reactionsTo(debit("R10", { charityTransactionId: giftId }), found, returnedAt)
    assert.deepStrictEqual(
      issued.map((reaction) => [reaction._tag, reaction.id, reaction.command._tag]),
      [
        ["DebitAuth", debitAuthId, "RevokeDebitAuth"],
        ["Consent", consentId, "RevokeConsentOnReturn"],
        ["CharityTransaction", giftId, "CancelRecurringGift"],
        ["Customer", registrationId, "RevokeAutoPay"],
      ],
    )
  })
  it("an account-level return makes the debited account unusable and touches no authorization", () => {
    const issued = ReturnConsequences.reactionsTo(debit("R03"), found, returnedAt)
    assert.deepStrictEqual(issued, [
      {
        _tag: "Customer",
        id: registrationId,
        command: {
          _tag: "MarkBankAccountUnusable",
          bankAccountId: accountA,
          returnCode: "R03",
          reason: ReturnCodes.describe("R03"),
          at: returnedAt,
        },
      },
    ])
  })
  it("any other code concerns the debit alone", () => {
    assert.deepStrictEqual(ReturnConsequences.reactionsTo(debit("R01"), found, returnedAt), [])
  })
  it("a debit that names no payer issues nothing", () => {
    const { payerRegistrationId: _payer, ...anonymous } = debit("R10")
    assert.deepStrictEqual(ReturnConsequences.reactionsTo(anonymous, found, returnedAt), [])
  })
})

const debitAuths = DeciderSpecification.forAggregate(DebitAuth.aggregate)
const parties = { debitAuthId, partnerId, companyId, registrationId }
const wasSet = DebitAuth.DebitAuthSet.make({ ...parties, limit: usd(50_000), at })
const revoke: DebitAuth.RevokeDebitAuth = {
  _tag: "RevokeDebitAuth",
  returnCode: "R10",
  reason: ReturnCodes.describe("R10"),
  at: returnedAt,
}
const wasRevoked = DebitAuth.DebitAuthRevoked.make({
  ...parties,
  returnCode: "R10",
  reason: ReturnCodes.describe("R10"),
  at: returnedAt,
})
const authorize: DebitAuth.AuthorizeDebit = {
  _tag: "AuthorizeDebit",
  paymentRequestId,
  companyId,
  amount: usd(1_000),
  at: returnedAt,
}

describe("an Active debit authorization", () => {
  it("an unauthorized return revokes it", () => {
    debitAuths.given([wasSet]).when(revoke).then([wasRevoked])
  })
})

describe("a Disabled debit authorization", () => {
  it("an unauthorized return revokes it too", () => {
    const disabled = DebitAuth.DebitAuthDisabled.make({ ...parties, at })
    debitAuths.given([wasSet, disabled]).when(revoke).then([wasRevoked])
  })
})

describe("a Revoked debit authorization", () => {
  it("authorizes no debit, saying which return revoked it", () => {
    debitAuths.given([wasSet, wasRevoked]).when(authorize).thenFails({
      _tag: "RuleViolated",
      code: "DEBIT_AUTH_REVOKED",
      reason: "the debit authorization was revoked after an unauthorized return (R10): the payer must set a new one",
    })
  })
  it("disabling it changes nothing (it stays Revoked)", () => {
    debitAuths.given([wasSet, wasRevoked]).when({ _tag: "DisableDebitAuth", at: returnedAt }).thenNothingHappens()
  })
  it("cannot be enabled or changed: only a new authorization restores it", () => {
    debitAuths
      .given([wasSet, wasRevoked])
      .when({ _tag: "EnableDebitAuth", at: returnedAt })
      .thenFails({ _tag: "RuleViolated", code: "DEBIT_AUTH_REVOKED" })
    debitAuths
      .given([wasSet, wasRevoked])
      .when({ _tag: "UpdateDebitAuthLimit", limit: usd(9_000), at: returnedAt })
      .thenFails({ _tag: "RuleViolated", code: "DEBIT_AUTH_REVOKED" })
  })
  it("a new authorization by the payer sets it anew, Active", () => {
    const again = DebitAuth.DebitAuthSet.make({ ...parties, limit: usd(2_000), at: returnedAt })
    debitAuths
      .given([wasSet, wasRevoked])
      .when({ _tag: "SetDebitAuth", ...parties, limit: usd(2_000), at: returnedAt })
      .then([again])
  })
  it("a second return changes nothing", () => {
    debitAuths.given([wasSet, wasRevoked]).when(revoke).thenNothingHappens()
  })
})

describe("no debit authorization", () => {
  it("an unauthorized return changes nothing (there is nothing to revoke)", () => {
    debitAuths.given([]).when(revoke).thenNothingHappens()
  })
})

const consents = DeciderSpecification.forAggregate(Consent.aggregate)
const consentIds = { consentId, paymentPlanId, partnerId, companyId, payerRegistrationId: registrationId }
const requested: Consent.Event = {
  _tag: "ConsentRequested",
  ...consentIds,
  amount: usd(2_500),
  frequency: "Monthly",
  at,
}
const accepted: Consent.Event = { _tag: "ConsentAccepted", ...consentIds, bankAccountId: accountA, at }
const revokeConsent: Consent.RevokeConsentOnReturn = {
  _tag: "RevokeConsentOnReturn",
  consentId,
  registrationId,
  returnCode: "R07",
  at: returnedAt,
}

describe("an Accepted consent", () => {
  it("an unauthorized return revokes it, naming the code", () => {
    consents
      .given([requested, accepted])
      .when(revokeConsent)
      .then([{ _tag: "ConsentRevoked", ...consentIds, bankAccountId: accountA, returnCode: "R07", at: returnedAt }])
  })
})

describe("a Pending consent", () => {
  it("an unauthorized return leaves it Pending (it authorizes nothing yet)", () => {
    consents.given([requested]).when(revokeConsent).thenNothingHappens()
  })
})

const plans = DeciderSpecification.forAggregate(PaymentPlan.aggregate)
const planIds = { paymentPlanId, partnerId, companyId }
const planCreated: PaymentPlan.Event = {
  _tag: "PaymentPlanCreated",
  ...planIds,
  consentId,
  payerRegistrationId: registrationId,
  amount: usd(2_500),
  frequency: "Monthly",
  recurrenceInterval: 1,
  startDate: "2026-03-10" as CalendarDate,
  numberOfPayments: 3,
  at,
}
const planConsentAccepted: PaymentPlan.Event = { _tag: "PaymentPlanConsentAccepted", ...planIds, consentId, at }
const planActivated: PaymentPlan.Event = { _tag: "PaymentPlanActivated", ...planIds, skippedDueDates: [], at }

describe("an Active plan whose consent an unauthorized return revoked", () => {
  it("is Cancelled with the reason UnauthorizedReturn", () => {
    plans
      .given([planCreated, planConsentAccepted, planActivated])
      .when({
        _tag: "RecordConsentWithdrawn",
        paymentPlanId,
        consentId,
        withdrawal: "Revoked",
        returnCode: "R07",
        at: returnedAt,
      })
      .then([
        {
          _tag: "PaymentPlanConsentWithdrawn",
          ...planIds,
          consentId,
          withdrawal: "Revoked",
          at: returnedAt,
        },
        { _tag: "PaymentPlanCancelled", ...planIds, reason: "UnauthorizedReturn", at: returnedAt },
      ])
  })
})

const customers = DeciderSpecification.forAggregate(Customer.aggregate)
const customer = { registrationId, partnerId }
const checking: Customer.LinkedBankAccount = {
  bankAccountId: accountA,
  institutionId: "ins_1",
  name: "Checking",
  mask: "0000",
  type: "checking",
}
const savings: Customer.LinkedBankAccount = { ...checking, bankAccountId: accountB, name: "Savings", mask: "1111" }
const registered = Customer.CustomerRegistered.make({ ...customer, phoneNumber: "+14155550123", at })
const sessionOpened = Customer.BankLinkSessionOpened.make({ ...customer, tokenId, expiration: returnedAt, at })
const linked = Customer.BankAccountsLinked.make({ ...customer, tokenId, accounts: [checking, savings], at })
const defaultSet = Customer.DefaultBankAccountSet.make({ ...customer, bankAccountId: accountA, at })
const withAccounts = [registered, sessionOpened, linked, defaultSet]
const markUnusable: Customer.MarkBankAccountUnusable = {
  _tag: "MarkBankAccountUnusable",
  bankAccountId: accountA,
  returnCode: "R03",
  reason: ReturnCodes.describe("R03"),
  at: returnedAt,
}
const wasUnusable = Customer.BankAccountUnusable.make({
  ...customer,
  bankAccountId: accountA,
  returnCode: "R03",
  reason: ReturnCodes.describe("R03"),
  at: returnedAt,
})
const autoPayRevoked = Customer.AutoPayRevoked.make({ ...customer, companyId, returnCode: "R10", at: returnedAt })

describe("a customer with linked accounts, one designated for autopay", () => {
  it("an account-level return makes the account unusable", () => {
    customers.given(withAccounts).when(markUnusable).then([wasUnusable])
  })
  it("an unusable account is no longer the autopay account, and naming it is BANK_ACCOUNT_UNUSABLE", () => {
    const state = fold(Customer.aggregate, [...withAccounts, wasUnusable])
    assert.isUndefined(Customer.defaultBankAccount(state))
    assert.strictEqual(Customer.bankAccountRefusal(state, accountA)?.code, "BANK_ACCOUNT_UNUSABLE")
    assert.isUndefined(Customer.bankAccountRefusal(state, accountB))
  })
  it("linking the account again makes it usable", () => {
    const relinked = Customer.BankAccountsLinked.make({ ...customer, tokenId, accounts: [checking], at: returnedAt })
    const state = fold(Customer.aggregate, [...withAccounts, wasUnusable, relinked])
    assert.isUndefined(Customer.bankAccountRefusal(state, accountA))
  })
  it("a second account-level return of the account changes nothing", () => {
    customers
      .given([...withAccounts, wasUnusable])
      .when(markUnusable)
      .thenNothingHappens()
  })
  it("an unauthorized return turns autopay off for that company only", () => {
    customers
      .given(withAccounts)
      .when({ _tag: "RevokeAutoPay", companyId, returnCode: "R10", at: returnedAt })
      .then([autoPayRevoked])
    const state = fold(Customer.aggregate, [...withAccounts, autoPayRevoked])
    assert.isFalse(Customer.autoPayAllowedFor(state, companyId))
    assert.isTrue(Customer.autoPayAllowedFor(state, otherCompanyId))
  })
  it("designating an autopay account again authorizes autopay anew", () => {
    const designated = Customer.DefaultBankAccountSet.make({ ...customer, bankAccountId: accountB, at: returnedAt })
    const state = fold(Customer.aggregate, [...withAccounts, autoPayRevoked, designated])
    assert.isTrue(Customer.autoPayAllowedFor(state, companyId))
  })
})

describe("a charity transaction that is not a recurring gift", () => {
  it("an unauthorized return of a collection has nothing to stop", () => {
    const gift = CharityTransaction.aggregate
    const state = gift.initialState
    const decision = gift.decide(
      { _tag: "CancelRecurringGift", charityTransactionId: giftId as never, by: "UnauthorizedReturn", at: returnedAt },
      state,
    )
    assert.isTrue(decision._tag === "Success" && decision.success.length === 0)
  })
})

// ---------------------------------------------------------------------------
// Property

/** Applies a command when the decider accepts it (a refused one changes nothing). */
const tryApply = <C, E, S>(decider: Decider<C, E, S, unknown>, state: S, command: C): S => {
  const decision = decider.decide(command, state)
  return decision._tag === "Success" ? decision.success.reduce(decider.evolve, state) : state
}

const debitAuthCommand = fc.oneof(
  fc
    .integer({ min: 1, max: 100_000 })
    .map((m): DebitAuth.Command => ({ _tag: "UpdateDebitAuthLimit", limit: usd(m), at })),
  fc.constant<DebitAuth.Command>({ _tag: "EnableDebitAuth", at }),
  fc.constant<DebitAuth.Command>({ _tag: "DisableDebitAuth", at }),
)

describe("after an unauthorized return", () => {
  it("no automatic collection from that payer to that company is authorized without a new authorization", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ReturnConsequences.unauthorizedCodes),
        fc.integer({ min: 1, max: 100_000 }),
        fc.array(debitAuthCommand, { maxLength: 6 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 200_000 }),
        (returnCode, limit, history, consentAccepted, attempt) => {
          // Before: the payer's authorizations for the company, in any state.
          let debitAuth = tryApply(DebitAuth.aggregate, DebitAuth.initialState, {
            _tag: "SetDebitAuth",
            ...parties,
            limit: usd(limit),
            at,
          })
          for (const command of history) debitAuth = tryApply(DebitAuth.aggregate, debitAuth, command)
          let consent = fold(Consent.aggregate, consentAccepted ? [requested, accepted] : [requested])
          let plan = fold(
            PaymentPlan.aggregate,
            consentAccepted ? [planCreated, planConsentAccepted, planActivated] : [planCreated],
          )
          let payer = fold(Customer.aggregate, withAccounts)

          // The return, and every command it issues, with the consent's policy to its plan.
          const found = { debitAuthId, acceptedConsentIds: Consent.statusOf(consent) === "Accepted" ? [consentId] : [] }
          for (const reaction of ReturnConsequences.reactionsTo(debit(returnCode), found, returnedAt)) {
            switch (reaction._tag) {
              case "DebitAuth":
                debitAuth = tryApply(DebitAuth.aggregate, debitAuth, reaction.command)
                break
              case "Consent": {
                const decision = Consent.aggregate.decide(reaction.command, consent)
                if (decision._tag === "Success")
                  for (const event of decision.success) {
                    consent = Consent.aggregate.evolve(consent, event)
                    const command = ConsentAnswerPolicy.consentPolicy(event)
                    if (command !== undefined) plan = tryApply(PaymentPlan.aggregate, plan, command)
                  }
                break
              }
              case "Customer":
                payer = tryApply(Customer.aggregate, payer, reaction.command)
                break
              case "CharityTransaction":
                break
            }
          }

          // A debit under the debit authorization is refused, whatever its amount.
          const debitDecision = DebitAuth.aggregate.decide({ ...authorize, amount: usd(attempt) }, debitAuth)
          assert.strictEqual(debitDecision._tag, "Failure")
          // The plan collects no instalment.
          const collected = PaymentPlan.aggregate.decide(
            {
              _tag: "CollectInstalment",
              paymentPlanId,
              dueDate: "2026-03-10" as CalendarDate,
              paymentRequestId,
              at: returnedAt,
            },
            plan,
          )
          assert.strictEqual(collected._tag, "Failure")
          // Autopay of the company is skipped.
          assert.isFalse(Customer.autoPayAllowedFor(payer, companyId))
          const request = { amount: usd(attempt), autoPayLimit: usd(200_000) } as PaymentRequest.RequestDetails
          assert.strictEqual(
            PaymentRequest.autoCollectionRefusal(request, {
              parties: { companyStatus: "Verified", payerKyc: "Verified" },
              autoPayRevoked: !Customer.autoPayAllowedFor(payer, companyId),
            }),
            "AutoPayRevoked",
          )
        },
      ),
      seeded(),
    )
  })
})
