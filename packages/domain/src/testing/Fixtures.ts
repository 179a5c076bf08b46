/**
 * Shared test fixtures for every package, the benchmarks and the fault suite:
 * a valid company registration body (spec 2.2, the payload of POST
 * /Company/Create and of `Companies.register`) and effects that register a
 * company (plain, or Verified: only a Verified company collects) or a
 * customer (plain, or verified with a linked account: only a Verified payer
 * pays) through their aggregates (the source of truth the use cases read), as
 * the company, KYB, login, KYC and bank-link flows do.
 */

import { DateTime } from "effect"
import * as Company from "../companies/Company.ts"
import * as Customer from "../customers/Customer.ts"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import type { CalendarDate } from "../kernel/CalendarDate.ts"
import type {
  BankAccountId,
  CompanyId,
  LocationId,
  PartnerId,
  PaymentRequestId,
  RegistrationId,
  TransferId,
} from "../kernel/Ids.ts"
import * as Traced from "../kernel/Traced.ts"
import * as Payments from "../payments/Payments.ts"

/** The first location of the fixture company. */
export const mainStreetStore = {
  name: "Main Street Store",
  streetNumberAndName: "100 Main St",
  zipCode: "94105",
  city: "San Francisco",
  state: "CA",
}

/** The owner of the fixture company (full KYB data, as the partner sends it). */
export const owner = {
  name: "Ada Lovelace",
  emailAddress: "ada@acme.example.com",
  contactNumber: "(415) 555-0100",
  title: "CEO",
  documentNumber: "D7654321",
  documentType: "DriversLicense",
  ssn: "987-65-4321",
  dateOfBirth: "1980-12-10",
  streetNumberAndName: "1 Analytical Way",
  apartmentNumber: "Apt 4",
  zipCode: "94105-1234",
  city: "San Francisco",
  state: "CA",
}

/**
 * A valid company registration body: "Acme Coffee", reference "acme-001", one
 * employee, two locations. `overrides` replace top-level fields; an override
 * whose value is `undefined` removes the field (an optional field left out).
 */
export const companyRegistrationBody = (overrides: Record<string, unknown> = {}): CompanyRegistrationBody => {
  const body: Record<string, unknown> = {
    companyReferenceId: "acme-001",
    name: "Acme Coffee",
    emailAddress: "hello@acme.example.com",
    taxId: "12-3456789",
    taxIdType: "EIN",
    streetNumberAndName: "100 Main St",
    apartmentNumber: "Suite 200",
    zipCode: "94105",
    city: "San Francisco",
    state: "CA",
    contactNumber: "+14155550199",
    websiteUrl: "https://acme.example.com",
    companyType: "ForProfit",
    owner,
    employees: [{ name: "Bob", emailAddress: "bob@acme.example.com", contactNumber: "415-555-0101", title: "Cashier" }],
    locations: [
      mainStreetStore,
      { name: "Harbor Kiosk", streetNumberAndName: "1 Pier", zipCode: "94111", city: "San Francisco", state: "CA" },
    ],
    ...overrides,
  }
  for (const [key, value] of Object.entries(overrides)) if (value === undefined) delete body[key]
  return body as CompanyRegistrationBody
}

/** The fields tests read back from a registration body (the JSON sent is whatever the overrides made it). */
export type CompanyRegistrationBody = Record<string, unknown> & {
  readonly companyReferenceId: string
  readonly name: string
  readonly emailAddress: string
  readonly taxId: string
  readonly streetNumberAndName: string
  readonly zipCode: string
  readonly city: string
  readonly state: string
  readonly contactNumber: string
  readonly owner: typeof owner
}

/**
 * Registers a company of `partnerId` named `name` through the Company
 * aggregate, with one location (none with `{ locations: 0 }`) and the
 * reference `ref-<last 6 characters of the id>`; `body` overrides fields of
 * the registration as in `companyRegistrationBody`.
 */
export const registerCompany = Traced.fn("Fixtures.registerCompany")(function* (
  partnerId: PartnerId,
  companyId: CompanyId,
  name: string,
  options: { readonly locations?: 0 | 1; readonly body?: Record<string, unknown> } = {},
) {
  const withLocation = (options.locations ?? 1) === 1
  const locationIds = withLocation ? [(yield* (yield* IdGenerator).next) as LocationId] : []
  const registration = companyRegistrationBody({
    name,
    companyReferenceId: `ref-${companyId.slice(-6)}`,
    employees: [],
    locations: withLocation ? [mainStreetStore] : [],
    ...options.body,
  }) as unknown as Company.RegistrationInput
  yield* CommandHandler.handleNow(Company.aggregate, companyId, {
    _tag: "RegisterCompany",
    partnerId,
    companyId,
    locationIds,
    registration,
  })
})

/** Completes the KYB of a registered company as Verified (as the KYB provider's verdict does). */
export const verifyCompany = Traced.fn("Fixtures.verifyCompany")(function* (companyId: CompanyId) {
  yield* CommandHandler.handleNow(Company.aggregate, companyId, {
    _tag: "CompleteKyb",
    companyId,
    outcome: "Verified",
  })
})

/**
 * Registers a company as `registerCompany` does and completes its KYB as
 * Verified: only a Verified company collects payments (`WhoMayCollect`).
 */
export const registerVerifiedCompany = Traced.fn("Fixtures.registerVerifiedCompany")(function* (
  partnerId: PartnerId,
  companyId: CompanyId,
  name: string,
  options: { readonly locations?: 0 | 1; readonly body?: Record<string, unknown> } = {},
) {
  yield* registerCompany(partnerId, companyId, name, options)
  yield* verifyCompany(companyId)
})

