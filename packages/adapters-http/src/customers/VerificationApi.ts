/**
 * A customer's identity verification (section 4, 2.14, 2.15). Customer
 * tokens only (a partner token gets 403).
 *
 * - POST /Verification/StartKyc: opens a session `tokenId` (also the
 *   bank-link session of PUT /Account/Link). A verified customer gets a
 *   bank-link session to link more accounts.
 * - GET /Verification/CheckVerification: `status` NotStarted, Pending,
 *   Verified or Rejected; `referenceId` the provider's reference (null before
 *   a verification started); `redirectUrl` where to continue ("" when nothing
 *   is left to do).
 * - GET /Verification/PersonalData: spec 2.14, only the SSN's last four
 *   digits; `birthDate` as a date-time at midnight UTC; 404 before the
 *   identity is verified.
 * - GET /Verification/ChatSignature: `userId` = registration id, `signature`
 *   = hex HMAC-SHA256 of it with the chat secret.
 */
import { Customer, Ids, Verification } from "@partnerpay/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"
import * as Problem from "../cross-cutting/Problem.ts"

export const StartKycRequest = Schema.Struct({ deviceId: Schema.String })
export const StartKycResponse = Schema.Struct({ ...Verification.Session.fields, tokenId: Ids.Uuid })

export const VerificationStatus = Customer.KycStatus

export const CheckVerificationResponse = Verification.VerificationCheck

export const PersonalDataResponse = Schema.Struct({
  profileName: Schema.String,
  firstName: Schema.String,
  lastName: Schema.String,
  birthDate: Schema.String.annotate({
    description: 'date-time, midnight UTC of the birth date; every field reads "[erased]" once the customer is erased',
  }),
  ssnLastFourDigits: Schema.String,
  emailAddress: Schema.String,
  phoneNumber: Schema.String,
})

export const ChatSignatureResponse = Schema.Struct({
  userId: Schema.String,
  signature: Schema.String,
})

export class VerificationApi extends HttpApiGroup.make("verification")
  .add(
    HttpApiEndpoint.post("startKyc", "/Verification/StartKyc", {
      payload: StartKycRequest,
      success: StartKycResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Start identity verification",
        description:
          "Starts KYC for the customer's device and opens a bank-link session (tokenId); for a verified customer, opens a bank-link session only.",
      }),
    ),
    HttpApiEndpoint.get("checkVerification", "/Verification/CheckVerification", {
      success: CheckVerificationResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(OpenApi.annotations({ summary: "Identity verification status" })),
    HttpApiEndpoint.get("personalData", "/Verification/PersonalData", {
      success: PersonalDataResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Verified personal data",
        description: "Only the last four digits of the SSN. 404 before the identity is verified.",
      }),
    ),
    HttpApiEndpoint.get("chatSignature", "/Verification/ChatSignature", {
      success: ChatSignatureResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(OpenApi.annotations({ summary: "Signature of the customer's chat identity" })),
  )
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({ title: "Verification", description: "Customer identity verification (customer token)" }),
  ) {}
