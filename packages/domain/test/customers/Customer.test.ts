import { assert, describe, it } from "@effect/vitest"
import { DateTime, Schema } from "effect"
import fc from "fast-check"
import * as Customer from "../../src/customers/Customer.ts"
import type { CalendarDate } from "../../src/kernel/CalendarDate.ts"
import { fold } from "../../src/kernel/Decider.ts"
import type { BankAccountId, PartnerId, RegistrationId } from "../../src/kernel/Ids.ts"
import { DeciderSpecification, PropertyParams } from "../../src/testing/index.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(20261123)

const spec = DeciderSpecification.forAggregate(Customer.aggregate)

const registrationId = "3b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a64" as RegistrationId
const partnerId = "1b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a61" as PartnerId
const customer = { registrationId, partnerId }
const phoneNumber = "+14155550123"
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const inAnHour = DateTime.makeUnsafe("2026-03-01T11:00:00.000Z")
const nextYear = DateTime.makeUnsafe("2027-03-01T10:00:00.000Z")
const tokenId = "6b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a66"
const otherTokenId = "6b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a67"
const referenceId = "7b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a68"
const accountA = "8b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a69" as BankAccountId
const accountB = "8b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6a" as BankAccountId

const registered = Customer.CustomerRegistered.make({ ...customer, phoneNumber, at })
const kycStarted = (token = tokenId) =>
  Customer.KycStarted.make({ ...customer, tokenId: token, expiration: inAnHour, at })
const personal: Customer.PersonalData = {
  profileName: "Ada L.",
  firstName: "Ada",
  lastName: "Lovelace",
  birthDate: "1990-12-10" as CalendarDate,
  ssnLastFourDigits: "6789",
  emailAddress: "ada@example.com",
  phoneNumber,
}
const kycVerified = Customer.KycVerified.make({ ...customer, referenceId, personalData: personal, at })
const kycRejected = Customer.KycRejected.make({ ...customer, referenceId, at })
const checking: Customer.LinkedBankAccount = {
  bankAccountId: accountA,
  institutionId: "ins_109508",
  name: "Everyday Checking",
  mask: "0000",
  type: "checking",
}
const savings: Customer.LinkedBankAccount = { ...checking, bankAccountId: accountB, name: "Savings", mask: "1111" }
const linked = (...accounts: Array<Customer.LinkedBankAccount>) =>
  Customer.BankAccountsLinked.make({ ...customer, tokenId, accounts, at })
const link = (...accounts: Array<Customer.LinkedBankAccount>): Customer.Command => ({
  _tag: "LinkBankAccounts",
  tokenId,
  accounts,
  at,
})
const tokenRegistered = (token: string, expireAt = nextYear) =>
  Customer.PushTokenRegistered.make({ ...customer, token, expireAt, at })
const card: Customer.CardPaymentMethod = {
  id: "pm_1N3x",
  type: "card",
  brand: "visa",
  last4: "4242",
  expMonth: 4,
  expYear: 2026,
}

describe("an unregistered customer", () => {
  it("the first successful login registers the customer", () => {
    spec
      .given([])
      .when({ _tag: "RegisterCustomer", ...customer, phoneNumber, at })
      .then([registered])
  })
  it("registration refuses a phone number that is not E.164", () => {
    spec
      .given([])
      .when({ _tag: "RegisterCustomer", ...customer, phoneNumber: "415-555-0123", at })
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "phoneNumber", message: "must be an E.164 phone number such as +14155550123" }],
      })
  })
  it("every other command is refused as NotFound", () => {
    const commands: ReadonlyArray<Customer.Command> = [
      { _tag: "StartKyc", tokenId, expiration: inAnHour, at },
      { _tag: "RecordKycResult", outcome: "Rejected", referenceId, at },
      { _tag: "OpenBankLinkSession", tokenId, expiration: inAnHour, at },
      link(checking),
      { _tag: "UnlinkBankAccount", bankAccountId: accountA, at },
      { _tag: "UpdateNotificationPreferences", changes: { newsEmail: true }, at },
      { _tag: "RegisterPushToken", token: "t", expireAt: nextYear, at },
      { _tag: "RemovePushToken", token: "t", at },
      { _tag: "SaveCardPaymentMethod", method: card, at },
    ]
    for (const command of commands) spec.given([]).when(command).thenFails({ _tag: "NotFound", entity: "Customer" })
  })
})

describe("a registered customer", () => {
  it("logging in again with the same phone number changes nothing", () => {
    spec
      .given([registered])
      .when({ _tag: "RegisterCustomer", ...customer, phoneNumber, at })
      .thenNothingHappens()
  })
  it("registering again for another partner is refused as AlreadyExists, even with the same phone number", () => {
    spec
      .given([registered])
      .when({
        _tag: "RegisterCustomer",
        registrationId,
        partnerId: "1b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6f" as PartnerId,
        phoneNumber,
        at,
      })
      .thenFails({ _tag: "AlreadyExists", entity: "Customer" })
  })
  it("an event other than the registration, for a customer never registered, changes nothing", () => {
    spec.given([]).ignores(Customer.DefaultBankAccountSet.make({ ...customer, bankAccountId: accountA, at }))
    spec.given([]).ignores(kycVerified)
  })
  it("a second registration event, with another phone number, changes nothing", () => {
    spec
      .given([registered, kycVerified])
      .ignores(Customer.CustomerRegistered.make({ ...customer, phoneNumber: "+14155550199", at }))
  })
  it("registering again with another phone number is refused as AlreadyExists", () => {
    spec
      .given([registered])
      .when({ _tag: "RegisterCustomer", ...customer, phoneNumber: "+14155550199", at })
      .thenFails({ _tag: "AlreadyExists", entity: "Customer" })
  })
  it("starts with KYC NotStarted, no accounts and the default notification preferences", () => {
    spec
      .given([])
      .when({ _tag: "RegisterCustomer", ...customer, phoneNumber, at })
      .thenState((state) => {
        assert.strictEqual(Customer.kycStatus(state), "NotStarted")
        assert.deepStrictEqual(Customer.linkedBankAccounts(state), [])
        assert.deepStrictEqual(Customer.notificationPreferences(state), Customer.defaultNotificationPreferences)
        assert.isFalse(Customer.notificationPreferences(state).newsEmail)
        assert.isTrue(Customer.notificationPreferences(state).paymentDuePush)
        assert.isTrue(Customer.belongsTo(state, partnerId))
      })
  })
})

