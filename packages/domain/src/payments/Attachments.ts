/**
 * Payment attachments (spec 2.16 "an attachment URL that the service downloads
 * and stores with the payment"): what the service accepts when it downloads a
 * payment request's document, and the port that keeps the bytes.
 *
 * The rules are pure: which content types are kept (PDF, PNG, JPEG), the
 * largest document (10 MiB), how long one download may take, which network
 * addresses may be fetched (production: public addresses only; the sandbox
 * also allows loopback and private ones), and what a failed attempt becomes
 * (retried with exponential backoff, or Failed after `maxAttempts` or at once
 * when retrying cannot help). The app's worker does the I/O and applies them;
 * the adapter (`PgAttachments`) stores rows and bytes.
 */

import { Context, DateTime, Effect, Layer, Schema } from "effect"
import type { EventStoreUnavailable } from "../infrastructure/EventStore.ts"
import type { Webhook } from "../infrastructure/Outbox.ts"
import { NotFound } from "../kernel/DomainError.ts"
import type { PartnerId, PaymentRequestId, RegistrationId } from "../kernel/Ids.ts"
import * as PublicAddress from "../kernel/PublicAddress.ts"
import * as Traced from "../kernel/Traced.ts"
import { attachmentOf, get as getPaymentRequest } from "./Payments.ts"
import type { Attachment } from "./TransferEvents.ts"

/** Where an attachment stands: waiting for a download, kept, or given up (with a reason). */
export const AttachmentStatus = Schema.Literals(["Pending", "Stored", "Failed"]).annotate({
  description: "Pending until downloaded, Stored once kept, Failed when the service gave up",
})
export type AttachmentStatus = typeof AttachmentStatus.Type

/** The content types the service keeps. */
export const allowedContentTypes: ReadonlyArray<string> = ["application/pdf", "image/png", "image/jpeg"]

/** The largest document kept: 10 MiB. */
export const maxBytes = 10 * 1024 * 1024

/** How long one download may take, connection to last byte. */
export const timeoutMillis = 15_000

/** Downloads tried before the attachment is Failed. */
export const maxAttempts = 5

/** The first retry's delay; each further retry doubles it, up to `maxRetryDelayMillis`. */
export const firstRetryDelayMillis = 30_000
export const maxRetryDelayMillis = 60 * 60_000

/** The delay before attempt `attempts + 1`, after `attempts` failed ones (>= 1). */
export const retryDelayMillis = (attempts: number): number =>
  Math.min(maxRetryDelayMillis, firstRetryDelayMillis * 2 ** Math.max(0, attempts - 1))

/** The media type of a Content-Type header (lower case, parameters dropped) when it is kept, else undefined. */
export const acceptedContentType = (header: string | undefined): string | undefined => {
  const type = header?.split(";")[0]?.trim().toLowerCase()
  return type !== undefined && allowedContentTypes.includes(type) ? type : undefined
}

/** Why one download attempt did not keep the document; `permanent` when trying again cannot help. */
export interface DownloadFailure {
  readonly reason: string
  readonly permanent: boolean
}

/** What a failed attempt becomes: another attempt later, or Failed. */
export type AfterFailure =
  | { readonly _tag: "Retry"; readonly nextAttemptAtMillis: number }
  | { readonly _tag: "Failed" }

/** After the `attempts`-th attempt failed at `nowMillis`. */
export const afterFailure = (failure: DownloadFailure, attempts: number, nowMillis: number): AfterFailure =>
  failure.permanent || attempts >= maxAttempts
    ? { _tag: "Failed" }
    : { _tag: "Retry", nextAttemptAtMillis: nowMillis + retryDelayMillis(attempts) }

/** Sandbox: attachment URLs may be http and name local hosts at creation too (defined with the use case). */
export { SandboxAttachmentUrls as SandboxUrls } from "./Payments.ts"

/** The URL schemes fetched: https only in production; http too in the sandbox. */
export const allowedSchemes = (sandbox: boolean): ReadonlyArray<string> => (sandbox ? ["https:", "http:"] : ["https:"])

/**
 * True when a resolved address (IPv4 or IPv6 text) is a public one the
 * production service may connect to (`kernel/PublicAddress.ts`: never
 * loopback, private, link-local, unique-local, multicast or unspecified; an
 * IPv6 form carrying an IPv4 address is judged by that address).
 */
export const isPublicAddress = PublicAddress.isPublicAddress

/** The address rule of the environment: the sandbox connects anywhere, production only to public addresses. */
export const mayConnect = (address: string, sandbox: boolean): boolean => sandbox || isPublicAddress(address)

/** One attachment as clients read it with its payment request (and the transfer names). */
export const AttachmentView = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  contentType: Schema.String,
  sizeBytes: Schema.optionalKey(Schema.Int),
  sha256: Schema.optionalKey(Schema.String),
  status: AttachmentStatus,
  failureReason: Schema.optionalKey(Schema.String),
})
export type AttachmentView = typeof AttachmentView.Type

