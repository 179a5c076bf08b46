/**
 * What ACH returns and autopay designations leave on a customer, given/when/then: accounts an
 * account-level return made unusable (each with its code, until linked again), the companies an
 * unauthorized return turned autopay off for, and the evidence of the autopay designation in force
 * (kept while its account is, gone with it). Observed through the queries other areas ask
 * (`bankAccountRefusal`, `autoPayAllowedFor`, `defaultBankAccount`), what a later command decides,
 * the evidence autopay collections carry (`autopayAuthorization`) and the state's snapshot.
 * The groups of return codes and the commands they issue: `test/payments/ReturnConsequences.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Schema } from "effect"
import * as Customer from "../../src/customers/Customer.ts"
import * as AuthorizationEvidence from "../../src/kernel/AuthorizationEvidence.ts"
import { fold } from "../../src/kernel/Decider.ts"
import type { BankAccountId, CompanyId, PartnerId, RegistrationId } from "../../src/kernel/Ids.ts"
import * as ReturnCodes from "../../src/payments/ReturnCodes.ts"
import { DeciderSpecification } from "../../src/testing/index.ts"

const spec = DeciderSpecification.forAggregate(Customer.aggregate)

const partnerId = "1c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a61" as PartnerId
const registrationId = "3c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a64" as RegistrationId
const companyA = "2c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a62" as CompanyId
const companyB = "2c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a63" as CompanyId
const companyC = "2c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a65" as CompanyId
const accountA = "7c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a68" as BankAccountId
const accountB = "7c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a69" as BankAccountId
const tokenId = "ac8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6c"
const customer = { registrationId, partnerId }
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const returnedAt = DateTime.makeUnsafe("2026-03-05T10:00:00.000Z")
const client: AuthorizationEvidence.ClientContext = { ipAddress: "203.0.113.7", userAgent: "PayApp/3.2 (iOS 19)" }

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
const linked = (...accounts: Array<Customer.LinkedBankAccount>) =>
  Customer.BankAccountsLinked.make({ ...customer, tokenId, accounts, at })
const unlinked = (bankAccountId: BankAccountId) => Customer.BankAccountUnlinked.make({ ...customer, bankAccountId, at })
const withTwoAccounts = [registered, sessionOpened, linked(checking, savings)]

const markUnusable = (
  bankAccountId: BankAccountId,
  returnCode: ReturnCodes.ReturnCode,
): Customer.MarkBankAccountUnusable => ({
  _tag: "MarkBankAccountUnusable",
  bankAccountId,
  returnCode,
  reason: ReturnCodes.describe(returnCode),
  at: returnedAt,
})
const madeUnusable = (bankAccountId: BankAccountId, returnCode: ReturnCodes.ReturnCode) =>
  Customer.BankAccountUnusable.make({
    ...customer,
    bankAccountId,
    returnCode,
    reason: ReturnCodes.describe(returnCode),
    at: returnedAt,
  })
const revokeAutoPay = (companyId: CompanyId): Customer.RevokeAutoPay => ({
  _tag: "RevokeAutoPay",
  companyId,
  returnCode: "R10",
  at: returnedAt,
})
const autoPayRevoked = (companyId: CompanyId) =>
  Customer.AutoPayRevoked.make({ ...customer, companyId, returnCode: "R10", at: returnedAt })

/** The evidence of an autopay designation made through the interface at `at`. */
const evidence = AuthorizationEvidence.evidenceOf("Autopay", client, at)
const designatedA = Customer.DefaultBankAccountSet.make({
  ...customer,
  bankAccountId: accountA,
  authorization: evidence,
  at,
})

/** The state as its snapshot stores it (JSON) and reads it back. */
const throughSnapshot = (state: Customer.State): Customer.State => {
  const policy = Customer.aggregate.snapshot!
  return Schema.decodeUnknownSync(policy.state)(JSON.parse(JSON.stringify(Schema.encodeSync(policy.state)(state))))
}

