/**
 * The rules a company registration (spec 2.2-2.5, 7) and a new location must
 * satisfy. Pure functions over untrusted input (a parsed JSON body is fine):
 * they report EVERY bad field at once, with a dotted path relative to the
 * request body (`owner.emailAddress`, `employees[2].emailAddress`,
 * `locations[0].zipCode`), and return the normalized data otherwise.
 *
 * Used by the Company decider and usable as-is by the HTTP layer.
 */
import { DateTime, Result, Schema } from "effect"
import * as CalendarDate from "../kernel/CalendarDate.ts"
import { type FieldIssue, ValidationFailed } from "../kernel/DomainError.ts"
import { CompanyReferenceId } from "../kernel/Ids.ts"
import * as Metadata from "../kernel/Metadata.ts"
import {
  type BusinessType,
  businessTypes,
  type CompanyProfile,
  type CompanyType,
  companyTypes,
  type DocumentType,
  documentTypes,
  type Employee,
  type LocationDetails,
  type Owner,
  type TaxIdType,
  taxIdTypes,
} from "./CompanyEvents.ts"

// ---------------------------------------------------------------------------
// Limits and vocabularies
// ---------------------------------------------------------------------------

/** Longest accepted text of each free-text field, in characters (after trimming). */
export const maxLength = {
  name: 200,
  streetNumberAndName: 200,
  apartmentNumber: 50,
  city: 100,
  title: 100,
  documentNumber: 50,
  emailAddress: 254,
  websiteUrl: 2048,
} as const

/** Most employees and locations accepted in one registration (keeps one event a reasonable size). */
export const maxEmployees = 500
export const maxLocations = 500

/** Youngest age of a company owner, in years, on the day of registration. */
export const minimumOwnerAge = 18

/**
 * US state abbreviations accepted in addresses: the 50 states, DC, the
 * inhabited territories (PR, GU, VI, AS, MP) and the military "states"
 * (AA, AE, AP). Written in uppercase as USPS prints them.
 */
// biome-ignore format: ten abbreviations per row read better
export const usStateCodes = [
  "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA",
  "HI", "ID", "IL", "IN", "IA", "KS", "KY", "LA", "ME", "MD",
  "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ",
  "NM", "NY", "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC",
  "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY",
  "DC",
  "PR", "GU", "VI", "AS", "MP",
  "AA", "AE", "AP",
] as const
export type UsStateCode = (typeof usStateCodes)[number]

// ---------------------------------------------------------------------------
// Field formats (each checked on the trimmed text)
// ---------------------------------------------------------------------------

const atext = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
const domainLabel = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
const topLevelLabel = "[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])"
const emailPattern = new RegExp(`^(?=[^@]{1,64}@)${atext}+(?:\\.${atext}+)*@(?:${domainLabel}\\.)+${topLevelLabel}$`)

/**
 * An email address: the dot-atom subset of RFC 5322 (no quoted local parts,
 * no IP-literal domains, no comments), local part at most 64 characters, a
 * domain with at least two labels, at most 254 characters in all.
 */
export const EmailAddress = Schema.String.check(
  Schema.isMaxLength(maxLength.emailAddress, { message: `must be at most ${maxLength.emailAddress} characters` }),
  Schema.isPattern(emailPattern, { message: "must be an email address such as name@example.com" }),
)

const e164Pattern = /^\+[1-9]\d{7,14}$/
const usPhonePattern = /^(?:\+?1[\s.-]?)?(?:\(([2-9]\d{2})\)|([2-9]\d{2}))[\s.-]?(\d{3})[\s.-]?(\d{4})$/

/**
 * A phone number, normalized to E.164, or undefined when the text is not one.
 * Accepted: E.164 (`+15551234567`, any country), and US 10-digit numbers
 * with an area code starting 2-9, written `5551234567`, `555-123-4567`,
 * `555.123.4567`, `555 123 4567`, `(555) 123-4567`, optionally preceded by
 * `1` or `+1` (US numbers become `+1` followed by the 10 digits).
 */
