/**
 * Customer login by one-time code (section 4, changelog v0.4 "stronger OTP
 * protections"). Both operations are called by a partner (partner token) for
 * one of its end users' phone numbers (E.164).
 *
 * POST /Login/SendOtp is an addition (the interface shows only the check):
 * it sends a 6-digit code valid 5 minutes and answers `expiresAt`.
 * PUT /Login/CheckOtp verifies the code; the interface gives no body, we
 * answer `{ accessToken, registrationId }`: the customer-scoped token is the
 * point of logging in. The first successful login registers the customer.
 *
 * DELETE /Login/Session is an addition: called with a customer token, it logs
 * the customer out everywhere (every customer token issued so far is revoked,
 * including the one presented) and answers 204. A partner token is 403.
 *
 * Refusals: wrong code 422 OTP_INVALID (recorded; the fifth in a row locks for
 * 15 min, then 1 h, then 24 h; at most 20 wrong codes a day),
 * no pending code 422 OTP_NOT_ISSUED, expired code 422 OTP_EXPIRED, locked or
 * more than 5 codes in an hour 429 LOGIN_LOCKED / OTP_RESEND_LIMIT with
 * Retry-After, undeliverable number 422 OTP_DELIVERY_FAILED.
 */
import { Ids } from "@partnerpay/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"
import * as Problem from "../cross-cutting/Problem.ts"

const PhoneNumber = Schema.String.annotate({ description: "E.164 phone number, e.g. +14155550123" })

export const SendOtpRequest = Schema.Struct({ phoneNumber: PhoneNumber })
export const SendOtpResponse = Schema.Struct({
  expiresAt: Schema.DateTimeUtcFromString.annotate({ description: "When the code stops working (5 minutes)" }),
})

export const CheckOtpRequest = Schema.Struct({
  phoneNumber: PhoneNumber,
  code: Schema.String.annotate({ description: "The 6-digit code sent by SMS" }),
})
export const CheckOtpResponse = Schema.Struct({
  accessToken: Schema.String.annotate({ description: "Customer-scoped bearer token, valid 3600 seconds" }),
  registrationId: Ids.RegistrationId,
})

const errors = [...Problem.DomainProblems, Problem.TooManyRequests] as const

export class LoginApi extends HttpApiGroup.make("login")
  .add(
    HttpApiEndpoint.post("sendOtp", "/Login/SendOtp", {
      payload: SendOtpRequest,
      success: SendOtpResponse,
      error: errors,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Send a one-time login code",
        description:
          "Addition to the interface. Sends a 6-digit code, valid 5 minutes, to the end user's phone. At most 5 codes per phone per hour; none while the phone is locked (429).",
      }),
    ),
    HttpApiEndpoint.put("checkOtp", "/Login/CheckOtp", {
      payload: CheckOtpRequest,
      success: CheckOtpResponse,
      error: errors,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Log a customer in with the one-time code",
        description:
          "Verifies the code (single use). Success answers a customer token and the registration id (the first login registers the customer; the same phone at another partner is another customer). 5 wrong codes lock the phone 15 minutes.",
      }),
    ),
    HttpApiEndpoint.delete("logout", "/Login/Session", {
      success: HttpApiSchema.Empty(204),
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Log the customer out everywhere",
        description:
          "Addition to the interface. Called with a customer token: revokes every customer token issued so far (the presented one included) on every device; answers 204. A partner token is 403.",
      }),
    ),
  )
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({
      title: "Login",
      description: "Customer one-time-code login (partner token) and logout (customer token)",
    }),
  ) {}
