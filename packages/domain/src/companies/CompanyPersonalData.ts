/**
 * The personal data of the companies area, and whose it is.
 *
 * A company's owner is a person: in `CompanyRegistered` every text field of
 * `owner` (name, e-mail, phone, title, SSN last four, date of birth, address)
 * and the company's tax id when it is a personal number (taxIdType SSN or
 * ITIN: a sole proprietor's own SSN) belong to the subject
 * `company-owner:<companyId>` (erased by POST /admin/companies/{id}/erase-owner);
 * the owner's full SSN and ID document number, kept for the KYB submission
 * only, belong to `company-kyb:<companyId>`, shredded once submitted (and with
 * the owner).
 * The employees are people too: their fields belong to
 * `company-employees:<companyId>`. The company's own name, e-mail, phone,
 * address and an EIN are business data and stay plain.
 *
 * The payout account's holder name (often a person: a sole proprietor) and
 * its full account number belong to `company-payout-account:<companyId>`, in
 * `PayoutAccountSet` events; the `companies` read model holds the holder's
 * name (sealed) and the number masked only. That subject is not erased with
 * the owner: the company is still owed its balance, and paying it out needs
 * the account (a retention the operator documents).
 */
import type { FieldsOf } from "../infrastructure/PersonalData.ts"

/** The data subject of a company's owner. */
export const ownerSubject = (companyId: string): string => `company-owner:${companyId}`

/**
 * The data subject of what only the KYB submission needs: the owner's full SSN and ID document
 * number. Its key is deleted once the company was submitted, and with the owner's.
 */
export const kybSubject = (companyId: string): string => `company-kyb:${companyId}`

/** The data subject of a company's employees (erased together). */
export const employeesSubject = (companyId: string): string => `company-employees:${companyId}`

const ownerFields = [
  "name",
  "emailAddress",
  "contactNumber",
  "title",
  "ssnLastFour",
  "dateOfBirth",
  "streetNumberAndName",
  "apartmentNumber",
  "zipCode",
  "city",
  "state",
].map((field) => `owner.${field}`)

const employeeFields = ["name", "emailAddress", "contactNumber", "title"].map((field) => `employees.*.${field}`)

const registered: FieldsOf = (data) => {
  const companyId = String(data.companyId)
  const personalTaxId = data.taxIdType === "SSN" || data.taxIdType === "ITIN"
  return [
    { subject: ownerSubject(companyId), paths: personalTaxId ? [...ownerFields, "taxId"] : ownerFields },
    { subject: kybSubject(companyId), paths: ["owner.ssn", "owner.documentNumber"] },
    { subject: employeesSubject(companyId), paths: employeeFields },
  ]
}

/** The data subject of a company's payout account (holder name, account number). */
export const payoutAccountSubject = (companyId: string): string => `company-payout-account:${companyId}`

const payoutAccountSet: FieldsOf = (data) => [
  { subject: payoutAccountSubject(String(data.companyId)), paths: ["accountHolderName", "accountNumber"] },
]

/** Personal fields of Company events, by event type. */
export const events: Readonly<Record<string, FieldsOf>> = {
  CompanyRegistered: registered,
  PayoutAccountSet: payoutAccountSet,
}

/** Personal fields of a `companies` read-model document: its payout account's holder name. */
export const companyDocument: FieldsOf = (data) =>
  data.payoutAccount === undefined
    ? []
    : [{ subject: payoutAccountSubject(String(data.companyId)), paths: ["payoutAccount.accountHolderName"] }]
