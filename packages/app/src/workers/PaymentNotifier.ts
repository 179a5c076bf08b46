/**
 * The payment notifier: every second, the reminders due today
 * (`PaymentNotices.dueReminders`, all partners, offsets from
 * PARTNERPAY_REMINDER_DAYS) and the Paid/Failed status messages not sent yet
 * (`PaymentNotices.unsentStatusMessages`) are decided and handed to the
 * channel senders. "Today" is each partner's (its sandbox clock, SandboxClock.ts).
 *
 * Exactly once with any number of instances: each notice is handled inside a
 * database transaction that first takes a transaction-level advisory lock on
 * the notice (`pg_try_advisory_xact_lock`); an instance that does not get it
 * skips the notice this round. Under the lock the use case reloads the request
 * and the notice's own stream, so a notice already sent is seen and nothing is
 * recorded; the notice stream's "no stream yet" expectation is the backstop.
 * The sandbox senders write the messages with the same transaction, so a
 * message exists exactly when its notice was recorded.
 */

import {
  CalendarDate,
  type EventStore,
  type IdGenerator,
  type Messaging,
  PaymentNotice,
  PaymentNotices,
  type Policy,
  type ReadModel,
  Traced,
  type UnitOfWork,
} from "@partnerpay/domain"
import { Clock, Effect, type Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as SandboxClock from "../SandboxClock.ts"
import * as AdvisoryLocks from "./AdvisoryLocks.ts"
import { worker } from "./Polling.ts"

/** First key of this worker's advisory locks. */
const lockNamespace = AdvisoryLocks.namespaces.paymentNotifier

const lockKeyOf = AdvisoryLocks.keyOf

export interface Options {
  /** Days before the due date a reminder goes out (0: on the due date). */
  readonly reminderDays: ReadonlyArray<number>
  readonly pollMillis?: number
}

/** What the notifier needs: the domain stack, the database and the channel senders. */
export type Requirements =
  | SqlClient
  | ReadModel.ReadModelStore
  | EventStore.EventStore
  | IdGenerator.IdGenerator
  | UnitOfWork.UnitOfWork
  | Policy.Policies
  | Messaging.Senders

/** One round: every due notice once; answers how many messages went out. */
export const step = Traced.fn("PaymentNotifier.step")(function* (
  options: Options,
): Effect.fn.Return<number, unknown, Requirements> {
  const sql = yield* SqlClient
  const clocks = yield* SandboxClock.current
  // Each partner's today (sandbox time per partner; the same for all in production).
  const now = yield* Clock.currentTimeMillis
  const today = CalendarDate.fromEpochMillis(now)
  const reminders = yield* PaymentNotices.dueReminders(today, options.reminderDays, 50, {
    latest: CalendarDate.fromEpochMillis(Math.max(now, yield* clocks.latestMillis)),
    of: (partnerId) => CalendarDate.fromEpochMillis(now + clocks.offsetOf(partnerId)),
  })
  const statuses = yield* PaymentNotices.unsentStatusMessages(50)
  const notices = [
    ...reminders.map((r) => ({
      partnerId: r.partnerId,
      noticeId: PaymentNotice.reminderId(r.paymentRequestId, r.offsetDays),
      send: PaymentNotices.remind(r.paymentRequestId, options.reminderDays),
    })),
    ...statuses.map((s) => ({
      partnerId: s.partnerId,
      noticeId: PaymentNotice.statusMessageId(s.paymentRequestId, s.status),
      send: PaymentNotices.sendStatusMessage(s.paymentRequestId, s.status),
    })),
  ]
  let sent = 0
  for (const notice of notices) {
    const messages = yield* clocks
      .within(
        notice.partnerId,
        sql.withTransaction(
          Effect.gen(function* () {
            const rows = yield* sql<{ locked: boolean }>`
              SELECT pg_try_advisory_xact_lock(${lockNamespace}, ${lockKeyOf(notice.noticeId)}) AS locked`
            if (rows[0]?.locked !== true) return []
            return yield* notice.send
          }),
        ),
      )
      .pipe(
        Effect.catch((error) =>
          Effect.logWarning("notice not sent", {
            notice: notice.noticeId,
            error: (error as { _tag?: string })._tag ?? "unknown",
          }).pipe(Effect.as([])),
        ),
      )
    if (messages.length > 0) {
      sent += messages.length
      yield* Effect.logInfo("notice sent", {
        notice: notice.noticeId,
        channels: [...new Set(messages.map((m) => m.channel))].join(","),
      })
    }
  }
  return sent
})

export const layer = (options: Options): Layer.Layer<never, never, Requirements> =>
  worker("payment-notifier", options.pollMillis ?? 1000, step(options))