describe("identity verification (KYC)", () => {
  it("StartKyc moves NotStarted to Pending and opens a bank-link session", () => {
    spec.given([registered]).when({ _tag: "StartKyc", tokenId, expiration: inAnHour, at }).then([kycStarted()])
  })
  it("StartKyc lists every bad field", () => {
    spec
      .given([registered])
      .when({ _tag: "StartKyc", tokenId: "not-a-uuid", expiration: at, at })
      .thenFails({
        _tag: "ValidationFailed",
        issues: [
          { field: "tokenId", message: "must be a lowercase UUID" },
          { field: "expiration", message: "must be in the future" },
        ],
      })
  })
  it("StartKyc with the same token again changes nothing", () => {
    spec
      .given([registered, kycStarted()])
      .when({ _tag: "StartKyc", tokenId, expiration: inAnHour, at })
      .thenNothingHappens()
  })
  it("StartKyc with a new token while Pending restarts the session", () => {
    spec
      .given([registered, kycStarted()])
      .when({ _tag: "StartKyc", tokenId: otherTokenId, expiration: inAnHour, at })
      .then([kycStarted(otherTokenId)])
  })
  it("StartKyc after a rejection starts a new verification", () => {
    spec
      .given([registered, kycStarted(), kycRejected])
      .when({ _tag: "StartKyc", tokenId: otherTokenId, expiration: inAnHour, at })
      .thenState((state) => assert.strictEqual(Customer.kycStatus(state), "Pending"))
  })
  it("StartKyc is refused once the identity is verified", () => {
    spec
      .given([registered, kycStarted(), kycVerified])
      .when({ _tag: "StartKyc", tokenId: otherTokenId, expiration: inAnHour, at })
      .thenFails({ _tag: "IllegalTransition", state: "Verified", command: "StartKyc" })
  })
  it("a Verified result records the personal data", () => {
    spec
      .given([registered, kycStarted()])
      .when({ _tag: "RecordKycResult", outcome: "Verified", referenceId, personalData: personal, at })
      .then([kycVerified])
    spec
      .given([registered, kycStarted()])
      .when({ _tag: "RecordKycResult", outcome: "Verified", referenceId, personalData: personal, at })
      .thenState((state) => {
        assert.strictEqual(Customer.kycStatus(state), "Verified")
        assert.deepStrictEqual(Customer.personalData(state), personal)
      })
  })
  it("a Verified result without personal data is refused", () => {
    spec
      .given([registered, kycStarted()])
      .when({ _tag: "RecordKycResult", outcome: "Verified", referenceId, at })
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "personalData", message: "is required when the identity is verified" }],
      })
  })
  it("a full SSN is never accepted, and every bad personal field is named", () => {
    const error = spec
      .given([registered, kycStarted()])
      .when({
        _tag: "RecordKycResult",
        outcome: "Verified",
        referenceId,
        personalData: {
          ...personal,
          firstName: " ",
          ssnLastFourDigits: "123456789",
          emailAddress: "ada",
          birthDate: "2030-01-01" as CalendarDate,
        },
        at,
      })
      .thenFails({ _tag: "ValidationFailed" })
    assert.deepStrictEqual(
      (error as { issues: ReadonlyArray<{ field: string }> }).issues.map((issue) => issue.field),
      [
        "personalData.firstName",
        "personalData.birthDate",
        "personalData.ssnLastFourDigits",
        "personalData.emailAddress",
      ],
    )
  })
  it("a birth date of today is refused (must be in the past); yesterday is accepted", () => {
    const withBirthDate = (birthDate: string): Customer.Command => ({
      _tag: "RecordKycResult",
      outcome: "Verified",
      referenceId,
      personalData: { ...personal, birthDate: birthDate as CalendarDate },
      at,
    })
    spec
      .given([registered, kycStarted()])
      .when(withBirthDate("2026-03-01"))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "personalData.birthDate", message: "must be in the past" }],
      })
    spec
      .given([registered, kycStarted()])
      .when(withBirthDate("2026-02-28"))
      .thenState((state) => assert.strictEqual(Customer.kycStatus(state), "Verified"))
  })
  it("a Rejected result moves Pending to Rejected", () => {
    spec
      .given([registered, kycStarted()])
      .when({ _tag: "RecordKycResult", outcome: "Rejected", referenceId, at })
      .then([kycRejected])
  })
  it("a Pending result while Pending changes nothing", () => {
    spec
      .given([registered, kycStarted()])
      .when({ _tag: "RecordKycResult", outcome: "Pending", referenceId, at })
      .thenNothingHappens()
  })
  it("a result before any verification started is refused", () => {
    spec
      .given([registered])
      .when({ _tag: "RecordKycResult", outcome: "Rejected", referenceId, at })
      .thenFails({ _tag: "IllegalTransition", state: "NotStarted", command: "RecordKycResult" })
  })
  it("the same Verified result again changes nothing", () => {
    spec
      .given([registered, kycStarted(), kycVerified])
      .when({ _tag: "RecordKycResult", outcome: "Verified", referenceId, personalData: personal, at })
      .thenNothingHappens()
  })
  it("a Verified identity cannot be rejected afterwards", () => {
    spec
      .given([registered, kycStarted(), kycVerified])
      .when({ _tag: "RecordKycResult", outcome: "Rejected", referenceId, at })
      .thenFails({ _tag: "IllegalTransition", state: "Verified" })
  })
  it("a Rejected verification needs a new StartKyc before another verdict", () => {
    spec
      .given([registered, kycStarted(), kycRejected])
      .when({ _tag: "RecordKycResult", outcome: "Verified", referenceId, personalData: personal, at })
      .thenFails({ _tag: "IllegalTransition", state: "Rejected" })
  })
})