export const normalizePhoneNumber = (text: string): string | undefined => {
  if (e164Pattern.test(text)) return text
  const us = usPhonePattern.exec(text)
  return us ? `+1${us[1] ?? us[2]}${us[3]}${us[4]}` : undefined
}

/** A US ZIP code: `12345` or ZIP+4 `12345-6789`. */
export const ZipCode = Schema.String.check(
  Schema.isPattern(/^\d{5}(?:-\d{4})?$/, { message: "must be a US ZIP code such as 12345 or 12345-6789" }),
)

const stateCodes: ReadonlySet<string> = new Set(usStateCodes)

/** A US state, territory, DC or military abbreviation, uppercase (`CA`, `DC`, `PR`, `AE`). */
export const UsState = Schema.String.check(
  Schema.makeFilter((text: string) => stateCodes.has(text), {
    message: "must be an uppercase US state, territory or military abbreviation such as CA, DC or PR",
  }),
)

/** A website address: http(s), a host name with a dot, optional port, path, query and fragment; no spaces. */
export const WebsiteUrl = Schema.String.check(
  Schema.isMaxLength(maxLength.websiteUrl, { message: `must be at most ${maxLength.websiteUrl} characters` }),
  Schema.isPattern(new RegExp(`^https?://(?:${domainLabel}\\.)+${topLevelLabel}(?::\\d{1,5})?(?:[/?#]\\S*)?$`, "i"), {
    message: "must be an http or https address such as https://example.com",
  }),
)

/** A Social Security number: 9 digits, written `123456789` or `123-45-6789`. */
export const Ssn = Schema.String.check(
  Schema.isPattern(/^(?:\d{9}|\d{3}-\d{2}-\d{4})$/, {
    message: "must be 9 digits, written 123456789 or 123-45-6789",
  }),
)

const taxIdFormats: Record<TaxIdType, { readonly pattern: RegExp; readonly message: string }> = {
  EIN: { pattern: /^(?:\d{9}|\d{2}-\d{7})$/, message: "must be an EIN: 9 digits, written 123456789 or 12-3456789" },
  SSN: {
    pattern: /^(?:\d{9}|\d{3}-\d{2}-\d{4})$/,
    message: "must be an SSN: 9 digits, written 123456789 or 123-45-6789",
  },
  ITIN: {
    pattern: /^9(?:\d{8}|\d{2}-\d{2}-\d{4})$/,
    message: "must be an ITIN: 9 digits starting with 9, written 912345678 or 912-34-5678",
  },
}
const anyTaxId = /^[\d-]{9,11}$/

const oneOf = (values: ReadonlyArray<string>): string => `must be one of ${values.join(", ")}`

// ---------------------------------------------------------------------------
// Raw input shapes (what the edge receives; every field may be anything)
// ---------------------------------------------------------------------------

/** An address as received: all strings, apartmentNumber optional. */
export interface AddressInput {
  readonly streetNumberAndName: string
  readonly apartmentNumber?: string | null | undefined
  readonly zipCode: string
  readonly city: string
  readonly state: string
}

/** A location as received (spec 2.5; also the body of the add-location endpoint). */
export interface LocationInput extends AddressInput {
  readonly name: string
}

/** The owner as received (spec 2.3). */
export interface OwnerInput extends AddressInput {
  readonly name: string
  readonly emailAddress: string
  readonly contactNumber: string
  readonly title: string
  readonly documentNumber: string
  readonly documentType: string
  readonly ssn: string
  readonly dateOfBirth: string
}

/** An employee as received (spec 2.4). */
export interface EmployeeInput {
  readonly name: string
  readonly emailAddress: string
  readonly contactNumber: string
  readonly title: string
}

/** The company create request body as received (spec 2.2). */
export interface RegistrationInput extends AddressInput {
  readonly companyReferenceId: string
  readonly name: string
  readonly emailAddress: string
  readonly taxId: string
  readonly taxIdType: string
  readonly contactNumber: string
  readonly websiteUrl?: string | null | undefined
  readonly companyType: string
  /** Optional (issue 35): llc, corporation, soleProprietorship or partnership. */
  readonly businessType?: string | null | undefined
  readonly owner: OwnerInput
  readonly employees: ReadonlyArray<EmployeeInput>
  readonly locations: ReadonlyArray<LocationInput>
}

