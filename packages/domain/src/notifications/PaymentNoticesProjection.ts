/**
 * The `payment_notices` work list: one document per payment request that may
 * still cause a notice, owned by the system tenant (`schedulerTenant`, the nil
 * UUID: no partner query ever sees it). Kept from the PaymentRequest and
 * PaymentNotice streams alone (pure).
 *
 * `stage` (index key) says what the notifications worker looks for:
 * - `reminding`: the request is Pending; sort key = due date, so the worker
 *   reads only requests due within the largest reminder offset;
 * - `notify`: the request became Paid or Failed and the payer was not told yet;
 * - `waiting`: accepted, waiting for the transfer's outcome.
 * A request that can cause nothing more (cancelled, or its status message sent)
 * has no document.
 */
import { Schema, Struct } from "effect"
import type * as Envelope from "../infrastructure/Envelope.ts"
import type { Projection } from "../infrastructure/ReadModel.ts"
import * as Tenancy from "../infrastructure/Tenancy.ts"
import { PaymentRequestEvents } from "../payments/index.ts"
import type { PaymentNoticeEvent } from "./PaymentNoticeEvents.ts"
import { NoticeStatus } from "./PaymentNoticeEvents.ts"

/** The events this read model reads. */
export type PaymentNoticesEnvelope =
  | Envelope.Of<"PaymentRequest", PaymentRequestEvents.PaymentRequestEvent>
  | Envelope.Of<"PaymentNotice", PaymentNoticeEvent>

/** The owner of system-wide documents: the nil UUID, which no partner can have. */
export const systemTenant: string = Tenancy.systemTenant

export const Stage = Schema.Literals(["reminding", "waiting", "notify"])
export type Stage = typeof Stage.Type

/** What the work list keeps of a request, as `PaymentRequestCreated` says it: whom to remind, of what, by when. */
const requestFields = ["paymentRequestId", "partnerId", "payerRegistrationId", "dueDate"] as const

export const PaymentNoticeDocument = Schema.Struct({
  ...Struct.pick(PaymentRequestEvents.PaymentRequestCreated.fields, requestFields),
  stage: Stage,
  /** Offsets of the reminders already sent. */
  remindedOffsets: Schema.Array(Schema.Int),
  /** The status whose message is still to send (stage `notify`). */
  unsentStatus: Schema.optionalKey(NoticeStatus),
})
export type PaymentNoticeDocument = typeof PaymentNoticeDocument.Type

const keyOf = (envelope: PaymentNoticesEnvelope): string | undefined =>
  envelope.streamType === "PaymentRequest" || envelope.streamType === "PaymentNotice"
    ? envelope.event.paymentRequestId
    : undefined

export const apply = (
  current: PaymentNoticeDocument | undefined,
  envelope: PaymentNoticesEnvelope,
): PaymentNoticeDocument | undefined => {
  if (envelope.streamType === "PaymentRequest") {
    const event = envelope.event
    if (event._tag === "PaymentRequestCreated") {
      return { ...Struct.pick(event, requestFields), stage: "reminding", remindedOffsets: [] }
    }
    if (current === undefined) return undefined
    switch (event._tag) {
      case "PaymentRequestAccepted":
        return { ...current, stage: "waiting" }
      case "PaymentRequestCancelled":
        return undefined
      case "PaymentRequestPaid":
      case "PaymentRequestPaidByCard":
        return { ...current, stage: "notify", unsentStatus: "Paid" }
      case "PaymentRequestFailed":
        return { ...current, stage: "notify", unsentStatus: "Failed" }
      case "PaymentRequestPartiallyRefunded":
      case "PaymentRequestRefunded":
      case "PaymentRequestAutoCollectionSkipped":
        return current
    }
  }
  if (envelope.streamType === "PaymentNotice" && current !== undefined) {
    const event = envelope.event
    switch (event._tag) {
      case "PaymentReminderSent":
        return current.remindedOffsets.includes(event.offsetDays)
          ? current
          : { ...current, remindedOffsets: [...current.remindedOffsets, event.offsetDays] }
      case "PaymentStatusMessageSent":
        return current.unsentStatus === event.status ? undefined : current
    }
  }
  return current
}

export const projection: Projection<PaymentNoticeDocument, PaymentNoticesEnvelope> = {
  collection: "payment_notices",
  document: PaymentNoticeDocument,
  streamTypes: ["PaymentRequest", "PaymentNotice"],
  // Keyed by the payment request's id: read beside the request's stream.
  ownedBy: "PaymentRequest",
  creates: ["PaymentRequestCreated"],
  key: keyOf,
  apply,
  index: (doc) => ({ partnerId: systemTenant, keys: { stage: doc.stage }, sortKey: doc.dueDate }),
}
