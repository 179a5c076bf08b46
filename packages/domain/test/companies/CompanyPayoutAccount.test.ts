/**
 * Executable specification of a company's payout account (`CompanyPayoutAccount.ts`, a command of the
 * Company aggregate): set, replaced with its history kept in the events, repeated without effect, refused
 * for a bad routing or account number, for another partner and for a Rejected company.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import * as Company from "../../src/companies/Company.ts"
import * as CompanyEvents from "../../src/companies/CompanyEvents.ts"
import * as CompanyPayoutAccount from "../../src/companies/CompanyPayoutAccount.ts"
import { fold } from "../../src/kernel/Decider.ts"
import type { CompanyId, LocationId, PartnerId, PayoutAccountId } from "../../src/kernel/Ids.ts"
import { DeciderSpecification, Fixtures } from "../../src/testing/index.ts"

const spec = DeciderSpecification.forAggregate(Company.aggregate)

const partnerId = "1b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a61" as PartnerId
const otherPartnerId = "1b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6f" as PartnerId
const companyId = "2b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a62" as CompanyId
const firstAccountId = "4b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a71" as PayoutAccountId
const secondAccountId = "4b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a72" as PayoutAccountId
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const later = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")

const registration = Fixtures.companyRegistrationBody({ locations: [] }) as unknown as Company.RegistrationInput
const registeredDecision = Company.decide(
  { _tag: "RegisterCompany", partnerId, companyId, locationIds: [] as Array<LocationId>, registration, at },
  Company.initialState,
)
if (registeredDecision._tag === "Failure") throw new Error(registeredDecision.failure.message)
const registered = registeredDecision.success[0]!
const rejected = Company.CompanyRejected.make({ companyId, partnerId, at })

const setAccount = (overrides: Partial<Company.SetPayoutAccount> = {}): Company.SetPayoutAccount => ({
  _tag: "SetPayoutAccount",
  partnerId,
  companyId,
  payoutAccountId: firstAccountId,
  accountHolderName: "Acme Coffee LLC",
  routingNumber: "011000015",
  accountNumber: "000123456789",
  accountType: "Checking",
  at: later,
  ...overrides,
})

const accountSet = Company.PayoutAccountSet.make({
  companyId,
  partnerId,
  payoutAccountId: firstAccountId,
  accountHolderName: "Acme Coffee LLC",
  routingNumber: "011000015",
  accountNumber: "000123456789",
  accountNumberMasked: "****6789",
  accountType: "Checking",
  status: "Active",
  at: later,
})

describe("a company not registered yet", () => {
  it("ignores a payout account set for it (an event that does not fit the state)", () => {
    spec.given([]).ignores(accountSet)
  })
})

describe("a registered company without a payout account", () => {
  it("setting one records it Active with its number masked for display", () => {
    spec.given([registered]).when(setAccount()).then([accountSet])
  })
  it("a routing number whose check digit does not match and a 3-digit account number are refused, naming both", () => {
    const failure = spec
      .given([registered])
      .when(setAccount({ routingNumber: "011000016", accountNumber: "123" }))
      .thenFails({ _tag: "ValidationFailed" }) as { issues: ReadonlyArray<{ field: string }> }
    assert.deepStrictEqual(
      failure.issues.map((issue) => issue.field),
      ["routingNumber", "accountNumber"],
    )
  })
  it("an account number of 18 digits or with letters is refused", () => {
    spec
      .given([registered])
      .when(setAccount({ accountNumber: "123456789012345678" }))
      .thenFails({ _tag: "ValidationFailed" })
    spec
      .given([registered])
      .when(setAccount({ accountNumber: "12AB5678" }))
      .thenFails({ _tag: "ValidationFailed" })
  })
  it("a blank holder name is refused", () => {
    spec
      .given([registered])
      .when(setAccount({ accountHolderName: "  " }))
      .thenFails({ _tag: "ValidationFailed" })
  })
  it("another partner is told the company does not exist", () => {
    spec
      .given([registered])
      .when(setAccount({ partnerId: otherPartnerId }))
      .thenFails({ _tag: "NotFound" })
  })
})

describe("a company with a payout account", () => {
  it("setting the same account again changes nothing", () => {
    spec
      .given([registered, accountSet])
      .when(setAccount({ payoutAccountId: secondAccountId }))
      .thenNothingHappens()
  })
  it("other details replace it under a new id, naming the account replaced (the history is the events)", () => {
    spec
      .given([registered, accountSet])
      .when(setAccount({ payoutAccountId: secondAccountId, accountNumber: "55554444", accountType: "Savings" }))
      .then([
        Company.PayoutAccountSet.make({
          ...accountSet,
          payoutAccountId: secondAccountId,
          accountNumber: "55554444",
          accountNumberMasked: "****4444",
          accountType: "Savings",
          replacedPayoutAccountId: firstAccountId,
        }),
      ])
  })
  it("the state holds the current account only", () => {
    const state = fold(Company.aggregate, [registered, accountSet])
    assert.strictEqual(state._tag === "Initial" ? undefined : state.payoutAccount?.payoutAccountId, firstAccountId)
  })
})

describe("a Rejected company", () => {
  it("takes no payout account", () => {
    spec.given([registered, rejected]).when(setAccount()).thenFails({ _tag: "IllegalTransition" })
  })
})

describe("no company", () => {
  it("is not found", () => {
    spec.given([]).when(setAccount()).thenFails({ _tag: "NotFound" })
  })
})

const markErrored = (overrides: Partial<Company.MarkPayoutAccountErrored> = {}): Company.MarkPayoutAccountErrored => ({
  _tag: "MarkPayoutAccountErrored",
  companyId,
  payoutAccountId: firstAccountId,
  payoutId: "7b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a7a",
  returnCode: "R03",
  reason: "No account / unable to locate account",
  at: later,
  ...overrides,
})

const accountErrored = CompanyEvents.PayoutAccountErrored.make({
  companyId,
  partnerId,
  payoutAccountId: firstAccountId,
  payoutId: "7b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a7a",
  returnCode: "R03",
  reason: "No account / unable to locate account",
  at: later,
})

describe("a company whose payout account is Active", () => {
  it("a payout returned for an account-level reason makes the account Errored, with the code and the time", () => {
    spec.given([registered, accountSet]).when(markErrored()).then([accountErrored])
    const state = fold(Company.aggregate, [registered, accountSet, accountErrored])
    assert.deepInclude(state._tag === "Initial" ? {} : state.payoutAccount, {
      status: "Errored",
      returnCode: "R03",
      returnReason: "No account / unable to locate account",
      erroredAt: "2026-03-02T10:00:00.000Z",
    })
  })
  it("a refusal of the destination (no return code) makes it Errored too", () => {
    const { returnCode: _code, ...refused } = accountErrored
    spec
      .given([registered, accountSet])
      .when({ ...markErrored(), returnCode: undefined } as unknown as Company.MarkPayoutAccountErrored)
      .then([{ ...refused, reason: "No account / unable to locate account" }])
  })
  it("a payout to an account replaced since changes nothing", () => {
    spec
      .given([registered, accountSet])
      .when(markErrored({ payoutAccountId: secondAccountId }))
      .thenNothingHappens()
  })
})

describe("a company whose payout account is Errored", () => {
  it("another failure changes nothing (one Errored, one webhook)", () => {
    spec.given([registered, accountSet, accountErrored]).when(markErrored()).thenNothingHappens()
  })
  it("setting another account makes it Active again, saying it replaced an Errored one", () => {
    spec
      .given([registered, accountSet, accountErrored])
      .when(setAccount({ payoutAccountId: secondAccountId, accountNumber: "000987654321" }))
      .then([
        Company.PayoutAccountSet.make({
          ...accountSet,
          payoutAccountId: secondAccountId,
          accountNumber: "000987654321",
          accountNumberMasked: "****4321",
          replacedPayoutAccountId: firstAccountId,
          replacedErrored: true,
        }),
      ])
  })
})

describe("which failures error a payout account", () => {
  it("the account-level return codes and the rail refusing the destination; not insufficient funds nor an outage", () => {
    for (const code of ["R02", "R03", "R04", "R12", "R13", "R14", "R15", "R16", "R17", "R20", "DESTINATION_REFUSED"])
      assert.isTrue(CompanyPayoutAccount.isAccountLevel(code), code)
    for (const code of ["R01", "R06", "R09", "R10", "ValidationError", "ACCOUNT_CHANGED", undefined])
      assert.isFalse(CompanyPayoutAccount.isAccountLevel(code), String(code))
  })
})

describe("an account-level failure that does not fit the state leaves it unchanged", () => {
  it("for a company never registered, with no payout account, or of another account", () => {
    spec.given([]).ignores(accountErrored)
    spec.given([registered]).ignores(accountErrored)
    spec
      .given([registered, accountSet])
      .ignores(CompanyEvents.PayoutAccountErrored.make({ ...accountErrored, payoutAccountId: secondAccountId }))
  })
})