/**
 * A registration that passed every rule, normalized; locations do not have ids
 * yet. Its `owner` is the full record (SSN, document number) needed for the
 * KYB submission; the event keeps only `toOwnerRecord(owner)`.
 */
export interface ValidRegistration extends Omit<CompanyProfile, "owner"> {
  readonly owner: Owner
  readonly locations: ReadonlyArray<LocationDetails>
}

// ---------------------------------------------------------------------------
// The checker: walks the input, collects every issue
// ---------------------------------------------------------------------------

type Fields = { readonly [key: string]: unknown }

const isObject = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const join = (prefix: string, key: string): string => (prefix === "" ? key : `${prefix}.${key}`)

const hasControlCharacter = (text: string): boolean => {
  // Stryker disable next-line EqualityOperator: equivalent, one character past the end reads as NaN, no control character
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x20 || code === 0x7f) return true
  }
  return false
}

class Checker {
  readonly issues: Array<FieldIssue> = []

  report(field: string, message: string): void {
    this.issues.push({ field, message })
  }

  /** A present string, as sent (not trimmed). */
  string(object: Fields, prefix: string, key: string): string | undefined {
    const value = object[key]
    if (value === undefined || value === null) return this.fail(join(prefix, key), "is required")
    return typeof value === "string" ? value : this.fail(join(prefix, key), "must be a string")
  }

  /** A present string, trimmed; reports and returns undefined otherwise. Blank counts as missing when `optional`. */
  rawText(object: Fields, prefix: string, key: string, optional = false): string | undefined {
    const value = object[key]
    const field = join(prefix, key)
    if (value === undefined || value === null) {
      if (!optional) this.report(field, "is required")
      return undefined
    }
    if (typeof value !== "string") {
      this.report(field, "must be a string")
      return undefined
    }
    const text = value.trim()
    if (text === "") {
      if (!optional) this.report(field, "must not be empty")
      return undefined
    }
    return text
  }

  /** Required free text: trimmed, non-empty, at most `max` characters, no control characters. */
  text(object: Fields, prefix: string, key: string, max: number): string | undefined {
    const text = this.rawText(object, prefix, key, false)
    return text === undefined ? undefined : this.bounded(text, join(prefix, key), max)
  }

  /** Optional free text: absent, null or blank means none. */
  optionalText(object: Fields, prefix: string, key: string, max: number): string | undefined {
    const text = this.rawText(object, prefix, key, true)
    return text === undefined ? undefined : this.bounded(text, join(prefix, key), max)
  }

  private bounded(text: string, field: string, max: number): string | undefined {
    if (text.length > max) return this.fail(field, `must be at most ${max} characters`)
    if (hasControlCharacter(text)) return this.fail(field, "must not contain control characters such as line breaks")
    return text
  }

  /** Required text that must also satisfy `schema` (its first failing check names the problem). */
  formatted(object: Fields, prefix: string, key: string, schema: Schema.ConstraintDecoder<string>): string | undefined {
    const text = this.rawText(object, prefix, key, false)
    return text === undefined ? undefined : this.decode(text, join(prefix, key), schema)
  }

  decode<T>(text: string, field: string, schema: Schema.ConstraintDecoder<T>): T | undefined {
    const result = Schema.decodeUnknownResult(schema)(text)
    return Result.isSuccess(result) ? result.success : this.fail(field, result.failure.message)
  }

  oneOf<const L extends string>(object: Fields, prefix: string, key: string, values: ReadonlyArray<L>): L | undefined {
    const text = this.rawText(object, prefix, key, false)
    if (text === undefined) return undefined
    return (values as ReadonlyArray<string>).includes(text) ? (text as L) : this.fail(join(prefix, key), oneOf(values))
  }

  email(object: Fields, prefix: string, key: string): string | undefined {
    return this.formatted(object, prefix, key, EmailAddress)
  }