describe("identity verification (KYC): what a partner reads, and each field", () => {
  const verifiedWith = (personalData: Customer.PersonalData, ref = referenceId): Customer.Command => ({
    _tag: "RecordKycResult",
    outcome: "Verified",
    referenceId: ref,
    personalData,
    at,
  })
  it("refusals say why: already verified, not started, rejected first", () => {
    spec
      .given([registered, kycStarted(), kycVerified])
      .when({ _tag: "StartKyc", tokenId: otherTokenId, expiration: inAnHour, at })
      .thenFails({ _tag: "IllegalTransition", reason: "the customer's identity is already verified" })
    spec
      .given([registered])
      .when({ _tag: "RecordKycResult", outcome: "Rejected", referenceId, at })
      .thenFails({ _tag: "IllegalTransition", reason: "no identity verification was started" })
    spec
      .given([registered, kycStarted(), kycVerified])
      .when({ _tag: "RecordKycResult", outcome: "Rejected", referenceId, at })
      .thenFails({ _tag: "IllegalTransition", reason: "the customer's identity is already verified" })
    spec
      .given([registered, kycStarted(), kycRejected])
      .when(verifiedWith(personal))
      .thenFails({ _tag: "IllegalTransition", reason: "the verification was rejected; start a new one first" })
    spec
      .given([registered])
      .when({ _tag: "OpenBankLinkSession", tokenId: otherTokenId, expiration: inAnHour, at })
      .thenFails({
        _tag: "IllegalTransition",
        reason: "start identity verification (StartKyc) to open a bank-link session",
      })
  })
  it("the same verdict under another reference is refused", () => {
    spec
      .given([registered, kycStarted(), kycVerified])
      .when(verifiedWith(personal, "7b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6f"))
      .thenFails({ _tag: "IllegalTransition", state: "Verified" })
  })
  it("an empty profile name is accepted; the other personal fields are each named", () => {
    spec
      .given([registered, kycStarted()])
      .when(verifiedWith({ ...personal, profileName: "" }))
      .thenState((state) => assert.strictEqual(Customer.kycStatus(state), "Verified"))
    const error = spec
      .given([registered, kycStarted()])
      .when({
        ...(verifiedWith({ ...personal, lastName: " ", phoneNumber: "415-555" }) as Customer.RecordKycResult),
        referenceId: "not-a-uuid",
      })
      .thenFails({ _tag: "ValidationFailed" })
    assert.deepStrictEqual(
      (error as { issues: ReadonlyArray<{ field: string }> }).issues.map((issue) => issue.field),
      ["referenceId", "personalData.lastName", "personalData.phoneNumber"],
    )
  })
  it("a profile name that is not text is named; a bad SSN or email says what is expected", () => {
    spec
      .given([registered, kycStarted()])
      .when(
        verifiedWith({
          ...personal,
          profileName: 42 as unknown as string,
          ssnLastFourDigits: "123456789",
          emailAddress: "ada",
        }),
      )
      .thenFails({
        _tag: "ValidationFailed",
        issues: [
          { field: "personalData.profileName", message: "must be a string" },
          {
            field: "personalData.ssnLastFourDigits",
            message: "must be exactly the last 4 digits of the SSN (a full SSN is never accepted)",
          },
          { field: "personalData.emailAddress", message: "must be an email address" },
        ],
      })
  })
  it("a bank-link session needs a lowercase UUID token, like StartKyc", () => {
    spec
      .given([registered, kycStarted(), kycVerified])
      .when({ _tag: "OpenBankLinkSession", tokenId: "not-a-uuid", expiration: inAnHour, at })
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "tokenId", message: "must be a lowercase UUID" }] })
  })
  it("a birth date is exactly YYYY-MM-DD: nothing before or after it", () => {
    for (const birthDate of ["1990-12-1", "x1990-12-10", "1990-12-10x"])
      spec
        .given([registered, kycStarted()])
        .when(verifiedWith({ ...personal, birthDate: birthDate as CalendarDate }))
        .thenFails({
          _tag: "ValidationFailed",
          issues: [{ field: "personalData.birthDate", message: "must be a date YYYY-MM-DD" }],
        })
  })
  it("a birth date that is not text is refused, even a list whose only entry is a date", () => {
    spec
      .given([registered, kycStarted()])
      .when(verifiedWith({ ...personal, birthDate: ["1990-12-10"] as unknown as CalendarDate }))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "personalData.birthDate", message: "must be a date YYYY-MM-DD" }],
      })
  })
})

describe("bank-link sessions", () => {
  it("a verified customer can open a new session", () => {
    spec
      .given([registered, kycStarted(), kycVerified])
      .when({ _tag: "OpenBankLinkSession", tokenId: otherTokenId, expiration: inAnHour, at })
      .then([Customer.BankLinkSessionOpened.make({ ...customer, tokenId: otherTokenId, expiration: inAnHour, at })])
  })
  it("opening the same session again changes nothing", () => {
    spec
      .given([registered, kycStarted(), kycVerified])
      .when({ _tag: "OpenBankLinkSession", tokenId, expiration: inAnHour, at })
      .thenNothingHappens()
  })
  it("a customer not yet verified must use StartKyc instead", () => {
    spec
      .given([registered])
      .when({ _tag: "OpenBankLinkSession", tokenId, expiration: inAnHour, at })
      .thenFails({ _tag: "IllegalTransition", command: "OpenBankLinkSession" })
  })
})