/** A download the worker should attempt now. */
export interface DueDownload {
  readonly id: string
  readonly partnerId: string
  readonly paymentRequestId: string
  readonly url: string
  readonly attempts: number
}

/** The webhook an attachment's outcome sends: ATTACHMENT_STATUS_CHANGED. */
export const statusEventType = "ATTACHMENT_STATUS_CHANGED"

/** How a download ended, for its webhook. */
export type FinalOutcome =
  | { readonly status: "Stored"; readonly contentType: string; readonly sizeBytes: number }
  | { readonly status: "Failed"; readonly reason: string }

/**
 * The ATTACHMENT_STATUS_CHANGED notification of a download's outcome: Data { AttachmentId,
 * PaymentRequestId, Status (Stored, Failed), ContentType and SizeBytes (Stored), Reason (Failed),
 * Timestamp }. Its id names the attachment and the outcome, so a repeated record sends nothing twice.
 */
export const statusNotification = (
  attachment: Pick<DueDownload, "id" | "partnerId" | "paymentRequestId">,
  outcome: FinalOutcome,
  at: DateTime.Utc,
): Webhook => ({
  id: `attachment_${attachment.id}_${outcome.status.toLowerCase()}`,
  partnerId: attachment.partnerId,
  eventType: statusEventType,
  data: {
    AttachmentId: attachment.id,
    PaymentRequestId: attachment.paymentRequestId,
    Status: outcome.status,
    ...(outcome.status === "Stored"
      ? { ContentType: outcome.contentType, SizeBytes: outcome.sizeBytes }
      : { Reason: outcome.reason }),
    Timestamp: DateTime.formatIso(at),
  },
  position: 0,
})

/** The stored bytes of one attachment. */
export interface Content {
  readonly contentType: string
  readonly bytes: Uint8Array
}

/** A request whose attachment URL should have an attachment. */
export interface Registration {
  readonly partnerId: PartnerId | string
  readonly paymentRequestId: PaymentRequestId | string
  readonly url: string
  readonly name: string
}

/**
 * The attachments store. One attachment per payment request (its
 * `attachmentUrl`): `register` is idempotent. `discover` registers the
 * requests of the payment requests read model that have an attachment URL but
 * no attachment yet. `claimDue` hands out due downloads (each to one worker at
 * a time, for `leaseMillis`). Reads are scoped by partner: another partner's
 * attachment does not exist.
 */
export class PaymentAttachments extends Context.Service<
  PaymentAttachments,
  {
    readonly register: (registration: Registration) => Effect.Effect<void, EventStoreUnavailable>
    readonly discover: (limit: number) => Effect.Effect<number, EventStoreUnavailable>
    readonly claimDue: (
      nowMillis: number,
      limit: number,
      leaseMillis: number,
    ) => Effect.Effect<ReadonlyArray<DueDownload>, EventStoreUnavailable>
    /** Records the stored bytes and, in the same write, the webhook `notification` (once: only a Pending one is stored). */
    readonly recordStored: (
      id: string,
      stored: { readonly contentType: string; readonly bytes: Uint8Array; readonly sha256: string },
      notification?: Webhook,
    ) => Effect.Effect<void, EventStoreUnavailable>
    /** Records a failed attempt; a final one (Failed) with its webhook `notification` in the same write. */
    readonly recordFailure: (
      id: string,
      failure: { readonly reason: string; readonly attempts: number; readonly outcome: AfterFailure },
      notification?: Webhook,
    ) => Effect.Effect<void, EventStoreUnavailable>
    readonly list: (
      partnerId: string,
      paymentRequestId: string,
    ) => Effect.Effect<ReadonlyArray<AttachmentView>, EventStoreUnavailable>
    readonly content: (
      partnerId: string,
      paymentRequestId: string,
      attachmentId: string,
    ) => Effect.Effect<Content | undefined, EventStoreUnavailable>
  }