  phone(object: Fields, prefix: string, key: string): string | undefined {
    const text = this.rawText(object, prefix, key, false)
    if (text === undefined) return undefined
    return (
      normalizePhoneNumber(text) ??
      this.fail(
        join(prefix, key),
        "must be a phone number in E.164 form (+15551234567) or a US number such as (555) 123-4567, 555-123-4567 or 5551234567",
      )
    )
  }

  /** A nested object; reports and returns undefined when missing or not an object. */
  object(parent: Fields, prefix: string, key: string): Fields | undefined {
    const value = parent[key]
    if (value === undefined || value === null) return this.fail(join(prefix, key), "is required")
    return isObject(value) ? value : this.fail(join(prefix, key), "must be an object")
  }

  /** A list; absent or null means empty. */
  list(parent: Fields, key: string, max: number): ReadonlyArray<unknown> {
    const value = parent[key]
    if (value === undefined || value === null) return []
    if (!Array.isArray(value)) return this.fail(key, "must be an array") ?? []
    if (value.length > max) return this.fail(key, `must have at most ${max} entries`) ?? []
    return value
  }

  fail(field: string, message: string): undefined {
    this.report(field, message)
    return undefined
  }

  result<T>(build: () => T): Result.Result<T, ValidationFailed> {
    return this.issues.length === 0
      ? Result.succeed(build())
      : Result.fail(new ValidationFailed({ issues: this.issues }))
  }
}

interface AddressValues {
  readonly streetNumberAndName: string | undefined
  readonly apartmentNumber: string | undefined
  readonly zipCode: string | undefined
  readonly city: string | undefined
  readonly state: string | undefined
}

const checkAddress = (check: Checker, object: Fields, prefix: string): AddressValues => ({
  streetNumberAndName: check.text(object, prefix, "streetNumberAndName", maxLength.streetNumberAndName),
  apartmentNumber: check.optionalText(object, prefix, "apartmentNumber", maxLength.apartmentNumber),
  zipCode: check.formatted(object, prefix, "zipCode", ZipCode),
  city: check.text(object, prefix, "city", maxLength.city),
  state: check.formatted(object, prefix, "state", UsState),
})

/** The address fields once every check passed (`apartmentNumber` left out when none). */
const address = (values: AddressValues) => ({
  streetNumberAndName: values.streetNumberAndName!,
  ...(values.apartmentNumber === undefined ? {} : { apartmentNumber: values.apartmentNumber }),
  zipCode: values.zipCode!,
  city: values.city!,
  state: values.state!,
})

const checkLocation = (check: Checker, value: unknown, prefix: string): (() => LocationDetails) => {
  if (!isObject(value)) {
    check.report(prefix === "" ? "body" : prefix, "must be an object")
    // Stryker disable next-line ArrowFunction: equivalent, a refused location's builder is never called
    return () => undefined as never
  }
  const name = check.text(value, prefix, "name", maxLength.name)
  const where = checkAddress(check, value, prefix)
  return () => ({ name: name!, ...address(where) })
}

/** Validates one location; `prefix` is the path of the location in the request (empty for the add-location body). */
export const validateLocation = (input: unknown, prefix = ""): Result.Result<LocationDetails, ValidationFailed> => {
  const check = new Checker()
  const build = checkLocation(check, input, prefix)
  return check.result(build)
}

const utcDate = (at: DateTime.Utc): CalendarDate.CalendarDate =>
  CalendarDate.fromEpochMillis(DateTime.toEpochMillis(at))

/** True when someone born on `dateOfBirth` is at least `years` old on `today` (a Feb 29 birthday counts as Feb 28 in other years). */
export const isAtLeastYearsOld = (
  dateOfBirth: CalendarDate.CalendarDate,
  years: number,
  today: CalendarDate.CalendarDate,
): boolean => CalendarDate.compare(CalendarDate.addMonths(dateOfBirth, years * 12), today) <= 0