describe("bank accounts", () => {
  it("accounts chosen in the customer's link session are linked", () => {
    spec
      .given([registered, kycStarted()])
      .when(link(checking, savings))
      .then([linked(checking, savings)])
    spec
      .given([registered, kycStarted()])
      .when(link(checking))
      .thenState((state) => {
        assert.isTrue(Customer.hasBankAccount(state, accountA))
        assert.isFalse(Customer.hasBankAccount(state, accountB))
      })
  })
  it("a customer whose identity verification was Rejected links nothing, even in its session (CUSTOMER_NOT_VERIFIED)", () => {
    spec
      .given([registered, kycStarted(), kycRejected])
      .when(link(checking))
      .thenFails({ _tag: "RuleViolated", code: "CUSTOMER_NOT_VERIFIED" })
  })
  it("linking through a session not issued to the customer is refused", () => {
    spec
      .given([registered, kycStarted()])
      .when({ _tag: "LinkBankAccounts", tokenId: otherTokenId, accounts: [checking], at })
      .thenFails({
        _tag: "RuleViolated",
        code: "LINK_SESSION_UNKNOWN",
        reason: "the bank-link session was not issued to this customer",
      })
  })
  it("every bad field of an account is named by its place in the list", () => {
    const error = spec
      .given([registered, kycStarted()])
      .when(
        link(checking, {
          bankAccountId: "not-a-uuid" as BankAccountId,
          institutionId: " ",
          name: "",
          mask: "1111",
          type: "",
        }),
      )
      .thenFails({ _tag: "ValidationFailed" })
    assert.deepStrictEqual(
      (error as unknown as { issues: ReadonlyArray<{ field: string }> }).issues.map((issue) => issue.field),
      ["accounts[1].bankAccountId", "accounts[1].institutionId", "accounts[1].name", "accounts[1].type"],
    )
  })
  it("an account with the details of a linked one but another id is another account, and is recorded", () => {
    spec
      .given([registered, kycStarted(), linked(checking)])
      .when(link({ ...checking, bankAccountId: accountB }))
      .then([linked({ ...checking, bankAccountId: accountB })])
  })
  it("a full account number instead of its last 4 digits is refused, as are duplicates", () => {
    spec
      .given([registered, kycStarted()])
      .when(link({ ...checking, mask: "000123456789" }, { ...checking, mask: "0000" }))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [
          { field: "accounts[0].mask", message: "must be the last 4 digits of the account number" },
          { field: "accounts[1].bankAccountId", message: "is listed twice" },
        ],
      })
  })
  it("an empty list is refused", () => {
    spec
      .given([registered, kycStarted()])
      .when(link())
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "accounts", message: "must list at least one account" }],
      })
  })
  it("linking already linked accounts again changes nothing; only new ones are recorded", () => {
    spec
      .given([registered, kycStarted(), linked(checking)])
      .when(link(checking))
      .thenNothingHappens()
    spec
      .given([registered, kycStarted(), linked(checking)])
      .when(link(checking, savings))
      .then([linked(savings)])
  })
  it("unlinking a linked account removes it", () => {
    spec
      .given([registered, kycStarted(), linked(checking)])
      .when({ _tag: "UnlinkBankAccount", bankAccountId: accountA, at })
      .then([Customer.BankAccountUnlinked.make({ ...customer, bankAccountId: accountA, at })])
  })
  it("unlinking an unknown account is refused as NotFound", () => {
    spec
      .given([registered, kycStarted(), linked(checking)])
      .when({ _tag: "UnlinkBankAccount", bankAccountId: accountB, at })
      .thenFails({ _tag: "NotFound", entity: "BankAccount" })
  })
  const unlinked = Customer.BankAccountUnlinked.make({ ...customer, bankAccountId: accountA, at })
  it("unlinking an already removed account changes nothing", () => {
    spec
      .given([registered, kycStarted(), linked(checking), unlinked])
      .when({ _tag: "UnlinkBankAccount", bankAccountId: accountA, at })
      .thenNothingHappens()
  })
  for (const [detail, changed] of [
    ["institution", { institutionId: "ins_2" }],
    ["name", { name: "Renamed" }],
    ["mask", { mask: "9999" }],
    ["type", { type: "savings" }],
  ] as const)
    it(`linking a linked account again with another ${detail} records it`, () => {
      spec
        .given([registered, kycStarted(), linked(checking)])
        .when(link({ ...checking, ...changed }))
        .then([linked({ ...checking, ...changed })])
    })
  it("setting the default account it already has changes nothing", () => {
    spec
      .given([
        registered,
        kycStarted(),
        linked(checking),
        Customer.DefaultBankAccountSet.make({ ...customer, bankAccountId: accountA, at }),
      ])
      .when({ _tag: "SetDefaultBankAccount", bankAccountId: accountA, at })
      .thenNothingHappens()
  })
  it("an account never linked, or unlinked, cannot be the default (autopay) account", () => {
    spec
      .given([registered, kycStarted(), linked(checking)])
      .when({ _tag: "SetDefaultBankAccount", bankAccountId: accountB, at })
      .thenFails({ _tag: "NotFound", entity: "BankAccount" })
    spec
      .given([registered, kycStarted(), linked(checking), unlinked])
      .when({ _tag: "SetDefaultBankAccount", bankAccountId: accountA, at })
      .thenFails({ _tag: "NotFound", entity: "BankAccount" })
  })
  it("unlinking another account keeps the default account; unlinking the default one clears it", () => {
    const withDefault = [
      registered,
      kycStarted(),
      linked(checking, savings),
      Customer.DefaultBankAccountSet.make({ ...customer, bankAccountId: accountA, at }),
    ]
    spec
      .given(withDefault)
      .when({ _tag: "UnlinkBankAccount", bankAccountId: accountB, at })
      .thenState((state) => assert.strictEqual(Customer.defaultBankAccount(state)?.bankAccountId, accountA))
    spec
      .given(withDefault)
      .when({ _tag: "UnlinkBankAccount", bankAccountId: accountA, at })
      .thenState((state) => assert.isUndefined(Customer.defaultBankAccount(state)))
  })
  it("an unlinked default account linked again is not the default any more", () => {
    spec
      .given([
        registered,
        kycStarted(),
        linked(checking, savings),
        Customer.DefaultBankAccountSet.make({ ...customer, bankAccountId: accountA, at }),
        Customer.BankAccountUnlinked.make({ ...customer, bankAccountId: accountA, at }),
      ])
      .when(link(checking))
      .thenState((state) => assert.isUndefined(Customer.defaultBankAccount(state)))
  })
  it("a removed account can be linked again", () => {
    spec
      .given([registered, kycStarted(), linked(checking), unlinked])
      .when(link(checking))
      .then([linked(checking)])
  })
})

