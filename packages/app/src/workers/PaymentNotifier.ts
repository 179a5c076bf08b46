/**
 * The payment notifier: every second, the reminders due today
 * (`PaymentNotices.dueReminders`, all partners, offsets from
 * PARTNERPAY_REMINDER_DAYS) and the Paid/Failed status messages not sent yet
 * (`PaymentNotices.unsentStatusMessages`) are decided and handed to the
 * channel senders. "Today" is each partner's (its sandbox clock, SandboxClock.ts).
 *
 * Nothing is held while a provider works (issue 34: a sender that took its
 * 10 s timeout inside the notifier's transaction held its locks and stalled
 * every request statement behind them). Per notice, the claim pattern of the
 * provider workers (`PgWorkClaims`, kind `payment-notice`):
 *
 * 1. claim the notice for `leaseMillis` (one statement, committed at once): an
 *    instance that does not get it skips the notice this round;
 * 2. plan it (reads only: already recorded, or no longer due: nothing to do);
 * 3. hand its messages to the senders, with no transaction and no unit open;
 * 4. record the notice in a unit of its own (`PaymentNotices.record`), then
 *    finish the claim. A provider that fails leaves the claim to back off
 *    (`deferUntil`, 1 s doubling up to 5 min): the notice is sent again later.
 *
 * Each claimed notice is sent in the background (at most `concurrency`, 32,
 * at once per instance): a notice waiting on a slow provider holds one place,
 * never the round, so the other payers' notices go out meanwhile.
 *
 * Delivery is at least once: an instance that dies between 3 and 4 sends the
 * notice again once its lease ran out. The sandbox senders record a message
 * in its own statement when they "send" it (never through a transaction).
 */

import { PgWorkClaims } from "@partnerpay/adapters-pg"
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
import { Cause, Clock, Effect, FiberSet, Layer, type Scope } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import * as SandboxClock from "../sandbox/SandboxClock.ts"
import { worker } from "./Polling.ts"

/** The claims' kind (`work_claims`). */
export const claimKind = "payment-notice"

/**
 * How long a claimed notice is this instance's: longer than its senders may take (three messages
 * at a provider's 10 s timeout each, with room), short enough that a notice of an instance that died
 * goes out again within minutes.
 */
export const defaultLeaseMillis = 120_000

export interface Options {
  /** Days before the due date a reminder goes out (0: on the due date). */
  readonly reminderDays: ReadonlyArray<number>
  readonly pollMillis?: number
  /** How long a claim holds a notice (default `defaultLeaseMillis`). */
  readonly leaseMillis?: number
  /** How many notices are being sent at once by this instance (default `defaultConcurrency`). */
  readonly concurrency?: number
}

/** Notices sent at once: a few slow providers (10 s each) leave the others their places. */
export const defaultConcurrency = 32

/** What the notifier needs: the domain stack, the database and the channel senders. */
export type Requirements =
  | SqlClient
  | ReadModel.ReadModelStore
  | EventStore.EventStore
  | IdGenerator.IdGenerator
  | UnitOfWork.UnitOfWork
  | Policy.Policies
  | Messaging.Senders

/**
 * One round: every due notice not being sent already is claimed and its sending started (at most
 * `concurrency` at once, in the background: a notice waiting on a slow provider holds one place,
 * not the round); answers how many were started.
 */