const checkOwner = (
  check: Checker,
  registration: Fields,
  at: DateTime.Utc,
): { readonly email: string | undefined; readonly build: () => Owner } => {
  const owner = check.object(registration, "", "owner")
  // Stryker disable next-line ObjectLiteral,ArrowFunction: equivalent, a missing owner is refused: its builder is never called
  if (owner === undefined) return { email: undefined, build: () => undefined as never }
  const p = "owner"
  const name = check.text(owner, p, "name", maxLength.name)
  const emailAddress = check.email(owner, p, "emailAddress")
  const contactNumber = check.phone(owner, p, "contactNumber")
  const title = check.text(owner, p, "title", maxLength.title)
  const documentNumber = check.text(owner, p, "documentNumber", maxLength.documentNumber)
  const documentType = check.oneOf<DocumentType>(owner, p, "documentType", documentTypes)
  const ssnText = check.formatted(owner, p, "ssn", Ssn)
  const dateText = check.rawText(owner, p, "dateOfBirth")
  let dateOfBirth: CalendarDate.CalendarDate | undefined
  if (dateText !== undefined) {
    dateOfBirth = check.decode(dateText, "owner.dateOfBirth", CalendarDate.CalendarDate)
    if (dateOfBirth !== undefined && !isAtLeastYearsOld(dateOfBirth, minimumOwnerAge, utcDate(at))) {
      dateOfBirth = check.fail("owner.dateOfBirth", `the owner must be at least ${minimumOwnerAge} years old`)
    }
  }
  const where = checkAddress(check, owner, p)
  const build = (): Owner => ({
    name: name!,
    emailAddress: emailAddress!,
    contactNumber: contactNumber!,
    title: title!,
    documentNumber: documentNumber!,
    documentType: documentType!,
    ssn: ssnText!.replaceAll("-", ""),
    dateOfBirth: dateOfBirth!,
    ...address(where),
  })
  return { email: emailAddress, build }
}

const checkTaxId = (check: Checker, registration: Fields, taxIdType: TaxIdType | undefined): string | undefined => {
  const text = check.rawText(registration, "", "taxId")
  if (text === undefined) return undefined
  // Without a valid type the registration is refused (taxIdType's issue): only the shape is reported, no value kept.
  if (taxIdType === undefined) {
    if (!anyTaxId.test(text)) check.report("taxId", "must be 9 digits, dashes allowed")
    return undefined
  }
  const format = taxIdFormats[taxIdType]
  return format.pattern.test(text) ? text.replaceAll("-", "") : check.fail("taxId", format.message)
}

/** Owner and employee email addresses must be unique within the registration, ignoring case (spec 2.2). */
const checkUniqueEmails = (check: Checker, emails: ReadonlyArray<readonly [string, string | undefined]>): void => {
  const seen = new Map<string, string>()
  for (const [field, email] of emails) {
    if (email === undefined) continue
    // Stryker disable next-line MethodExpression: equivalent, addresses are ASCII (the email pattern), where upper and lower case fold alike
    const key = email.toLowerCase()
    const first = seen.get(key)
    if (first === undefined) seen.set(key, field)
    else check.report(field, `duplicates ${first}: owner and employee email addresses must be unique`)
  }
}

/** The optional `metadata` (`Metadata` rules: each bad key named as `metadata.<key>`). */
const checkMetadata = (check: Checker, value: unknown): Metadata.Metadata | undefined => {
  if (value === undefined || value === null) return undefined
  if (!isObject(value)) {
    check.report("metadata", "must be an object of string values")
    return undefined
  }
  const before = check.issues.length
  for (const [key, item] of Object.entries(value))
    if (typeof item !== "string") check.report(`metadata.${key}`, "must be a string")
  if (check.issues.length > before) return undefined
  const metadata = value as Metadata.Metadata
  for (const issue of Metadata.issues("metadata", metadata)) check.report(issue.field, issue.message)
  return metadata
}

/**
 * Validates a company create request (spec 2.2-2.5) received at instant `at`
 * (used for the owner's age). Returns the normalized registration, or every
 * bad field at once.
 */
