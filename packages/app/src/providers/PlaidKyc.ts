/**
 * `KycProvider` on Plaid Identity Verification (`PARTNERPAY_PROVIDER_KYC=plaid`), with the official `plaid`
 * SDK. The interface's KYC start hands out a `linkToken`: that is Plaid Link running the operator's
 * Identity Verification template (`PARTNERPAY_PLAID_IDV_TEMPLATE_ID`), where the customer types their
 * identity and Plaid checks it; partnerpay never collects a full SSN.
 *
 * - `start` -> `/link/token/create` (product `identity_verification`, the template, `client_user_id` the
 *   customer's registration id, the customer's phone number, Plaid's webhook URL when set);
 * - `check` -> `/identity_verification/list` (the template, the registration id): the newest verification,
 *   `success` Verified, `failed` Rejected, any other status Pending (`active`, `pending_review`; `expired`
 *   and `canceled`: the customer starts again); none at all is `KycSessionNotFound`. The interface's
 *   `referenceId` is a UUID: the one named by Plaid's verification id (`idv_...`, a SHA-256 of it in UUID
 *   form, `referenceOf`), the adapter remembering which verification it names; `redirectUrl` is Plaid's
 *   shareable URL;
 * - `personalData` -> `/identity_verification/get` of the verification the reference names (asked right
 *   after a Verified check; after a restart in between the reference is unknown, `KycSessionNotFound`,
 *   the verification stays Pending and the next check names it again): the name, date of birth, e-mail and phone Plaid
 *   confirmed, the SSN reduced to its last four digits here. A verification Plaid does not know is
 *   `KycSessionNotFound`; a verified one lacking a field the interface needs is `ProviderUnavailable`
 *   (the verification stays Pending: nothing incomplete is recorded).
 *
 * The verdict is one decision of the domain (`Verification.check`), reached from the customer's polling
 * (GET /Verification/CheckVerification) or from Plaid's `IDENTITY_VERIFICATION` webhook
 * (`PlaidWebhooks.ts`). Plaid's failures are `ProviderUnavailable` naming the operation and Plaid's code.
 */

import { createHash } from "node:crypto"
import { CalendarDate, CustomerProviders, Providers, Traced } from "@partnerpay/domain"
import { DateTime, Effect, Layer, Schema } from "effect"
import { CountryCode, IdentityVerificationStatus, Products } from "plaid"
import * as Metrics from "../observability/Metrics.ts"
import * as PlaidBankLinker from "./PlaidBankLinker.ts"

/** Plaid's settings with the Identity Verification template (Config.ts demands it with KYC on Plaid). */
export type PlaidKycConfig = PlaidBankLinker.PlaidConfig & { readonly identityVerificationTemplateId: string }

const provider = "Plaid"

const unavailable = (operation: string, thrown: unknown) => {
  const response = (thrown as { response?: { status?: number; data?: { error_code?: unknown } } } | null)?.response
  const code = typeof response?.data?.error_code === "string" ? response.data.error_code : "no error code"
  return new Providers.ProviderUnavailable({
    provider,
    reason: `${operation}: ${
      response?.status === undefined
        ? "no answer (timeout or connection error)"
        : `Plaid answered ${response.status} (${code})`
    }`,
  })
}

const call = <A>(operation: string, run: () => Promise<{ readonly data: A }>) =>
  Effect.tryPromise({ try: run, catch: (thrown) => unavailable(operation, thrown) }).pipe(
    Effect.map((response) => response.data),
    Metrics.countProviderCall(provider, operation),
    Traced.withSpan(`Plaid.${operation}`),
  )

const incomplete = (field: string) =>
  new Providers.ProviderUnavailable({ provider, reason: `identity verification: Plaid gave no ${field}` })

/** The confirmed person, as the interface gives it (the SSN's last four digits only). */
const Person = Schema.Struct({
  profileName: Schema.String,
  firstName: Schema.NonEmptyString,
  lastName: Schema.NonEmptyString,
  birthDate: CalendarDate.CalendarDate,
  ssnLastFourDigits: Schema.String.check(Schema.isPattern(/^\d{4}$/)),
  emailAddress: Schema.NonEmptyString,
  phoneNumber: Schema.String.check(Schema.isPattern(/^\+[1-9]\d{6,14}$/)),
})

