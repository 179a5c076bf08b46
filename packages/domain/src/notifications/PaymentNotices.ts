/**
 * Use cases of the notices a payment request sends its payer: reminders
 * before the due date and messages when it becomes Paid or Failed. Called by
 * the app's notifications worker, like a handler calls a use case.
 *
 * - `dueReminders(today, offsets)` / `unsentStatusMessages()`: the work list
 *   (`payment_notices`, every partner).
 * - `remind(paymentRequestId, offsets)` / `sendStatusMessage(paymentRequestId)`:
 *   in one unit of work, load the request and its payer, prune the payer's
 *   expired push tokens (`PruneExpiredPushTokens`), decide the notice
 *   (`PaymentNotice`, a new stream per notice: read first, so that under the
 *   worker's lock a notice sent a moment ago by another instance is seen and
 *   nothing is appended; appended expecting no stream), then, once the unit of work has
 *   recorded it, hand the messages to the channel senders. Answers the
 *   messages sent (empty when nothing was due or it was already sent).
 *
 * Delivery happens after the decision is recorded, in the caller's
 * transaction when it has one (the worker's): a provider that is unavailable
 * fails the call, so the worker's transaction (the decision included) rolls
 * back and the notice is decided again next round. An undeliverable address
 * is logged and skipped; the notice counts as sent.
 */

import { DateTime, Effect } from "effect"
import { Customer } from "../customers/index.ts"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { decodeDocument, ReadModelStore } from "../infrastructure/ReadModel.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import * as CalendarDate from "../kernel/CalendarDate.ts"
import type { PartnerId, PaymentRequestId, RegistrationId } from "../kernel/Ids.ts"
import { isErased } from "../kernel/Personal.ts"
import * as Traced from "../kernel/Traced.ts"
import { PaymentRequest } from "../payments/index.ts"
import { type Channel, type OutgoingMessage, senderOf, type Template } from "./Messaging.ts"
import * as PaymentNotice from "./PaymentNotice.ts"
import type { NoticeStatus } from "./PaymentNoticeEvents.ts"
import { projection as noticesProjection, systemTenant } from "./PaymentNoticesProjection.ts"

/** A message with its channel. */
export interface ChannelMessage extends OutgoingMessage {
  readonly channel: Channel
}

export interface ReminderToSend {
  readonly paymentRequestId: PaymentRequestId
  readonly partnerId: PartnerId
  readonly offsetDays: number
}

export interface StatusMessageToSend {
  readonly paymentRequestId: PaymentRequestId
  readonly partnerId: PartnerId
  readonly status: NoticeStatus
}

/**
 * Where each partner's today differs (sandbox time per partner): `of` gives a
 * partner's today, `latest` the latest of them (`today` is then the earliest).
 */
export interface TodayPerPartner {
  readonly latest: CalendarDate.CalendarDate
  readonly of: (partnerId: PartnerId) => CalendarDate.CalendarDate
}

const todayOf = (at: DateTime.Utc) => CalendarDate.fromEpochMillis(DateTime.toEpochMillis(at))

/** The reminders due on `today` (or each partner's today) and not sent yet, every partner, at most `limit`. */
export const dueReminders = Traced.fn("PaymentNotices.dueReminders")(function* (
  today: CalendarDate.CalendarDate,
  offsets: ReadonlyArray<number>,
  limit = 200,
  perPartner: TodayPerPartner = { latest: today, of: () => today },
) {
  const store = yield* ReadModelStore
  const due: Array<ReminderToSend> = []
  let startingAfter: string | undefined
  while (due.length < limit) {
    const page = yield* store.find(noticesProjection.collection, {
      partnerId: systemTenant,
      keys: { stage: "reminding" },
      sortKeyFrom: today,
      sortKeyTo: CalendarDate.addDays(perPartner.latest, Math.max(0, ...offsets)),
      limit: 100,
      order: "asc",
      ...(startingAfter === undefined ? {} : { startingAfter }),
    })
    for (const item of page.items) {
      const doc = decodeDocument(noticesProjection, item)
      const offset = PaymentNotice.dueReminder(offsets, doc.dueDate, perPartner.of(doc.partnerId))
      if (offset !== undefined && !doc.remindedOffsets.includes(offset)) {
        due.push({ paymentRequestId: doc.paymentRequestId, partnerId: doc.partnerId, offsetDays: offset })
      }
    }
    const last = page.items.at(-1)
    if (!page.hasMore || last === undefined) break
    startingAfter = last.id
  }
  return due.slice(0, limit)
})

/** The status messages not sent yet, every partner, at most `limit`. */
export const unsentStatusMessages = Traced.fn("PaymentNotices.unsentStatusMessages")(function* (limit = 100) {
  const store = yield* ReadModelStore
  const page = yield* store.find(noticesProjection.collection, {
    partnerId: systemTenant,
    keys: { stage: "notify" },
    limit,
    order: "asc",
  })
  return page.items.flatMap((item): Array<StatusMessageToSend> => {
    const doc = decodeDocument(noticesProjection, item)
    return doc.unsentStatus === undefined
      ? []
      : [{ paymentRequestId: doc.paymentRequestId, partnerId: doc.partnerId, status: doc.unsentStatus }]
  })
})

interface LoadedRecipient {
  readonly recipient: PaymentNotice.Recipient
  readonly partnerId: PartnerId
  readonly registrationId: RegistrationId
}

/** An address a message can go to: not empty, not erased (an erased customer is sent nothing). */
const reachable = (address: string | undefined): string | undefined =>
  address === undefined || address === "" || isErased(address) ? undefined : address

