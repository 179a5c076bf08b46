/**
 * The provider ports of the payments area: e-signature (reimbursement
 * requests). Money moves through its own port (`MoneyMovement.ts`: debits,
 * refund credits, payouts and their outcomes), and the card charger of in-app
 * card payments is its own port (`CardCharger.ts`). Only
 * interfaces and typed errors live here; the application provides
 * implementations. Every port may fail with `ProviderUnavailable`
 * (`infrastructure/Providers.ts`).
 */
import { Context, type DateTime, type Effect, Schema } from "effect"
import type { FeatureNotAvailable, ProviderUnavailable } from "../infrastructure/Providers.ts"
import type { RegistrationId, TransferId } from "../kernel/Ids.ts"

/** The e-signature provider refused to create the envelope (unknown template, invalid signer). */
export class ESignatureRefused extends Schema.TaggedError<ESignatureRefused>()("ESignatureRefused", {
  reason: Schema.String,
}) {}

// ---------------------------------------------------------------------------
// E-signature
// ---------------------------------------------------------------------------

/**
 * Where an envelope is: `Sent` (waiting for the signer), `Completed` (signed: the reimbursement
 * claim is complete), `Declined` (the signer refused) or `Voided` (withdrawn by the provider).
 */
export const EnvelopeStatus = Schema.Literals(["Sent", "Completed", "Declined", "Voided"])
export type EnvelopeStatus = typeof EnvelopeStatus.Type

/**
 * Signing envelopes, used to have a reimbursement request signed (POST /Reimbursement/Create), and
 * their status, which completes the reimbursement once Completed (`Transfers.checkReimbursement`:
 * polled by the app's `reimbursement-completion` worker; a provider's notification records the same
 * status through `Transfers.recordEnvelopeStatus`). Optional in production: a service without one
 * fails `createReimbursementEnvelope` with `FeatureNotAvailable` (so no envelope is ever pending).
 */
export class ESignature extends Context.Service<
  ESignature,
  {
    /** Creates the envelope for reimbursing `transferId`; the signer opens `signingUrl`. */
    readonly createReimbursementEnvelope: (request: {
      readonly transferId: TransferId
      /** The spec's providerId of POST /Reimbursement/Create. */
      readonly providerId: string
      readonly signer: { readonly registrationId: RegistrationId; readonly name: string; readonly emailAddress: string }
    }) => Effect.Effect<
      { readonly envelopeId: string; readonly signingUrl: string },
      ESignatureRefused | ProviderUnavailable | FeatureNotAvailable
    >
    /** Where the envelope is now; `sentAt` is when it was created (recorded on the transfer). */
    readonly envelopeStatus: (request: {
      readonly envelopeId: string
      readonly transferId: TransferId
      readonly sentAt: DateTime.Utc
    }) => Effect.Effect<{ readonly status: EnvelopeStatus }, ProviderUnavailable>
  }
>()("partnerpay/domain/ESignature") {}