export const validateRegistration = (
  input: unknown,
  at: DateTime.Utc,
): Result.Result<ValidRegistration, ValidationFailed> => {
  const check = new Checker()
  if (!isObject(input)) {
    check.report("body", "must be an object")
    // Stryker disable next-line ArrowFunction: equivalent, a refused body's builder is never called
    return check.result(() => undefined as never)
  }
  // not trimmed: the partner's key is kept exactly as sent, so surrounding spaces are refused, not removed
  const referenceText = check.string(input, "", "companyReferenceId")
  const companyReferenceId =
    referenceText === undefined ? undefined : check.decode(referenceText, "companyReferenceId", CompanyReferenceId)
  const name = check.text(input, "", "name", maxLength.name)
  const emailAddress = check.email(input, "", "emailAddress")
  const taxIdType = check.oneOf<TaxIdType>(input, "", "taxIdType", taxIdTypes)
  const taxId = checkTaxId(check, input, taxIdType)
  const where = checkAddress(check, input, "")
  const contactNumber = check.phone(input, "", "contactNumber")
  const websiteText = check.optionalText(input, "", "websiteUrl", maxLength.websiteUrl)
  const websiteUrl = websiteText === undefined ? undefined : check.decode(websiteText, "websiteUrl", WebsiteUrl)
  const companyType = check.oneOf<CompanyType>(input, "", "companyType", companyTypes)
  const businessType =
    input.businessType === undefined || input.businessType === null
      ? undefined
      : check.oneOf<BusinessType>(input, "", "businessType", businessTypes)
  const owner = checkOwner(check, input, at)

  const employeeValues = check.list(input, "employees", maxEmployees).map((value, index) => {
    const p = `employees[${index}]`
    if (!isObject(value)) {
      check.report(p, "must be an object")
      // Stryker disable next-line ObjectLiteral,ArrowFunction: equivalent, a refused employee's builder is never called
      return { email: undefined, build: () => undefined as never }
    }
    const employeeName = check.text(value, p, "name", maxLength.name)
    const email = check.email(value, p, "emailAddress")
    const phone = check.phone(value, p, "contactNumber")
    const title = check.text(value, p, "title", maxLength.title)
    return {
      email,
      build: (): Employee => ({ name: employeeName!, emailAddress: email!, contactNumber: phone!, title: title! }),
    }
  })
  checkUniqueEmails(check, [
    ["owner.emailAddress", owner.email],
    ...employeeValues.map((e, index) => [`employees[${index}].emailAddress`, e.email] as const),
  ])
  const locations = check
    .list(input, "locations", maxLocations)
    .map((value, index) => checkLocation(check, value, `locations[${index}]`))
  const metadata = checkMetadata(check, input.metadata)

  const validated = check.result(() => ({
    companyReferenceId: companyReferenceId!,
    name: name!,
    emailAddress: emailAddress!,
    taxId: taxId!,
    taxIdType: taxIdType!,
    ...address(where),
    contactNumber: contactNumber!,
    ...(websiteUrl === undefined ? {} : { websiteUrl }),
    companyType: companyType!,
    ...(businessType === undefined ? {} : { businessType }),
    owner: owner.build(),
    employees: employeeValues.map((e) => e.build()),
    locations: locations.map((build) => build()),
    ...(metadata === undefined ? {} : { metadata }),
  }))
  if (validated._tag === "Success") validatedAt.set(validated.success, DateTime.toEpochMillis(at))
  return validated
}

/** Registrations `validateRegistration` accepted, with the instant they were checked at. */
const validatedAt = new WeakMap<object, number>()

/**
 * `input` itself when it is a registration `validateRegistration` accepted at `at` (the use case
 * validates the request once and hands the result to the decider, which need not check it again).
 */
export const alreadyValidated = (input: unknown, at: DateTime.Utc): ValidRegistration | undefined =>
  // A WeakMap answers undefined for a key that is not an object (null, a text): no need to test for one first.
  validatedAt.get(input as object) === DateTime.toEpochMillis(at) ? (input as ValidRegistration) : undefined