/** The interface's reference (a lowercase UUID, version 8) of a Plaid verification id. */
export const referenceOf = (identityVerificationId: string): string => {
  const hex = createHash("sha256").update(identityVerificationId, "utf8").digest("hex")
  const variant = ((Number.parseInt(hex[16] ?? "0", 16) & 0x3) | 0x8).toString(16)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

/** How many references the adapter remembers (the oldest forgotten first). */
const rememberedReferences = 10_000

/** The interface's status of a Plaid verification status. */
export const statusOf = (status: string): CustomerProviders.KycCheck["status"] =>
  status === IdentityVerificationStatus.Success
    ? "Verified"
    : status === IdentityVerificationStatus.Failed
      ? "Rejected"
      : "Pending"

export const make = (config: PlaidKycConfig) => {
  const plaid = PlaidBankLinker.client(config)
  const templateId = config.identityVerificationTemplateId
  const verifications = new Map<string, string>()
  const remember = (identityVerificationId: string) => {
    const reference = referenceOf(identityVerificationId)
    verifications.delete(reference)
    verifications.set(reference, identityVerificationId)
    if (verifications.size > rememberedReferences) {
      const oldest = verifications.keys().next()
      if (oldest.done !== true) verifications.delete(oldest.value)
    }
    return reference
  }
  return CustomerProviders.KycProvider.of({
    start: Traced.fn("PlaidKyc.start")(function* ({ registrationId, phoneNumber }) {
      const answer = yield* call("identity verification link token", () =>
        plaid.linkTokenCreate({
          client_name: config.clientName,
          language: "en",
          country_codes: [CountryCode.Us],
          user: { client_user_id: registrationId, phone_number: phoneNumber },
          products: [Products.IdentityVerification],
          identity_verification: { template_id: templateId },
          ...(config.webhookUrl === undefined ? {} : { webhook: config.webhookUrl }),
        }),
      )
      const expiration = DateTime.make(answer.expiration)
      if (expiration._tag === "None") return yield* incomplete("link token expiration")
      return { linkToken: answer.link_token, expiration: DateTime.toUtc(expiration.value) }
    }),
    check: Traced.fn("PlaidKyc.check")(function* ({ registrationId, tokenId }) {
      const answer = yield* call("identity verification list", () =>
        plaid.identityVerificationList({ template_id: templateId, client_user_id: registrationId }),
      )
      const newest = [...answer.identity_verifications].sort((a, b) => a.created_at.localeCompare(b.created_at)).at(-1)
      if (newest === undefined) return yield* new CustomerProviders.KycSessionNotFound({ tokenId })
      const check: CustomerProviders.KycCheck = {
        status: statusOf(newest.status),
        referenceId: remember(newest.id),
        redirectUrl: newest.shareable_url ?? "",
      }
      return check
    }),
    personalData: Traced.fn("PlaidKyc.personalData")(function* (referenceId) {
      const identityVerificationId = referenceId.startsWith("idv_") ? referenceId : verifications.get(referenceId)
      if (identityVerificationId === undefined) {
        return yield* new CustomerProviders.KycSessionNotFound({ tokenId: referenceId })
      }
      const verification = yield* Effect.tryPromise({
        try: () => plaid.identityVerificationGet({ identity_verification_id: identityVerificationId }),
        catch: (thrown): CustomerProviders.KycSessionNotFound | Providers.ProviderUnavailable => {
          const response = (thrown as { response?: { status?: number; data?: { error_code?: unknown } } } | null)
            ?.response
          return response?.status === 400 && response.data?.error_code === "INVALID_FIELD"
            ? new CustomerProviders.KycSessionNotFound({ tokenId: referenceId })
            : unavailable("identity verification", thrown)
        },
      }).pipe(
        Effect.map((response) => response.data),
        Metrics.countProviderCall(provider, "identity verification"),
        Traced.withSpan("Plaid.identity verification"),
      )
      const user = verification.user
      return yield* Schema.decodeUnknownEffect(Person)({
        profileName: "",
        firstName: user.name?.given_name,
        lastName: user.name?.family_name,
        birthDate: user.date_of_birth,
        // Only the last four digits ever leave this adapter.
        ssnLastFourDigits: user.id_number?.value.replace(/\D/g, "").slice(-4),
        emailAddress: user.email_address,
        phoneNumber: user.phone_number,
      }).pipe(Effect.mapError(() => incomplete("name, date of birth, SSN, e-mail address or phone number")))
    }),
  })
}

/** KYC on Plaid; without a template (Config.ts refuses to start so) every call is unavailable. */
export const layer = (config: PlaidBankLinker.PlaidConfig): Layer.Layer<CustomerProviders.KycProvider> =>
  Layer.sync(CustomerProviders.KycProvider, () =>
    make({ ...config, identityVerificationTemplateId: config.identityVerificationTemplateId ?? "" }),
  )