/** The payer's addresses and switches; expired push tokens are pruned first (in the caller's unit of work). */
const recipientOf = Effect.fnUntraced(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
  at: DateTime.Utc,
) {
  const { state } = yield* CommandHandler.load(Customer.aggregate, registrationId)
  if (state._tag !== "Registered" || state.partnerId !== partnerId) {
    const nobody: PaymentNotice.Recipient = {
      pushTokens: [],
      paymentDueEmail: false,
      paymentDuePush: false,
      paymentStatusEmail: false,
      paymentStatusPush: false,
    }
    return { recipient: nobody, partnerId, registrationId } satisfies LoadedRecipient
  }
  const active = Customer.activePushTokens(state, at)
  if (active.length < state.pushTokens.length) {
    yield* CommandHandler.handle(Customer.aggregate, registrationId, { _tag: "PruneExpiredPushTokens", at })
  }
  const preferences = state.notificationPreferences
  const recipient: PaymentNotice.Recipient = {
    phoneNumber: reachable(state.phoneNumber),
    emailAddress: reachable(state.personalData?.emailAddress),
    pushTokens: active.flatMap((t) => reachable(t.token) ?? []),
    paymentDueEmail: preferences.paymentDueEmail,
    paymentDuePush: preferences.paymentDuePush,
    paymentStatusEmail: preferences.paymentStatusEmail,
    paymentStatusPush: preferences.paymentStatusPush,
  }
  return { recipient, partnerId, registrationId } satisfies LoadedRecipient
})

/** One message per address of each channel (push: one per unexpired token). */
export const messagesFor = (
  loaded: LoadedRecipient,
  channels: ReadonlyArray<Channel>,
  template: Template,
  paymentRequestId: PaymentRequestId,
): ReadonlyArray<ChannelMessage> => {
  const { recipient } = loaded
  const base = { partnerId: loaded.partnerId, registrationId: loaded.registrationId, template, paymentRequestId }
  return channels.flatMap((channel): Array<ChannelMessage> => {
    if (channel === "push") return recipient.pushTokens.map((token) => ({ ...base, channel, to: token }))
    const to = channel === "sms" ? recipient.phoneNumber : recipient.emailAddress
    return to === undefined ? [] : [{ ...base, channel, to }]
  })
}

/** Hands each message to its channel's sender; an undeliverable address is logged and skipped. */
export const deliver = Traced.fn("PaymentNotices.deliver")(function* (messages: ReadonlyArray<ChannelMessage>) {
  for (const { channel, ...message } of messages) {
    const sender = yield* senderOf(channel)
    yield* sender.send(message).pipe(
      Effect.catchTag("MessageUndeliverable", (failed) =>
        Effect.logWarning("message undeliverable", {
          channel,
          template: message.template,
          paymentRequestId: message.paymentRequestId,
          reason: failed.reason,
        }),
      ),
    )
  }
  return messages
})

const snapshotOf = (state: PaymentRequest.State): PaymentNotice.RequestSnapshot | undefined =>
  state._tag === "Initial"
    ? undefined
    : {
        paymentRequestId: state.request.paymentRequestId,
        partnerId: state.request.partnerId,
        payerRegistrationId: state.request.payerRegistrationId,
        status: state._tag,
        dueDate: state.request.dueDate,
      }

/** Sends today's reminder of a Pending request, once (see the module doc): recorded in one unit, then sent. */
export const remind = UseCase.fn("PaymentNotices.remind")(
  function* (
    paymentRequestId: PaymentRequestId,
    offsets: ReadonlyArray<number> = PaymentNotice.defaultReminderOffsets,
  ) {
    const at = yield* DateTime.now
    const today = todayOf(at)
    const { state } = yield* CommandHandler.load(PaymentRequest.aggregate, paymentRequestId)
    const request = snapshotOf(state)
    if (request === undefined || request.status !== "Pending") return []
    const offsetDays = PaymentNotice.dueReminder(offsets, request.dueDate, today)
    if (offsetDays === undefined) return []
    const loaded = yield* recipientOf(request.partnerId, request.payerRegistrationId, at)
    const channels = PaymentNotice.reminderChannels(loaded.recipient)
    const handled = yield* CommandHandler.handle(
      PaymentNotice.aggregate,
      PaymentNotice.reminderId(paymentRequestId, offsetDays),
      { _tag: "SendPaymentReminder", request, offsetDays, offsets, today, channels, at },
    )
    if (handled.events.length === 0) return []
    const template: Template = offsetDays === 0 ? "PaymentDueToday" : "PaymentDueSoon"
    return messagesFor(loaded, channels, template, paymentRequestId)
  },
  (recorded) => Effect.flatMap(recorded, deliver),
)

/**
 * Tells the payer that the request became Paid or Failed, once, as the `paymentStatus*` switches say:
 * recorded in one unit, then sent.
 */
export const sendStatusMessage = UseCase.fn("PaymentNotices.sendStatusMessage")(
  function* (paymentRequestId: PaymentRequestId, status: NoticeStatus) {
    const at = yield* DateTime.now
    const { state } = yield* CommandHandler.load(PaymentRequest.aggregate, paymentRequestId)
    const request = snapshotOf(state)
    if (request === undefined) return []
    const loaded = yield* recipientOf(request.partnerId, request.payerRegistrationId, at)
    const channels = PaymentNotice.statusChannels(loaded.recipient)
    const handled = yield* CommandHandler.handle(
      PaymentNotice.aggregate,
      PaymentNotice.statusMessageId(paymentRequestId, status),
      { _tag: "SendPaymentStatusMessage", request, status, channels, at },
    )
    if (handled.events.length === 0) return []
    return messagesFor(loaded, channels, status === "Paid" ? "PaymentPaid" : "PaymentFailed", paymentRequestId)
  },
  (recorded) => Effect.flatMap(recorded, deliver),
)