describe("notification preferences", () => {
  it("an update changes only the given preferences and records the complete new set", () => {
    spec
      .given([registered])
      .when({ _tag: "UpdateNotificationPreferences", changes: { newsEmail: true, paymentDuePush: false }, at })
      .then([
        Customer.NotificationPreferencesUpdated.make({
          ...customer,
          preferences: { ...Customer.defaultNotificationPreferences, newsEmail: true, paymentDuePush: false },
          at,
        }),
      ])
  })
  it("an update that changes no value changes nothing", () => {
    spec
      .given([registered])
      .when({ _tag: "UpdateNotificationPreferences", changes: { newsEmail: false }, at })
      .thenNothingHappens()
  })
  it("an unknown preference is refused", () => {
    spec
      .given([registered])
      .when({ _tag: "UpdateNotificationPreferences", changes: { smsSpam: true } as never, at })
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "changes.smsSpam", message: "is not a notification preference" }],
      })
  })
  it("a preference set to something other than true or false is refused", () => {
    spec
      .given([registered])
      .when({ _tag: "UpdateNotificationPreferences", changes: { newsEmail: "yes" as unknown as boolean }, at })
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "changes.newsEmail", message: "must be true or false" }],
      })
  })
})

describe("push tokens", () => {
  it("a new token is registered", () => {
    spec
      .given([registered])
      .when({ _tag: "RegisterPushToken", token: "device-1", expireAt: nextYear, at })
      .then([tokenRegistered("device-1")])
  })
  it("a token that already expired is refused", () => {
    spec
      .given([registered])
      .when({ _tag: "RegisterPushToken", token: "device-1", expireAt: at, at })
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "expireAt", message: "must be in the future" }] })
  })
  it("an empty or blank token, or one over 4096 characters, is refused; 4096 characters is accepted", () => {
    const registerToken = (token: string): Customer.Command => ({
      _tag: "RegisterPushToken",
      token,
      expireAt: nextYear,
      at,
    })
    for (const token of ["", "   "])
      spec
        .given([registered])
        .when(registerToken(token))
        .thenFails({ _tag: "ValidationFailed", issues: [{ field: "token", message: "must not be empty" }] })
    spec
      .given([registered])
      .when(registerToken("t".repeat(4097)))
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "token", message: "must be at most 4096 characters" }] })
    spec
      .given([registered])
      .when(registerToken("t".repeat(4096)))
      .thenState((state) => assert.strictEqual(Customer.pushTokens(state)[0]?.token.length, 4096))
  })
  it("a token that is not text is refused", () => {
    spec
      .given([registered])
      .when({ _tag: "RegisterPushToken", token: 42 as unknown as string, expireAt: nextYear, at })
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "token", message: "must be a string" }] })
  })
  it("registering the same token with the same expiry changes nothing", () => {
    spec
      .given([registered, tokenRegistered("device-1")])
      .when({ _tag: "RegisterPushToken", token: "device-1", expireAt: nextYear, at })
      .thenNothingHappens()
  })
  it("registering a known token with a new expiry refreshes it and makes it the newest", () => {
    spec
      .given([registered, tokenRegistered("device-1"), tokenRegistered("device-2")])
      .when({ _tag: "RegisterPushToken", token: "device-1", expireAt: inAnHour, at })
      .thenState((state) =>
        assert.deepStrictEqual(
          Customer.pushTokens(state).map((t) => t.token),
          ["device-2", "device-1"],
        ),
      )
  })
  it(`at the cap of ${Customer.maxPushTokens}, a new token replaces the least recently registered`, () => {
    const full = Array.from({ length: Customer.maxPushTokens }, (_, i) => tokenRegistered(`device-${i}`))
    spec
      .given([registered, ...full])
      .when({ _tag: "RegisterPushToken", token: "device-new", expireAt: nextYear, at })
      .then([
        Customer.PushTokenRemoved.make({ ...customer, token: "device-0", reason: "CapReached", at }),
        tokenRegistered("device-new"),
      ])
  })
  it(`at the cap of ${Customer.maxPushTokens}, refreshing a known token's expiry removes no other token`, () => {
    const full = Array.from({ length: Customer.maxPushTokens }, (_, i) => tokenRegistered(`device-${i}`))
    spec
      .given([registered, ...full])
      .when({ _tag: "RegisterPushToken", token: "device-5", expireAt: inAnHour, at })
      .then([tokenRegistered("device-5", inAnHour)])
  })
  it("removing a token removes it", () => {
    spec
      .given([registered, tokenRegistered("device-1")])
      .when({ _tag: "RemovePushToken", token: "device-1", at })
      .then([Customer.PushTokenRemoved.make({ ...customer, token: "device-1", reason: "RemovedByCustomer", at })])
  })
  it("removing an unknown token changes nothing", () => {
    spec.given([registered]).when({ _tag: "RemovePushToken", token: "device-1", at }).thenNothingHappens()
  })
  it("removing a token the customer does not have changes nothing, even with other tokens registered", () => {
    spec
      .given([registered, tokenRegistered("device-1")])
      .when({ _tag: "RemovePushToken", token: "device-2", at })
      .thenNothingHappens()
  })
  it("pruning removes every token expired at that instant (reason Expired), and keeps the others", () => {
    spec
      .given([
        registered,
        tokenRegistered("device-1", inAnHour),
        tokenRegistered("device-2"),
        tokenRegistered("device-3", inAnHour),
      ])
      .when({ _tag: "PruneExpiredPushTokens", at: inAnHour })
      .then([
        Customer.PushTokenRemoved.make({ ...customer, token: "device-1", reason: "Expired", at: inAnHour }),
        Customer.PushTokenRemoved.make({ ...customer, token: "device-3", reason: "Expired", at: inAnHour }),
      ])
  })
  it("pruning with no expired token changes nothing", () => {
    spec
      .given([registered, tokenRegistered("device-1", inAnHour)])
      .when({ _tag: "PruneExpiredPushTokens", at })
      .thenNothingHappens()
  })
})