>()("partnerpay/domain/payments/PaymentAttachments") {
  /**
   * In memory (tests, embedding without a database): registration, outcomes and reads; nothing is ever
   * claimed for download, so no outcome's webhook is ever due (notifications given are not kept).
   */
  static readonly layerMemory: Layer.Layer<PaymentAttachments> = Layer.sync(PaymentAttachments, () => {
    interface Row extends AttachmentView {
      readonly partnerId: string
      readonly paymentRequestId: string
      readonly url: string
      bytes?: Uint8Array
    }
    const rows = new Map<string, Row>()
    let next = 0
    const find = (id: string) => [...rows.values()].find((row) => row.id === id)
    return PaymentAttachments.of({
      register: (registration) =>
        Effect.sync(() => {
          if (rows.has(registration.paymentRequestId)) return
          next++
          rows.set(registration.paymentRequestId, {
            id: `00000000-0000-4000-8000-${next.toString(16).padStart(12, "0")}`,
            partnerId: registration.partnerId,
            paymentRequestId: registration.paymentRequestId,
            url: registration.url,
            name: registration.name,
            contentType: attachmentOf("", registration.url).contentType,
            status: "Pending",
          })
        }),
      discover: () => Effect.succeed(0),
      claimDue: () => Effect.succeed([]),
      recordStored: (id, stored) =>
        Effect.sync(() => {
          const row = find(id)
          if (row === undefined) return
          rows.set(row.paymentRequestId, {
            ...row,
            contentType: stored.contentType,
            sizeBytes: stored.bytes.byteLength,
            sha256: stored.sha256,
            status: "Stored",
            bytes: stored.bytes,
          })
        }),
      recordFailure: (id, failure) =>
        Effect.sync(() => {
          const row = find(id)
          if (row !== undefined && failure.outcome._tag === "Failed")
            rows.set(row.paymentRequestId, { ...row, status: "Failed", failureReason: failure.reason })
        }),
      list: (partnerId, paymentRequestId) =>
        Effect.sync(() => {
          const row = rows.get(paymentRequestId)
          if (row === undefined || row.partnerId !== partnerId) return []
          const { partnerId: _p, paymentRequestId: _r, url: _u, bytes: _b, ...view } = row
          return [view]
        }),
      content: (partnerId, paymentRequestId, attachmentId) =>
        Effect.sync(() => {
          const row = rows.get(paymentRequestId)
          return row === undefined || row.partnerId !== partnerId || row.id !== attachmentId || row.bytes === undefined
            ? undefined
            : { contentType: row.contentType, bytes: row.bytes }
        }),
    })
  })
}

/** A payment request as its attachments need it. */
export interface RequestRef {
  readonly partnerId: string
  readonly paymentRequestId: string
  readonly attachmentUrl?: string | undefined
}

/**
 * The attachments of a payment request. A request with an attachment URL
 * whose attachment the worker has not registered yet is registered here
 * (idempotent), so its first reader already sees it Pending with its id.
 */
export const forRequest = Traced.fn("Attachments.forRequest")(function* (request: RequestRef) {
  const store = yield* PaymentAttachments
  const listed = yield* store.list(request.partnerId, request.paymentRequestId)
  if (listed.length > 0 || request.attachmentUrl === undefined) return listed
  yield* store.register({
    partnerId: request.partnerId,
    paymentRequestId: request.paymentRequestId,
    url: request.attachmentUrl,
    name: attachmentOf("", request.attachmentUrl).name,
  })
  return yield* store.list(request.partnerId, request.paymentRequestId)
})

/**
 * The documents a transfer names (spec 2.9): those of the payment request it
 * pays, with the same ids as on GET /Payment/{paymentRequestId}; the
 * transfer's recorded ones when it pays no request with an attachment.
 */
export const namedOnTransfer = Traced.fn("Attachments.namedOnTransfer")(function* (
  partnerId: PartnerId,
  paymentRequestId: string | undefined,
  recorded: ReadonlyArray<Attachment>,
) {
  // A transfer records its request's attachment at acceptance: none recorded, the request has no document, and
  // the common read (GET /Transaction/{id}) costs no further statement.
  if (paymentRequestId === undefined || recorded.length === 0) return recorded
  const request = yield* getPaymentRequest(partnerId, paymentRequestId).pipe(
    Effect.catchTag("NotFound", () => Effect.succeed(undefined)),
  )
  if (request === undefined) return recorded
  const documents = yield* forRequest(request)
  return documents.length === 0
    ? recorded
    : documents.map((document) => ({ id: document.id, name: document.name, contentType: document.contentType }))
})

/** Who reads a payment request's documents: its partner, or a customer of the partner. */
export type Reader =
  | { readonly _tag: "Partner"; readonly partnerId: PartnerId }
  | { readonly _tag: "Customer"; readonly partnerId: PartnerId; readonly registrationId: RegistrationId }

const attachmentNotFound = new NotFound({ entity: "Attachment" })

/**
 * The bytes of one stored document of a payment request
 * (GET /Payment/{paymentRequestId}/Attachments/{id}). The request's partner
 * and its payer may read them; any other customer learns nothing, exactly as
 * for a missing document (NotFound "Attachment"), and another partner's or an
 * unknown request is NotFound "PaymentRequest". A document not stored (yet)
 * is NotFound "Attachment".
 */
export const content = Traced.fn("Attachments.content")(function* (
  reader: Reader,
  paymentRequestId: string,
  attachmentId: string,
) {
  const request = yield* getPaymentRequest(reader.partnerId, paymentRequestId)
  if (reader._tag === "Customer" && request.payerRegistrationId !== reader.registrationId)
    return yield* attachmentNotFound
  const store = yield* PaymentAttachments
  const stored = yield* store.content(reader.partnerId, paymentRequestId, attachmentId)
  if (stored === undefined) return yield* attachmentNotFound
  return stored
})
