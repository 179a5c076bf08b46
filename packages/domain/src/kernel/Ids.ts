/**
 * Branded identifiers of the domain.
 *
 * Every id is a lowercase, non-nil UUID string, branded so that a `ConsentId`
 * can never be passed where a `CompanyId` is expected. Decoding accepts any
 * case (RFC 9562: UUIDs compare case-insensitively) and yields the canonical
 * lower case, so an id a client sends in upper case names the same resource
 * and is answered in lower case. New ids are never made
 * here: they arrive from the edge (see `IdGenerator`), so decisions stay pure.
 */
import { Schema, SchemaTransformation } from "effect"

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const anyCaseUuidPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

const uuidMessage = "must be a UUID such as 3f1c2b1e-8a3d-4c2e-9f5a-2b7d1e0c4a6f"

/**
 * A lowercase RFC 9562 UUID (versions 1 to 8, never the nil UUID); decoded
 * from any case, to lower case.
 */
export const Uuid = Schema.String.annotate({ format: "uuid" })
  .check(Schema.isPattern(anyCaseUuidPattern, { expected: "a UUID", message: uuidMessage }))
  .pipe(Schema.decode(SchemaTransformation.toLowerCase()))
  .check(Schema.isPattern(uuidPattern, { expected: "a UUID", message: uuidMessage }))

export const PartnerId = Uuid.pipe(Schema.brand("PartnerId"))
export type PartnerId = typeof PartnerId.Type
export const CompanyId = Uuid.pipe(Schema.brand("CompanyId"))
export type CompanyId = typeof CompanyId.Type
export const LocationId = Uuid.pipe(Schema.brand("LocationId"))
export type LocationId = typeof LocationId.Type
export const PaymentRequestId = Uuid.pipe(Schema.brand("PaymentRequestId"))
export type PaymentRequestId = typeof PaymentRequestId.Type
export const ConsentId = Uuid.pipe(Schema.brand("ConsentId"))
export type ConsentId = typeof ConsentId.Type
export const PaymentPlanId = Uuid.pipe(Schema.brand("PaymentPlanId"))
export type PaymentPlanId = typeof PaymentPlanId.Type
export const DebitAuthId = Uuid.pipe(Schema.brand("DebitAuthId"))
export type DebitAuthId = typeof DebitAuthId.Type
export const TransferId = Uuid.pipe(Schema.brand("TransferId"))
export type TransferId = typeof TransferId.Type
export const RegistrationId = Uuid.pipe(Schema.brand("RegistrationId"))
export type RegistrationId = typeof RegistrationId.Type
export const BankAccountId = Uuid.pipe(Schema.brand("BankAccountId"))
export type BankAccountId = typeof BankAccountId.Type
export const MerchantId = Uuid.pipe(Schema.brand("MerchantId"))
export type MerchantId = typeof MerchantId.Type
export const CardPaymentId = Uuid.pipe(Schema.brand("CardPaymentId"))
export type CardPaymentId = typeof CardPaymentId.Type
export const VerificationId = Uuid.pipe(Schema.brand("VerificationId"))
export type VerificationId = typeof VerificationId.Type
export const EventId = Uuid.pipe(Schema.brand("EventId"))
export type EventId = typeof EventId.Type
export const PayoutAccountId = Uuid.pipe(Schema.brand("PayoutAccountId"))
export type PayoutAccountId = typeof PayoutAccountId.Type
export const PayoutId = Uuid.pipe(Schema.brand("PayoutId"))
export type PayoutId = typeof PayoutId.Type

/** Longest partner reference id we accept (the spec sets none; 64 fits every common key format). */
export const companyReferenceIdMaxLength = 64

/**
 * The partner's own external identifier of a company: trimmed, non-empty,
 * without control characters and at most 64 characters. Unique per partner (enforced by the read side).
 */
export const CompanyReferenceId = Schema.String.check(
  Schema.isTrimmed({ message: "must not start or end with whitespace" }),
  Schema.isNonEmpty({ message: "must not be empty" }),
  Schema.isPattern(/^\P{Cc}*$/u, { message: "must not contain control characters" }),
  Schema.isMaxLength(companyReferenceIdMaxLength, {
    message: `must be at most ${companyReferenceIdMaxLength} characters`,
  }),
).pipe(Schema.brand("CompanyReferenceId"))
export type CompanyReferenceId = typeof CompanyReferenceId.Type