describe("saved card payment methods", () => {
  const saved = Customer.CardPaymentMethodSaved.make({ ...customer, method: card, at })
  it("a valid card is saved", () => {
    spec.given([registered]).when({ _tag: "SaveCardPaymentMethod", method: card, at }).then([saved])
  })
  it("a card expiring this month is still accepted, one that expired last month is not", () => {
    spec
      .given([registered])
      .when({ _tag: "SaveCardPaymentMethod", method: { ...card, expMonth: 3 }, at })
      .then([Customer.CardPaymentMethodSaved.make({ ...customer, method: { ...card, expMonth: 3 }, at })])
    spec
      .given([registered])
      .when({ _tag: "SaveCardPaymentMethod", method: { ...card, expMonth: 2 }, at })
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "method.expMonth", message: "the card has expired" }] })
  })
  for (const [detail, changed] of [
    ["type", { type: "debit" }],
    ["brand", { brand: "mastercard" }],
    ["last 4 digits", { last4: "1881" }],
    ["expiry month", { expMonth: 5 }],
    ["expiry year", { expYear: 2027 }],
  ] as const)
    it(`saving a saved card again with another ${detail} records it`, () => {
      spec
        .given([registered, saved])
        .when({ _tag: "SaveCardPaymentMethod", method: { ...card, ...changed }, at })
        .then([Customer.CardPaymentMethodSaved.make({ ...customer, method: { ...card, ...changed }, at })])
    })
  it("a card with the details of a saved one but another id is another card, and is saved", () => {
    spec
      .given([registered, saved])
      .when({ _tag: "SaveCardPaymentMethod", method: { ...card, id: "pm_2Y4z" }, at })
      .then([Customer.CardPaymentMethodSaved.make({ ...customer, method: { ...card, id: "pm_2Y4z" }, at })])
  })
  it("every empty card field is named", () => {
    const error = spec
      .given([registered])
      .when({ _tag: "SaveCardPaymentMethod", method: { ...card, id: "", type: "", brand: "" }, at })
      .thenFails({ _tag: "ValidationFailed" })
    assert.deepStrictEqual(
      (error as unknown as { issues: ReadonlyArray<{ field: string }> }).issues.map((issue) => issue.field),
      ["method.id", "method.type", "method.brand"],
    )
  })
  it("saving a saved card again with the same details changes nothing", () => {
    spec.given([registered, saved]).when({ _tag: "SaveCardPaymentMethod", method: card, at }).thenNothingHappens()
  })
  it("a card expiring in January of a later year, or in a later year with an earlier month, is accepted", () => {
    for (const expiry of [
      { expMonth: 1, expYear: 2027 },
      { expMonth: 2, expYear: 2027 },
      { expMonth: 12, expYear: 9999 },
    ])
      spec
        .given([registered])
        .when({ _tag: "SaveCardPaymentMethod", method: { ...card, ...expiry }, at })
        .thenState((state) => assert.deepStrictEqual(Customer.cardPaymentMethods(state), [{ ...card, ...expiry }]))
  })
  it("a card that expired in January of this year is refused", () => {
    spec
      .given([registered])
      .when({ _tag: "SaveCardPaymentMethod", method: { ...card, expMonth: 1, expYear: 2026 }, at })
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "method.expMonth", message: "the card has expired" }] })
  })
  it("a month outside 1 to 12, or a year past 9999, is refused", () => {
    spec
      .given([registered])
      .when({ _tag: "SaveCardPaymentMethod", method: { ...card, expMonth: 0, expYear: 2027 }, at })
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "method.expMonth", message: "must be a month number from 1 to 12" }],
      })
    spec
      .given([registered])
      .when({ _tag: "SaveCardPaymentMethod", method: { ...card, expYear: 10_000 }, at })
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "method.expYear", message: "must be a four-digit year" }],
      })
  })
  it("every bad card field is named", () => {
    spec
      .given([registered])
      .when({
        _tag: "SaveCardPaymentMethod",
        method: { ...card, last4: "4242424242424242", expMonth: 13, expYear: 2025 },
        at,
      })
      .thenFails({
        _tag: "ValidationFailed",
        issues: [
          { field: "method.last4", message: "must be exactly the last 4 digits" },
          { field: "method.expMonth", message: "must be a month number from 1 to 12" },
          { field: "method.expYear", message: "the card has expired" },
        ],
      })
  })
  it("a blank brand is refused as empty", () => {
    spec
      .given([registered])
      .when({ _tag: "SaveCardPaymentMethod", method: { ...card, brand: "  " }, at })
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "method.brand", message: "must not be empty" }] })
  })
  it(`a brand of ${Customer.maxTextLength} characters is accepted, one of ${Customer.maxTextLength + 1} is refused`, () => {
    const brand = "b".repeat(Customer.maxTextLength)
    spec
      .given([registered])
      .when({ _tag: "SaveCardPaymentMethod", method: { ...card, brand }, at })
      .then([Customer.CardPaymentMethodSaved.make({ ...customer, method: { ...card, brand }, at })])
    spec
      .given([registered])
      .when({ _tag: "SaveCardPaymentMethod", method: { ...card, brand: `${brand}b` }, at })
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "method.brand", message: `must be at most ${Customer.maxTextLength} characters` }],
      })
  })
  it("last 4 digits sent as a number, not text, are refused", () => {
    spec
      .given([registered])
      .when({ _tag: "SaveCardPaymentMethod", method: { ...card, last4: 4242 as unknown as string }, at })
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "method.last4", message: "must be exactly the last 4 digits" }],
      })
  })
  it("saving the same card again changes nothing; a new expiry updates it", () => {
    spec.given([registered, saved]).when({ _tag: "SaveCardPaymentMethod", method: card, at }).thenNothingHappens()
    spec
      .given([registered, saved])
      .when({ _tag: "SaveCardPaymentMethod", method: { ...card, expYear: 2030 }, at })
      .thenState((state) => assert.deepStrictEqual(Customer.cardPaymentMethods(state), [{ ...card, expYear: 2030 }]))
  })
})

