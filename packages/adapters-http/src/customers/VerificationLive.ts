/** Handlers of the `verification` group: KYC start and status, personal data, chat signature (customer tokens only). */
import { type CustomerProviders, Personal, Traced, Verification } from "@partnerpay/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { requireCustomer } from "../cross-cutting/Authentication.ts"
import { ChatSigner } from "./CustomerIdentityPorts.ts"
import { toProblem } from "./IdentityProblems.ts"

/** Provider ports these handlers need (named so the layer's type can be emitted). */
export type Requires = CustomerProviders.BankLinker | CustomerProviders.KycProvider

export const VerificationLive = HttpApiBuilder.group(
  Api,
  "verification",
  Effect.fn(function* (handlers) {
    const signer = yield* ChatSigner
    return handlers
      .handle(
        "startKyc",
        Traced.fn("VerificationLive.startKyc")(function* ({ payload }) {
          const { partnerId, registrationId } = yield* requireCustomer
          return yield* Verification.start(partnerId, registrationId, payload.deviceId).pipe(Effect.mapError(toProblem))
        }),
      )
      .handle(
        "checkVerification",
        Traced.fn("VerificationLive.checkVerification")(function* () {
          const { partnerId, registrationId } = yield* requireCustomer
          return yield* Verification.check(partnerId, registrationId).pipe(Effect.mapError(toProblem))
        }),
      )
      .handle(
        "personalData",
        Traced.fn("VerificationLive.personalData")(function* () {
          const { partnerId, registrationId } = yield* requireCustomer
          const data = yield* Verification.personalData(partnerId, registrationId).pipe(Effect.mapError(toProblem))
          // An erased customer's fields all read "[erased]" (docs/personal-data.md).
          return {
            ...data,
            birthDate: Personal.isErased(data.birthDate) ? data.birthDate : `${data.birthDate}T00:00:00.000Z`,
          }
        }),
      )
      .handle(
        "chatSignature",
        Traced.fn("VerificationLive.chatSignature")(function* () {
          const { registrationId } = yield* requireCustomer
          return { userId: registrationId, signature: yield* signer.sign(registrationId) }
        }),
      )
  }),
)