/** The evidence of the autopay designation in force, as autopay collections and GET /Account/Default read it. */
const autopayEvidence = (state: Customer.State) =>
  state._tag === "Registered" ? state.autopayAuthorization : assert.fail("the customer is not registered")

describe("a customer whose two accounts account-level returns made unusable", () => {
  const bothUnusable = [...withTwoAccounts, madeUnusable(accountA, "R03"), madeUnusable(accountB, "R02")]

  it("linking one again makes that one usable; the other stays unusable, with its own return code", () => {
    spec
      .given([...bothUnusable, unlinked(accountA)])
      .when({ _tag: "LinkBankAccounts", tokenId, accounts: [checking], at: returnedAt })
      .thenState((state) => {
        assert.isUndefined(Customer.bankAccountRefusal(state, accountA))
        assert.strictEqual(Customer.unusableReturnCode(state, accountB), "R02")
        assert.strictEqual(
          Customer.bankAccountRefusal(state, accountB)?.reason,
          "the bank account was returned by its bank (R02): the customer must link it again or use another account",
        )
      })
  })
  it("linking one again while it is still listed, with the same details, makes it usable", () => {
    spec
      .given(bothUnusable)
      .when({ _tag: "LinkBankAccounts", tokenId, accounts: [checking], at: returnedAt })
      .then([Customer.BankAccountsLinked.make({ ...customer, tokenId, accounts: [checking], at: returnedAt })])
  })

  it("linking both again with the same details leaves a usable account of those details unrecorded", () => {
    spec
      .given([...withTwoAccounts, madeUnusable(accountA, "R03")])
      .when({ _tag: "LinkBankAccounts", tokenId, accounts: [checking, savings], at: returnedAt })
      .then([Customer.BankAccountsLinked.make({ ...customer, tokenId, accounts: [checking], at: returnedAt })])
  })

  it("after one is linked again, a return of the other changes nothing; a new return of the one linked again is recorded", () => {
    const relinkedA = [...bothUnusable, unlinked(accountA), linked(checking)]
    spec.given(relinkedA).when(markUnusable(accountB, "R02")).thenNothingHappens()
    spec
      .given(relinkedA)
      .when(markUnusable(accountA, "R04"))
      .then([madeUnusable(accountA, "R04")])
  })
  it("linking both again leaves the customer as if neither had been returned, snapshot included", () => {
    const relinked = fold(Customer.aggregate, [
      ...bothUnusable,
      unlinked(accountA),
      unlinked(accountB),
      linked(checking, savings),
    ])
    const neverReturned = fold(Customer.aggregate, [
      ...withTwoAccounts,
      unlinked(accountA),
      unlinked(accountB),
      linked(checking, savings),
    ])
    assert.deepStrictEqual(relinked, neverReturned)
    assert.deepStrictEqual(throughSnapshot(relinked), neverReturned)
  })
  it("its snapshot keeps which accounts are unusable, each with its code", () => {
    const state = fold(Customer.aggregate, bothUnusable)
    const restored = throughSnapshot(state)
    assert.deepStrictEqual(restored, state)
    assert.strictEqual(Customer.unusableReturnCode(restored, accountA), "R03")
    assert.strictEqual(Customer.unusableReturnCode(restored, accountB), "R02")
  })
})