// ---------------------------------------------------------------------------
// Properties over generated command sequences
// ---------------------------------------------------------------------------

const instant = fc.integer({ min: 1_770_000_000_000, max: 1_780_000_000_000 }).map((ms) => DateTime.makeUnsafe(ms))
const tokenIds = [tokenId, otherTokenId]
const accountIds = [0, 1, 2, 3].map((n) => `9b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a7${n}` as BankAccountId)

/** Masks as a careless client might send them: last 4 digits, full numbers, letters, too short. */
const mask = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^\d{4}$/) },
  fc.stringMatching(/^\d{5,17}$/),
  fc.stringMatching(/^\d{1,3}$/),
  fc.string({ maxLength: 8 }),
)
const account = fc
  .record({
    bankAccountId: fc.constantFrom(...accountIds),
    institutionId: fc.constantFrom("ins_1", "ins_2"),
    name: fc.constantFrom("Checking", "Savings", "Checking", ""),
    mask,
    type: fc.constantFrom("checking", "savings"),
    accountNumber: fc.stringMatching(/^\d{8,17}$/),
  })
  // a client may attach the full account number: it must never be kept
  .map((a) => a as Customer.LinkedBankAccount)

const pushToken = fc.integer({ min: 0, max: 29 }).map((n) => `device-${n}`)
const preferenceKey = fc.constantFrom(
  ...(Object.keys(Customer.defaultNotificationPreferences) as Array<keyof Customer.NotificationPreferences>),
)

const command: fc.Arbitrary<Customer.Command> = fc.oneof(
  instant.map((at): Customer.Command => ({ _tag: "RegisterCustomer", ...customer, phoneNumber, at })),
  fc.record({ tokenId: fc.constantFrom(...tokenIds), at: instant, hours: fc.integer({ min: -1, max: 4 }) }).map(
    ({ tokenId, at, hours }): Customer.Command => ({
      _tag: "StartKyc",
      tokenId,
      expiration: DateTime.add(at, { hours }),
      at,
    }),
  ),
  fc
    .record({
      outcome: fc.constantFrom<Customer.KycOutcome>("Verified", "Rejected", "Pending"),
      at: instant,
      withData: fc.boolean(),
    })
    .map(
      ({ outcome, at, withData }): Customer.Command => ({
        _tag: "RecordKycResult",
        outcome,
        referenceId,
        ...(withData ? { personalData: personal } : {}),
        at,
      }),
    ),
  fc.record({ tokenId: fc.constantFrom(...tokenIds), at: instant }).map(
    ({ tokenId, at }): Customer.Command => ({
      _tag: "OpenBankLinkSession",
      tokenId,
      expiration: DateTime.add(at, { hours: 1 }),
      at,
    }),
  ),
  fc
    .record({ tokenId: fc.constantFrom(...tokenIds), accounts: fc.array(account, { maxLength: 3 }), at: instant })
    .map((c): Customer.Command => ({ _tag: "LinkBankAccounts", ...c })),
  fc.record({ tokenId: fc.constantFrom(...tokenIds), account, at: instant }).map(
    ({ tokenId, account, at }): Customer.Command => ({
      _tag: "LinkBankAccounts",
      tokenId,
      accounts: [account],
      at,
    }),
  ),
  fc
    .record({ bankAccountId: fc.constantFrom(...accountIds), at: instant })
    .map((c): Customer.Command => ({ _tag: "UnlinkBankAccount", ...c })),
  fc
    .record({ changes: fc.dictionary(preferenceKey, fc.boolean()), at: instant })
    .map((c): Customer.Command => ({ _tag: "UpdateNotificationPreferences", ...c })),
  fc.record({ token: pushToken, days: fc.integer({ min: -1, max: 3 }), at: instant }).map(
    ({ token, days, at }): Customer.Command => ({
      _tag: "RegisterPushToken",
      token,
      expireAt: DateTime.add(at, { days }),
      at,
    }),
  ),
  fc.record({ token: pushToken, at: instant }).map((c): Customer.Command => ({ _tag: "RemovePushToken", ...c })),
  fc
    .record({ expMonth: fc.integer({ min: 0, max: 13 }), expYear: fc.integer({ min: 2025, max: 2030 }), at: instant })
    .map(
      ({ expMonth, expYear, at }): Customer.Command => ({
        _tag: "SaveCardPaymentMethod",
        method: { ...card, expMonth, expYear },
        at,
      }),
    ),
)
/** Sequences that start by registering the customer, so most commands reach a registered customer. */
const commands = fc
  .tuple(instant, fc.array(command, { maxLength: 60 }))
  .map(([at, rest]): Array<Customer.Command> => [{ _tag: "RegisterCustomer", ...customer, phoneNumber, at }, ...rest])

/** Runs the commands, skipping refusals; returns the final state and every recorded event. */
const play = (sequence: ReadonlyArray<Customer.Command>) => {
  let state = Customer.initialState
  const events: Array<Customer.CustomerEvent> = []
  for (const cmd of sequence) {
    const decision = Customer.decide(cmd, state)
    if (decision._tag === "Failure") continue
    for (const event of decision.success) {
      events.push(event)
      state = Customer.evolve(state, event)
    }
  }
  return { state, events }
}