/** Registers a customer of `partnerId` through the Customer aggregate (as the first OTP login does). */
export const registerCustomer = Traced.fn("Fixtures.registerCustomer")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
  phoneNumber = "+14155550123",
) {
  yield* CommandHandler.handleNow(Customer.aggregate, registrationId, {
    _tag: "RegisterCustomer",
    registrationId,
    partnerId,
    phoneNumber,
  })
})

/** The bank-link session every fixture customer links its accounts in. */
const linkSession = "6b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a66"

/** An account to link: its id, name, last 4 digits and type (institution "ins_1"). */
export interface FixtureAccount {
  readonly bankAccountId: BankAccountId
  readonly name: string
  readonly mask: string
  readonly type: string
}

/** Links accounts to a registered customer through one bank-link session (a verification started for it). */
export const linkBankAccounts = Traced.fn("Fixtures.linkBankAccounts")(function* (
  registrationId: RegistrationId,
  accounts: ReadonlyArray<FixtureAccount>,
) {
  const at = yield* DateTime.now
  const handle = (command: Customer.Command) => CommandHandler.handle(Customer.aggregate, registrationId, command)
  const { state } = yield* CommandHandler.load(Customer.aggregate, registrationId)
  if (!(state._tag === "Registered" && state.linkSessions.includes(linkSession)))
    yield* handle({ _tag: "StartKyc", tokenId: linkSession, expiration: DateTime.add(at, { hours: 1 }), at })
  yield* handle({
    _tag: "LinkBankAccounts",
    tokenId: linkSession,
    accounts: accounts.map((account) => ({ institutionId: "ins_1", ...account })),
    at,
  })
})

/** Links one checking account ("Everyday Checking", `mask` the last 4 digits) to a registered customer. */
export const linkBankAccount = (registrationId: RegistrationId, bankAccountId: BankAccountId, mask = "6789") =>
  linkBankAccounts(registrationId, [{ bankAccountId, name: "Everyday Checking", mask, type: "checking" }])

/** The person every verified fixture customer is (the KYC provider's confirmed data). */
export const verifiedPerson = (phoneNumber = "+14155550123"): Customer.PersonalData => ({
  profileName: "Grace H.",
  firstName: "Grace",
  lastName: "Hopper",
  birthDate: "1990-12-10" as CalendarDate,
  ssnLastFourDigits: "6789",
  emailAddress: "grace@example.com",
  phoneNumber,
})

/** The identity verification reference of every verified fixture customer (their `verificationId`). */
export const kycReferenceId = "7b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a68"

/**
 * Verifies the identity of a registered customer (KYC Verified, `verifiedPerson`), starting the
 * verification first when none is pending: only a Verified payer pays (`WhoMayCollect`). Changes
 * nothing for a customer already verified.
 */
export const verifyCustomer = Traced.fn("Fixtures.verifyCustomer")(function* (
  registrationId: RegistrationId,
  phoneNumber = "+14155550123",
) {
  const at = yield* DateTime.now
  const handle = (command: Customer.Command) => CommandHandler.handle(Customer.aggregate, registrationId, command)
  const { state } = yield* CommandHandler.load(Customer.aggregate, registrationId)
  if (state._tag === "Registered" && state.kycStatus === "Verified") return
  if (!(state._tag === "Registered" && state.kycStatus === "Pending"))
    yield* handle({ _tag: "StartKyc", tokenId: linkSession, expiration: DateTime.add(at, { hours: 1 }), at })
  yield* handle({
    _tag: "RecordKycResult",
    outcome: "Verified",
    referenceId: kycReferenceId,
    personalData: verifiedPerson(phoneNumber),
    at,
  })
})

/**
 * Registers a verified customer of `partnerId` (`verifiedPerson`: Grace Hopper, grace@example.com)
 * with the checking account `bankAccountId` (****6789) linked, as the login, KYC and bank-link flows do.
 */
export const registerVerifiedCustomer = Traced.fn("Fixtures.registerVerifiedCustomer")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
  bankAccountId: BankAccountId,
  phoneNumber = "+14155550123",
) {
  yield* registerCustomer(partnerId, registrationId, phoneNumber)
  yield* verifyCustomer(registrationId, phoneNumber)
  yield* linkBankAccount(registrationId, bankAccountId)
})

/**
 * A payment request of 125.50 USD (due 2026-03-15) from `payer` to `companyId`, accepted from
 * `bankAccountId` (a Verified company and payer): its id and its transfer's.
 */
export const acceptedPaymentRequest = Traced.fn("Fixtures.acceptedPaymentRequest")(function* (
  partnerId: PartnerId,
  companyId: CompanyId,
  payer: RegistrationId,
  bankAccountId: BankAccountId,
) {
  const { paymentRequestId } = yield* Payments.create({
    partnerId,
    companyId,
    payerRegistrationId: payer,
    amount: { value: 125.5, currencyCode: "USD" },
    description: "Invoice 42",
    dueDate: "2026-03-15" as CalendarDate,
  })
  yield* Payments.accept({
    partnerId,
    registrationId: payer,
    paymentRequestId,
    bankAccountId,
    acceptDebitAuth: false,
    transferDescription: "",
  })
  const transferId = (yield* Payments.get(partnerId, paymentRequestId)).transferId as TransferId
  return { paymentRequestId: paymentRequestId as PaymentRequestId, transferId }
})

/** A company's postal address on a transfer (`recipientAddress`). */
export const recipientAddress = {
  streetNumberAndName: "100 Main St",
  apartmentNumber: "",
  city: "San Francisco",
  zipCode: "94105",
  state: "CA",
  country: "US",
}