describe("a customer with autopay on account A, designated through the interface, and a second account B", () => {
  const designated = [...withTwoAccounts, designatedA]

  it("the designation records the evidence of the payer's authorization", () => {
    spec
      .given(withTwoAccounts)
      .when({ _tag: "SetDefaultBankAccount", bankAccountId: accountA, client, at })
      .then([designatedA])
    assert.deepStrictEqual(autopayEvidence(fold(Customer.aggregate, designated)), evidence)
  })
  it("a return that makes B unusable keeps A as the autopay account, with its evidence", () => {
    spec
      .given(designated)
      .when(markUnusable(accountB, "R03"))
      .thenState((state) => {
        assert.strictEqual(Customer.defaultBankAccount(state)?.bankAccountId, accountA)
        assert.deepStrictEqual(autopayEvidence(state), evidence)
        assert.strictEqual(Customer.bankAccountRefusal(state, accountB)?.code, "BANK_ACCOUNT_UNUSABLE")
      })
  })
  it("a return that makes A unusable ends the designation and its evidence", () => {
    spec
      .given(designated)
      .when(markUnusable(accountA, "R03"))
      .thenState((state) => {
        assert.isUndefined(Customer.defaultBankAccount(state))
        assert.isUndefined(autopayEvidence(state))
      })
  })
  it("unlinking B keeps the designation and its evidence; unlinking A ends both", () => {
    spec
      .given(designated)
      .when({ _tag: "UnlinkBankAccount", bankAccountId: accountB, at: returnedAt })
      .thenState((state) => {
        assert.strictEqual(Customer.defaultBankAccount(state)?.bankAccountId, accountA)
        assert.deepStrictEqual(autopayEvidence(state), evidence)
      })
    spec
      .given(designated)
      .when({ _tag: "UnlinkBankAccount", bankAccountId: accountA, at: returnedAt })
      .thenState((state) => {
        assert.isUndefined(Customer.defaultBankAccount(state))
        assert.isUndefined(autopayEvidence(state))
      })
  })
  it("designating B without the payer's request (by the service) leaves no evidence, and its snapshot reads back the same", () => {
    spec
      .given(designated)
      .when({ _tag: "SetDefaultBankAccount", bankAccountId: accountB, at: returnedAt })
      .thenState((state) => {
        assert.strictEqual(Customer.defaultBankAccount(state)?.bankAccountId, accountB)
        assert.isUndefined(autopayEvidence(state))
        assert.deepStrictEqual(throughSnapshot(state), state)
      })
  })
})

describe("a customer whose autopay unauthorized returns turned off for two companies", () => {
  const revokedForTwo = [...withTwoAccounts, designatedA, autoPayRevoked(companyA), autoPayRevoked(companyB)]

  it("autopay stays off for both and on for any other company", () => {
    const state = fold(Customer.aggregate, revokedForTwo)
    assert.isFalse(Customer.autoPayAllowedFor(state, companyA))
    assert.isFalse(Customer.autoPayAllowedFor(state, companyB))
    assert.isTrue(Customer.autoPayAllowedFor(state, companyC))
  })
  it("another unauthorized return for either changes nothing; one for a third company is recorded", () => {
    spec.given(revokedForTwo).when(revokeAutoPay(companyA)).thenNothingHappens()
    spec.given(revokedForTwo).when(revokeAutoPay(companyB)).thenNothingHappens()
    spec
      .given(revokedForTwo)
      .when(revokeAutoPay(companyC))
      .then([autoPayRevoked(companyC)])
  })
  it("the state lists each of the two companies once, in the order of their returns, and its snapshot keeps them", () => {
    const state = fold(Customer.aggregate, revokedForTwo)
    assert.deepStrictEqual(state._tag === "Registered" ? state.autoPayRevokedFor : undefined, [companyA, companyB])
    assert.deepStrictEqual(throughSnapshot(state), state)
  })
  it("designating an autopay account again turns autopay on for both", () => {
    spec
      .given(revokedForTwo)
      .when({ _tag: "SetDefaultBankAccount", bankAccountId: accountB, client, at: returnedAt })
      .thenState((state) => {
        assert.isTrue(Customer.autoPayAllowedFor(state, companyA))
        assert.isTrue(Customer.autoPayAllowedFor(state, companyB))
        assert.deepStrictEqual(autopayEvidence(state), AuthorizationEvidence.evidenceOf("Autopay", client, returnedAt))
      })
  })
})