/** Many registrations of the same push tokens, so the cap is actually reached. */
const tokenCommands = fc
  .tuple(
    instant,
    fc.array(
      fc.oneof(
        {
          weight: 4,
          arbitrary: pushToken.map(
            (token): Customer.Command => ({ _tag: "RegisterPushToken", token, expireAt: nextYear, at }),
          ),
        },
        {
          weight: 1,
          arbitrary: pushToken.map((token): Customer.Command => ({ _tag: "RemovePushToken", token, at })),
        },
      ),
      { minLength: 30, maxLength: 120 },
    ),
  )
  .map(([at, rest]): Array<Customer.Command> => [{ _tag: "RegisterCustomer", ...customer, phoneNumber, at }, ...rest])

describe("a customer never registered", () => {
  it("has nothing: KYC NotStarted, no personal data, accounts, default account, cards or push tokens", () => {
    const none = Customer.initialState
    assert.isFalse(Customer.isRegistered(none))
    assert.strictEqual(Customer.kycStatus(none), "NotStarted")
    assert.isNull(Customer.personalData(none))
    assert.isFalse(Customer.hasBankAccount(none, accountA))
    assert.deepStrictEqual(Customer.linkedBankAccounts(none), [])
    assert.isUndefined(Customer.defaultBankAccount(none))
    assert.deepStrictEqual(Customer.cardPaymentMethods(none), [])
    assert.deepStrictEqual(Customer.pushTokens(none), [])
    assert.deepStrictEqual(Customer.notificationPreferences(none), Customer.defaultNotificationPreferences)
  })
  it("a registered customer is registered, with no default account until one is set", () => {
    const state = fold(Customer.aggregate, [registered, kycStarted(), linked(checking)])
    assert.isTrue(Customer.isRegistered(state))
    assert.isUndefined(Customer.defaultBankAccount(state))
  })
})

describe("which partner a customer belongs to", () => {
  it("a registered customer belongs to their partner only; one never registered belongs to none", () => {
    const state = fold(Customer.aggregate, [registered])
    assert.isTrue(Customer.belongsTo(state, partnerId))
    assert.isFalse(Customer.belongsTo(state, "1b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6f" as PartnerId))
    assert.isFalse(Customer.belongsTo(Customer.initialState, partnerId))
  })
})

describe("properties of customers", () => {
  it(`a customer never holds more than ${Customer.maxPushTokens} push tokens, each at most once, and a token just registered is always kept`, () => {
    let reachedCap = false
    fc.assert(
      fc.property(tokenCommands, (sequence) => {
        let state = Customer.initialState
        for (const cmd of sequence) {
          const decision = Customer.decide(cmd, state)
          assert.strictEqual(decision._tag, "Success")
          if (decision._tag === "Failure") continue
          state = fold(Customer.aggregate, decision.success, state)
          const tokens = Customer.pushTokens(state).map((t) => t.token)
          assert.isAtMost(tokens.length, Customer.maxPushTokens)
          assert.strictEqual(new Set(tokens).size, tokens.length)
          if (tokens.length === Customer.maxPushTokens) reachedCap = true
          if (cmd._tag === "RegisterPushToken") assert.include(tokens, cmd.token)
          if (cmd._tag === "RemovePushToken") assert.notInclude(tokens, cmd.token)
        }
      }),
      seeded({ numRuns: 200 }),
    )
    assert.isTrue(reachedCap, "the generator never reached the cap")
    // 200 long histories: about 3 s alone, twice that on a loaded 2-core machine
  }, 30_000)

  it("only masked account numbers (last 4 digits) are ever stored, in events and in the state", () => {
    let linkedSome = false
    fc.assert(
      fc.property(commands, (sequence) => {
        const { state, events } = play(sequence)
        const stored = [
          ...events.flatMap((e) => (e._tag === "BankAccountsLinked" ? e.accounts : [])),
          ...(state._tag === "Registered" ? state.bankAccounts : []),
        ]
        if (stored.length > 0) linkedSome = true
        for (const a of stored) {
          assert.match(a.mask, /^\d{4}$/)
          assert.notProperty(a, "accountNumber")
          assert.includeMembers(["bankAccountId", "institutionId", "name", "mask", "type", "linked"], Object.keys(a))
        }
        // and what is stored is what the JSON event store would accept back
        const encode = Schema.encodeSync(Customer.aggregate.events)
        for (const event of events) assert.notInclude(JSON.stringify(encode(event)), "accountNumber")
      }),
      seeded({ numRuns: 200 }),
    )
    assert.isTrue(linkedSome, "the generator never linked an account")
  })

  it("replaying the stored (JSON-encoded) events reproduces the state", () => {
    const encode = Schema.encodeSync(Customer.aggregate.events)
    const decode = Schema.decodeUnknownSync(Customer.aggregate.events)
    fc.assert(
      fc.property(commands, (sequence) => {
        const { state, events } = play(sequence)
        const replayed = fold(
          Customer.aggregate,
          events.map((event) => decode(JSON.parse(JSON.stringify(encode(event))))),
        )
        assert.deepStrictEqual(replayed, state)
      }),
      seeded({ numRuns: 200 }),
    )
  })

  it("a snapshot of the state (JSON) decodes to the same state, whatever the history", () => {
    const policy = Customer.aggregate.snapshot!
    const encode = Schema.encodeSync(policy.state)
    const decode = Schema.decodeUnknownSync(policy.state)
    fc.assert(
      fc.property(commands, (sequence) => {
        const { state } = play(sequence)
        assert.deepStrictEqual(decode(JSON.parse(JSON.stringify(encode(state)))), state)
      }),
      seeded({ numRuns: 200 }),
    )
  })

  it("decide never throws, whatever the command and state", () => {
    fc.assert(
      fc.property(commands, (sequence) => {
        play(sequence)
      }),
      seeded({ numRuns: 200 }),
    )
  })
})
