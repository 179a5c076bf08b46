/**
 * Use cases of the notices a payment request sends its payer: reminders
 * before the due date and messages when it becomes Paid or Failed. Called by
 * the app's notifications worker, like a handler calls a use case.
 *
 * - `dueReminders(today, offsets)` / `unsentStatusMessages()`: the work list
 *   (`payment_notices`, every partner).
 * - `planReminder(paymentRequestId, offsets)` / `planStatusMessage(paymentRequestId, status)`:
 *   reads only: the request, its payer (expired push tokens left out) and the
 *   notice's own stream (`PaymentNotice`, a new stream per notice): the notice
 *   and its messages when it is due and not recorded yet.
 * - `sendPlanned(notice)`: hands the messages to the channel senders, THEN
 *   records the notice in one unit of work (`record`: the payer's expired push
 *   tokens pruned, the notice appended; a notice recorded meanwhile by another
 *   instance records nothing). `remind` / `sendStatusMessage` are plan + send.
 *
 * No unit of work and no transaction is open while a sender runs (a provider
 * may take its whole timeout: it must hold no lock and no session). A provider
 * that is unavailable fails the call with nothing recorded: the notice is
 * planned and sent again later (at least once; the worker's claim keeps two
 * instances from sending it together, PaymentNotifier.ts). An undeliverable
 * address is logged and skipped; the notice counts as sent.
 */

import { DateTime, Effect, Result } from "effect"
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

/** The payer's addresses and switches (expired push tokens left out: `record` prunes them). */
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

/**
 * A notice decided and not recorded yet: its stream, the command that records it, the messages
 * it sends, and the payer whose expired push tokens are pruned when it is recorded.
 */
export interface PlannedNotice {
  readonly noticeId: string
  readonly command: PaymentNotice.Command
  readonly messages: ReadonlyArray<ChannelMessage>
  readonly payer: { readonly partnerId: PartnerId; readonly registrationId: RegistrationId }
}

/** The notice's decision on its stream as it is now: undefined when it sends nothing (already sent, not due). */
const planned = Effect.fnUntraced(function* (
  noticeId: string,
  command: PaymentNotice.Command,
  messages: ReadonlyArray<ChannelMessage>,
  payer: PlannedNotice["payer"],
) {
  const { state } = yield* CommandHandler.load(PaymentNotice.aggregate, noticeId)
  const decision = PaymentNotice.aggregate.decide(command, state)
  if (Result.isFailure(decision) || decision.success.length === 0) return undefined
  return { noticeId, command, messages, payer } satisfies PlannedNotice
})

/** Today's reminder of a Pending request, when one is due and not sent yet (reads only: nothing is recorded). */
export const planReminder = Traced.fn("PaymentNotices.planReminder")(function* (
  paymentRequestId: PaymentRequestId,
  offsets: ReadonlyArray<number> = PaymentNotice.defaultReminderOffsets,
) {
  const at = yield* DateTime.now
  const today = todayOf(at)
  const { state } = yield* CommandHandler.load(PaymentRequest.aggregate, paymentRequestId)
  const request = snapshotOf(state)
  if (request === undefined || request.status !== "Pending") return undefined
  const offsetDays = PaymentNotice.dueReminder(offsets, request.dueDate, today)
  if (offsetDays === undefined) return undefined
  const loaded = yield* recipientOf(request.partnerId, request.payerRegistrationId, at)
  const channels = PaymentNotice.reminderChannels(loaded.recipient)
  const template: Template = offsetDays === 0 ? "PaymentDueToday" : "PaymentDueSoon"
  return yield* planned(
    PaymentNotice.reminderId(paymentRequestId, offsetDays),
    { _tag: "SendPaymentReminder", request, offsetDays, offsets, today, channels, at },
    messagesFor(loaded, channels, template, paymentRequestId),
    { partnerId: request.partnerId, registrationId: request.payerRegistrationId },
  )
})

/** The Paid or Failed message of a request, when it reached that status and it was not sent yet (reads only). */
export const planStatusMessage = Traced.fn("PaymentNotices.planStatusMessage")(function* (
  paymentRequestId: PaymentRequestId,
  status: NoticeStatus,
) {
  const at = yield* DateTime.now
  const { state } = yield* CommandHandler.load(PaymentRequest.aggregate, paymentRequestId)
  const request = snapshotOf(state)
  if (request === undefined) return undefined
  const loaded = yield* recipientOf(request.partnerId, request.payerRegistrationId, at)
  const channels = PaymentNotice.statusChannels(loaded.recipient)
  const template: Template = status === "Paid" ? "PaymentPaid" : "PaymentFailed"
  return yield* planned(
    PaymentNotice.statusMessageId(paymentRequestId, status),
    { _tag: "SendPaymentStatusMessage", request, status, channels, at },
    messagesFor(loaded, channels, template, paymentRequestId),
    { partnerId: request.partnerId, registrationId: request.payerRegistrationId },
  )
})

/**
 * Records a notice whose messages were handed to the senders, in one unit: the payer's expired
 * push tokens pruned, the notice decided on its stream as it is now (a notice another instance
 * recorded meanwhile records nothing). Answers whether it recorded the notice.
 */
export const record = UseCase.fn("PaymentNotices.record")(function* (notice: PlannedNotice) {
  const at = notice.command.at
  const { state } = yield* CommandHandler.load(Customer.aggregate, notice.payer.registrationId)
  if (state._tag === "Registered" && Customer.activePushTokens(state, at).length < state.pushTokens.length) {
    yield* CommandHandler.handle(Customer.aggregate, notice.payer.registrationId, {
      _tag: "PruneExpiredPushTokens",
      at,
    })
  }
  const handled = yield* CommandHandler.handle(PaymentNotice.aggregate, notice.noticeId, notice.command)
  return handled.events.length > 0
})

/**
 * Sends a planned notice, then records it (see the module doc): the senders are called with no
 * unit of work and no transaction open, so a slow provider holds nothing; a provider that fails
 * fails the call with nothing recorded (the notice is planned again next round).
 */
export const sendPlanned = Traced.fn("PaymentNotices.sendPlanned")(function* (notice: PlannedNotice | undefined) {
  if (notice === undefined) return [] as ReadonlyArray<ChannelMessage>
  yield* deliver(notice.messages)
  yield* record(notice)
  return notice.messages
})

/** Sends today's reminder of a Pending request, once it is recorded (see the module doc): planned, sent, recorded. */
export const remind = Traced.fn("PaymentNotices.remind")(function* (
  paymentRequestId: PaymentRequestId,
  offsets: ReadonlyArray<number> = PaymentNotice.defaultReminderOffsets,
) {
  return yield* sendPlanned(yield* planReminder(paymentRequestId, offsets))
})

/**
 * Tells the payer that the request became Paid or Failed, once recorded, as the `paymentStatus*`
 * switches say: planned, sent, recorded.
 */
export const sendStatusMessage = Traced.fn("PaymentNotices.sendStatusMessage")(function* (
  paymentRequestId: PaymentRequestId,
  status: NoticeStatus,
) {
  return yield* sendPlanned(yield* planStatusMessage(paymentRequestId, status))
})
