/**
 * Use cases of a customer's identity verification (KYC): POST
 * /Verification/StartKyc, GET /Verification/CheckVerification and GET
 * /Verification/PersonalData.
 *
 * StartKyc opens a session with a new `tokenId`, also usable as a bank-link
 * session (PUT /Account/Link): for a customer not yet verified it starts a
 * verification with the `KycProvider` (`Customer.StartKyc`); a verified
 * customer gets a plain bank-link session from the `BankLinker`
 * (`Customer.OpenBankLinkSession`) so they can link more accounts.
 *
 * CheckVerification asks the provider for the verdict while the verification
 * is Pending and records a final one (`Customer.RecordKycResult`, with the
 * confirmed personal data when Verified). Personal data is read from the
 * `customers` read model and holds only the SSN's last four digits.
 */

import { DateTime, Effect, Schema } from "effect"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import { NotFound, ValidationFailed } from "../kernel/DomainError.ts"
import type { PartnerId, RegistrationId } from "../kernel/Ids.ts"
import * as Traced from "../kernel/Traced.ts"
import { customerDocument, loadCustomer } from "./BankAccounts.ts"
import * as Customer from "./Customer.ts"
import { BankLinker, KycProvider } from "./CustomerProviders.ts"

/** A verification (or bank-link) session as answered to the customer's device. */
export const Session = Schema.Struct({
  tokenId: Schema.String,
  linkToken: Schema.String,
  expiration: Schema.DateTimeUtcFromString,
})
export type Session = typeof Session.Type

/** Records the session the provider opened (its own unit, after the provider answered). */
const recordSession = UseCase.fn("Verification.recordSession")(function* (
  registrationId: RegistrationId,
  kind: "OpenBankLinkSession" | "StartKyc",
  tokenId: string,
  expiration: DateTime.Utc,
) {
  const at = yield* DateTime.now
  return yield* CommandHandler.handle(Customer.aggregate, registrationId, { _tag: kind, tokenId, expiration, at })
})

/** Starts identity verification (or, once verified, opens a bank-link session) for the customer's device. */
export const start = Traced.fn("Verification.start")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
  deviceId: string,
) {
  if (deviceId.trim().length === 0) return yield* ValidationFailed.of("deviceId", "must not be empty")
  if (deviceId.length > Customer.maxTextLength) {
    return yield* ValidationFailed.of("deviceId", `must be at most ${Customer.maxTextLength} characters`)
  }
  const customer = yield* loadCustomer(partnerId, registrationId)
  const tokenId = yield* (yield* IdGenerator).next
  const verified = customer.kycStatus === "Verified"
  const provided = verified
    ? yield* (yield* BankLinker).createLinkToken({ registrationId, tokenId })
    : yield* (yield* KycProvider).start({ registrationId, tokenId, deviceId, phoneNumber: customer.phoneNumber })
  yield* recordSession(registrationId, verified ? "OpenBankLinkSession" : "StartKyc", tokenId, provided.expiration)
  const session: Session = { tokenId, linkToken: provided.linkToken, expiration: provided.expiration }
  return session
})

/** The answer of a verification check: the one declaration the HTTP response reuses. */
export const VerificationCheck = Schema.Struct({
  status: Customer.KycStatus,
  /** The provider's reference of the verification; null before one was started. */
  referenceId: Schema.NullOr(Schema.String),
  /** Where the client continues a pending verification; empty when nothing is left to do. */
  redirectUrl: Schema.String,
})
export type VerificationCheck = typeof VerificationCheck.Type

/** Records the provider's final verdict (its own unit, after the provider answered). */
const recordKycResult = UseCase.fn("Verification.recordKycResult")(function* (
  registrationId: RegistrationId,
  outcome: Customer.RecordKycResult["outcome"],
  referenceId: string,
  personalData: Customer.RecordKycResult["personalData"],
) {
  const at = yield* DateTime.now
  return yield* CommandHandler.handle(
    Customer.aggregate,
    registrationId,
    { _tag: "RecordKycResult", outcome, referenceId, personalData, at },
    { retryOnConflict: 3 },
  )
})

/** The customer's verification status, after recording the provider's verdict if it is final now. */
export const check = Traced.fn("Verification.check")(function* (partnerId: PartnerId, registrationId: RegistrationId) {
  const document = yield* customerDocument(partnerId, registrationId)
  const done = (status: Customer.KycStatus, referenceId: string | null, redirectUrl = ""): VerificationCheck => ({
    status,
    referenceId,
    redirectUrl,
  })
  if (document.kycStatus !== "Pending" || document.kycSession === null) {
    return done(document.kycStatus, document.kycReferenceId)
  }
  const provider = yield* KycProvider
  const verdict = yield* provider
    .check({ registrationId, tokenId: document.kycSession.tokenId })
    .pipe(Effect.catchTag("KycSessionNotFound", () => Effect.succeed(undefined)))
  if (verdict === undefined) return done("Pending", null)
  if (verdict.status === "Pending") return done("Pending", verdict.referenceId, verdict.redirectUrl)
  const personalData =
    verdict.status === "Verified"
      ? yield* provider
          .personalData(verdict.referenceId)
          .pipe(Effect.catchTag("KycSessionNotFound", () => Effect.succeed(undefined)))
      : undefined
  // The provider lost the verified person's data: leave the verification Pending rather than record it incomplete.
  if (verdict.status === "Verified" && personalData === undefined) return done("Pending", verdict.referenceId)
  const handled = yield* recordKycResult(registrationId, verdict.status, verdict.referenceId, personalData)
  return done(Customer.kycStatus(handled.state), verdict.referenceId, verdict.redirectUrl)
})

/**
 * The provider said the customer's verification changed (a verified webhook): the same decision as the
 * customer's own check, for the customer's partner. `undefined`: no such customer (nothing recorded).
 */
export const recheck = Traced.fn("Verification.recheck")(function* (registrationId: RegistrationId) {
  const { state } = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Customer.aggregate, registrationId))
  if (state._tag !== "Registered") return undefined
  return yield* check(state.partnerId, registrationId).pipe(
    Effect.catchTag("NotFound", () => Effect.succeed(undefined)),
  )
})

/** The verified customer's personal data (spec 2.14); NotFound (PersonalData) before verification. */
export const personalData = Traced.fn("Verification.personalData")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
) {
  const document = yield* customerDocument(partnerId, registrationId)
  if (document.personalData === null) return yield* new NotFound({ entity: "PersonalData" })
  return document.personalData
})