export const step = Traced.fn("PaymentNotifier.step")(function* (
  options: Options,
  sending: Sending,
): Effect.fn.Return<number, unknown, Requirements> {
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
      plan: PaymentNotices.planReminder(r.paymentRequestId, options.reminderDays),
    })),
    ...statuses.map((s) => ({
      partnerId: s.partnerId,
      noticeId: PaymentNotice.statusMessageId(s.paymentRequestId, s.status),
      plan: PaymentNotices.planStatusMessage(s.paymentRequestId, s.status),
    })),
  ]
  const leaseMillis = options.leaseMillis ?? defaultLeaseMillis
  const concurrency = options.concurrency ?? defaultConcurrency
  let started = 0
  const nowMillis = Date.now()
  for (const [noticeId, until] of sending.nothingToSend) if (until <= nowMillis) sending.nothingToSend.delete(noticeId)
  for (const notice of notices) {
    if (sending.inFlight.size >= concurrency) break
    // Still being sent by this instance (a slow provider): its claim holds it anyway.
    if (sending.inFlight.has(notice.noticeId)) continue
    // Listed, but planned to nothing a moment ago (not due on its partner's clock yet): not again at once.
    if (sending.nothingToSend.has(notice.noticeId)) continue
    const attempt = yield* PgWorkClaims.claim(claimKind, notice.noticeId, leaseMillis).pipe(
      Effect.catch((error) =>
        Effect.logWarning("notice not claimed", { notice: notice.noticeId, error: error._tag }).pipe(
          Effect.as(undefined),
        ),
      ),
    )
    // Another instance holds it, or it backs off after a failure.
    if (attempt === undefined) continue
    sending.inFlight.add(notice.noticeId)
    started++
    yield* FiberSet.run(
      sending.fibers,
      sendOne(notice, attempt, clocks).pipe(
        Effect.tap((sent) =>
          sent === 0
            ? Effect.sync(() => sending.nothingToSend.set(notice.noticeId, Date.now() + nothingToSendMillis))
            : Effect.void,
        ),
        Effect.ensuring(Effect.sync(() => sending.inFlight.delete(notice.noticeId))),
      ),
    )
  }
  return started
})

interface Notice {
  readonly partnerId: string
  readonly noticeId: string
  readonly plan: Effect.Effect<PaymentNotices.PlannedNotice | undefined, unknown, Requirements>
}

/** Sends one claimed notice (plan, send, record), then finishes its claim; a failure backs it off. */
const sendOne = (notice: Notice, attempt: number, clocks: SandboxClock.SandboxClock["Service"]) =>
  clocks.within(notice.partnerId, Effect.flatMap(notice.plan, PaymentNotices.sendPlanned)).pipe(
    Effect.tap(() => PgWorkClaims.finish(claimKind, notice.noticeId)),
    Effect.tap((messages) =>
      messages.length === 0
        ? Effect.void
        : Effect.logInfo("notice sent", {
            notice: notice.noticeId,
            channels: [...new Set(messages.map((m) => m.channel))].join(","),
          }),
    ),
    Effect.catch((error) => {
      const tag = (error as { _tag?: string })._tag ?? "unknown"
      return Effect.logWarning("notice not sent", { notice: notice.noticeId, error: tag }).pipe(
        Effect.andThen(
          PgWorkClaims.deferUntil(claimKind, notice.noticeId, PgWorkClaims.backoffMillis(attempt, 1000, 300_000), tag),
        ),
        Effect.as(undefined),
      )
    }),
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.logWarning("notice not sent", cause),
    ),
    // Messages sent; a failure counts as some (its claim backs it off), nothing planned as none.
    Effect.map((messages) => (messages === undefined ? 1 : messages.length)),
  )

/** A notice listed but planned to nothing is not taken again for this long (the round would spin on it). */
export const nothingToSendMillis = 10_000

/** The notices this instance is sending, across rounds, and those it found nothing to send for lately. */
export interface Sending {
  readonly inFlight: Set<string>
  readonly nothingToSend: Map<string, number>
  readonly fibers: FiberSet.FiberSet<unknown, unknown>
}

/** A new `Sending`, its fibers interrupted when `scope` closes (shutdown: their claims lapse after the lease). */
export const makeSending: Effect.Effect<Sending, never, Scope.Scope> = Effect.map(FiberSet.make(), (fibers) => ({
  inFlight: new Set<string>(),
  nothingToSend: new Map<string, number>(),
  fibers,
}))

export const layer = (options: Options): Layer.Layer<never, never, Requirements> =>
  Layer.unwrap(
    Effect.map(makeSending, (sending) =>
      worker("payment-notifier", options.pollMillis ?? 1000, step(options, sending)),
    ),
  )
