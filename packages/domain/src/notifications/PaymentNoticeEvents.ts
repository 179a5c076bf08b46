/**
 * Events of the PaymentNotice aggregate: one stream per notice a payment
 * request may cause (a reminder at one offset, a status message for one
 * status), so that "was it sent?" is the stream's existence and two instances
 * deciding at once conflict on the stream's version.
 */
import { Schema } from "effect"
import { CalendarDate } from "../kernel/CalendarDate.ts"
import { eventsOf } from "../kernel/EventSchema.ts"
import { PartnerId, PaymentRequestId, RegistrationId } from "../kernel/Ids.ts"
import { Channel } from "./Messaging.ts"

/** The statuses that cause a status message. */
export const NoticeStatus = Schema.Literals(["Paid", "Failed"])
export type NoticeStatus = typeof NoticeStatus.Type

/** Every notice event names its request, partner and payer, the channels it went out on, and the instant `at`. */
const noticeEvent = eventsOf({
  paymentRequestId: PaymentRequestId,
  partnerId: PartnerId,
  payerRegistrationId: RegistrationId,
  /** The channels the message went out on (possibly none: every switch off, no address). */
  channels: Schema.Array(Channel),
})

/** The payer was reminded of a Pending request, `offsetDays` days before its due date (0: on the due date). */
export const PaymentReminderSent = noticeEvent("PaymentReminderSent", {
  offsetDays: Schema.Int,
  dueDate: CalendarDate,
})
export type PaymentReminderSent = typeof PaymentReminderSent.Type

/** The payer was told that the request became Paid or Failed. */
export const PaymentStatusMessageSent = noticeEvent("PaymentStatusMessageSent", { status: NoticeStatus })
export type PaymentStatusMessageSent = typeof PaymentStatusMessageSent.Type

export const PaymentNoticeEvent = Schema.Union([PaymentReminderSent, PaymentStatusMessageSent])
export type PaymentNoticeEvent = typeof PaymentNoticeEvent.Type
