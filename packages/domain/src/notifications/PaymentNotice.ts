/**
 * The PaymentNotice aggregate: whether one notice about a payment request was
 * sent to its payer. Stream ids (`noticeId`): `<paymentRequestId>/reminder/<offsetDays>`
 * and `<paymentRequestId>/status/<Paid|Failed>`: at most one event per stream,
 * so each notice is sent at most once whatever the number of instances (the
 * second writer's append expects no stream and conflicts; on retry the notice
 * is seen as sent and nothing happens).
 *
 * Rules (pure, below):
 * - `dueReminder(offsets, dueDate, today)`: the reminder due today is the one
 *   with the smallest offset whose day (`dueDate - offset`) has come, and only
 *   up to the due date itself. Reminders whose day passed unsent (the service
 *   was down, the request was created late) are not sent late: only the
 *   latest due one is.
 * - A reminder is only for a request that is still Pending, and only when
 *   `dueReminder` says it is today's. A status message only for a status the
 *   request reached (Paid also when it was refunded since).
 * - `reminderChannels` / `statusChannels`: SMS always for a reminder (when the
 *   customer has a phone number); push and e-mail as the customer's
 *   `paymentDue*` / `paymentStatus*` switches say, push only with an unexpired
 *   token, e-mail only with a known address.
 *
 * State machine: packages/domain/docs/PaymentNotice.md.
 */

import type { DateTime } from "effect"
import * as CalendarDate from "../kernel/CalendarDate.ts"
import { type Aggregate, accept, byCommand, type Decision, nothing } from "../kernel/Decider.ts"
import type { DomainError } from "../kernel/DomainError.ts"
import type { PartnerId, PaymentRequestId, RegistrationId } from "../kernel/Ids.ts"
import type { Channel } from "./Messaging.ts"
import { type NoticeStatus, PaymentNoticeEvent } from "./PaymentNoticeEvents.ts"

export type { NoticeStatus } from "./PaymentNoticeEvents.ts"

/** Offsets when nothing is configured: 3 days before the due date, and on it. */
export const defaultReminderOffsets: ReadonlyArray<number> = [3, 0]

/** The stream id of a reminder. */
export const reminderId = (paymentRequestId: string, offsetDays: number): string =>
  `${paymentRequestId}/reminder/${offsetDays}`

/** The stream id of a status message. */
export const statusMessageId = (paymentRequestId: string, status: NoticeStatus): string =>
  `${paymentRequestId}/status/${status}`

// ---------------------------------------------------------------------------
// Rules

/** The offset of the reminder due on `today`, or undefined (see the module doc). */
export const dueReminder = (
  offsets: ReadonlyArray<number>,
  dueDate: CalendarDate.CalendarDate,
  today: CalendarDate.CalendarDate,
): number | undefined => {
  const daysLeft = CalendarDate.toEpochDay(dueDate) - CalendarDate.toEpochDay(today)
  if (daysLeft < 0) return undefined
  const whoseDayHasCome = offsets.filter((offset) => offset >= daysLeft)
  return whoseDayHasCome.length === 0 ? undefined : Math.min(...whoseDayHasCome)
}

/** What the notifications know of the payer: addresses and switches. */
export interface Recipient {
  readonly phoneNumber?: string | undefined
  readonly emailAddress?: string | undefined
  /** Unexpired push tokens. */
  readonly pushTokens: ReadonlyArray<string>
  readonly paymentDueEmail: boolean
  readonly paymentDuePush: boolean
  readonly paymentStatusEmail: boolean
  readonly paymentStatusPush: boolean
}

const optional = (wanted: boolean, channel: Channel): ReadonlyArray<Channel> => (wanted ? [channel] : [])

/** A reminder: SMS always, push and e-mail as `paymentDue*` say (with an address). */
export const reminderChannels = (recipient: Recipient): ReadonlyArray<Channel> => [
  ...optional(recipient.phoneNumber !== undefined, "sms"),
  ...optional(recipient.paymentDuePush && recipient.pushTokens.length > 0, "push"),
  ...optional(recipient.paymentDueEmail && recipient.emailAddress !== undefined, "email"),
]

/** A status message: push and e-mail as `paymentStatus*` say (with an address); never SMS. */
export const statusChannels = (recipient: Recipient): ReadonlyArray<Channel> => [
  ...optional(recipient.paymentStatusPush && recipient.pushTokens.length > 0, "push"),
  ...optional(recipient.paymentStatusEmail && recipient.emailAddress !== undefined, "email"),
]

// ---------------------------------------------------------------------------
// Commands

/** The request as the notice sees it when deciding (loaded from its own stream in the same unit of work). */
export interface RequestSnapshot {
  readonly paymentRequestId: PaymentRequestId
  readonly partnerId: PartnerId
  readonly payerRegistrationId: RegistrationId
  readonly status: string
  readonly dueDate: CalendarDate.CalendarDate
}

export interface SendPaymentReminder {
  readonly _tag: "SendPaymentReminder"
  readonly request: RequestSnapshot
  readonly offsetDays: number
  /** Every configured offset (the reminder must be today's, see `dueReminder`). */
  readonly offsets: ReadonlyArray<number>
  readonly today: CalendarDate.CalendarDate
  readonly channels: ReadonlyArray<Channel>
  readonly at: DateTime.Utc
}

export interface SendPaymentStatusMessage {
  readonly _tag: "SendPaymentStatusMessage"
  readonly request: RequestSnapshot
  readonly status: NoticeStatus
  readonly channels: ReadonlyArray<Channel>
  readonly at: DateTime.Utc
}

export type Command = SendPaymentReminder | SendPaymentStatusMessage
export type Event = PaymentNoticeEvent

export type State = { readonly _tag: "NotSent" } | { readonly _tag: "Sent"; readonly at: DateTime.Utc }

export const initialState: State = { _tag: "NotSent" }

// ---------------------------------------------------------------------------
// Decide

const common = (command: Command) => ({
  paymentRequestId: command.request.paymentRequestId,
  partnerId: command.request.partnerId,
  payerRegistrationId: command.request.payerRegistrationId,
  channels: command.channels,
  at: command.at,
})

const sendReminder = (command: SendPaymentReminder, state: State): Decision<Event> => {
  if (state._tag === "Sent") return nothing
  if (command.request.status !== "Pending") return nothing
  if (dueReminder(command.offsets, command.request.dueDate, command.today) !== command.offsetDays) return nothing
  return accept({
    _tag: "PaymentReminderSent",
    ...common(command),
    offsetDays: command.offsetDays,
    dueDate: command.request.dueDate,
  })
}

/** A request refunded after it was paid did reach Paid. */
const reached = (status: NoticeStatus, current: string): boolean =>
  current === status || (status === "Paid" && current === "Refunded")

const sendStatusMessage = (command: SendPaymentStatusMessage, state: State): Decision<Event> => {
  if (state._tag === "Sent") return nothing
  if (!reached(command.status, command.request.status)) return nothing
  return accept({ _tag: "PaymentStatusMessageSent", ...common(command), status: command.status })
}

export const decide: (command: Command, state: State) => Decision<Event> = byCommand<Command, State, Event>({
  SendPaymentReminder: sendReminder,
  SendPaymentStatusMessage: sendStatusMessage,
})

export const evolve = (state: State, event: Event): State =>
  state._tag === "Sent" ? state : { _tag: "Sent", at: event.at }

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "PaymentNotice",
  initialState,
  decide,
  evolve,
  events: PaymentNoticeEvent,
  eventVersion: () => 1,
}
