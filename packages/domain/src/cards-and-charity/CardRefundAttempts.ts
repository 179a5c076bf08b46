/**
 * CardRefundAttempts: the card processor asked for one card refund, and how
 * it answered, one stream per refund (`CardRefundAttempts-<refundId>`). A
 * card refund (`CardRefunds`) stays Pending while the processor could not be
 * reached (the call failed or timed out): it is asked again, with backoff,
 * at most `maxAttempts` times, then the refund is Failed (its amount back in
 * the company's balance, REFUND_STATUS_CHANGED Failed) through the policy
 * `exhaustedPolicy`. Decision table: packages/domain/docs/CardPaymentAndCharity.md.
 *
 * - `RecordCardRefundAttempt` Unreachable: `CardRefundAttemptFailed` (its
 *   number and the reason), and on the last allowed attempt
 *   `CardRefundAttemptsExhausted` too.
 * - `RecordCardRefundAttempt` Submitted: the processor accepted the refund
 *   and decides it later (its notification): `CardRefundSubmitted`, never
 *   asked again.
 * - After Submitted or Exhausted, an attempt changes nothing.
 *
 * `nextAttemptAt` (pure): when the refund may be asked again:
 * `baseMillis * 2^(attempts - 1)` after the last failed attempt, capped at
 * `maxBackoffMillis`; at once when never asked (a refund recorded before
 * attempts were); never after Submitted or Exhausted.
 */
import { DateTime, Schema } from "effect"
import * as Policy from "../infrastructure/Policy.ts"
import { type Aggregate, accept, byCommand, byEvent, type Decision, nothing } from "../kernel/Decider.ts"
import type { DomainError } from "../kernel/DomainError.ts"
import { unionOf } from "../kernel/EventSchema.ts"
import { CardPaymentId } from "../kernel/Ids.ts"
import { TransferEvents } from "../payments/index.ts"
import * as CardRefunds from "./CardRefunds.ts"

/** How many times the processor is asked for one refund (the first call included). */
export const maxAttempts = 5

/** The longest wait between two attempts. */
export const maxBackoffMillis = 6 * 60 * 60 * 1000

/**
 * Every attempt event, by tag: the codec of the stream, each event's schema in its `cases`. Each names the
 * refund and its card payment, and the instant `at`.
 */
export const CardRefundAttemptEvent = unionOf(
  { refundId: TransferEvents.RefundId, cardPaymentId: CardPaymentId },
  {
    /** The processor could not be reached for the refund (attempt `attempt`). */
    CardRefundAttemptFailed: { attempt: Schema.Int, reason: Schema.String },
    /** The processor accepted the refund and decides it later (its notification). */
    CardRefundSubmitted: {},
    /** The processor could not be reached `attempts` times: the refund is given up (Failed). */
    CardRefundAttemptsExhausted: { attempts: Schema.Int },
  },
)
export type CardRefundAttemptEvent = typeof CardRefundAttemptEvent.Type

/** The attempt event tagged `Tag`. */
export type Of<Tag extends CardRefundAttemptEvent["_tag"]> = Extract<CardRefundAttemptEvent, { readonly _tag: Tag }>

export interface RecordCardRefundAttempt {
  readonly _tag: "RecordCardRefundAttempt"
  readonly refundId: TransferEvents.RefundId
  readonly cardPaymentId: CardPaymentId
  readonly answer: { readonly _tag: "Submitted" } | { readonly _tag: "Unreachable"; readonly reason: string }
  readonly at: DateTime.Utc
}

export type Command = RecordCardRefundAttempt
export type Event = CardRefundAttemptEvent

export interface State {
  readonly attempts: number
  readonly lastFailedAt?: DateTime.Utc | undefined
  readonly done: "Submitted" | "Exhausted" | undefined
}

export const initialState: State = { attempts: 0, done: undefined }

/** When the refund may be asked of the processor again (undefined: never again). */
export const nextAttemptAt = (state: State, baseMillis: number): DateTime.Utc | undefined => {
  if (state.done !== undefined) return undefined
  if (state.lastFailedAt === undefined) return DateTime.makeUnsafe(0)
  const backoff = Math.min(baseMillis * 2 ** Math.max(0, state.attempts - 1), maxBackoffMillis)
  return DateTime.add(state.lastFailedAt, { milliseconds: backoff })
}

const record = (command: RecordCardRefundAttempt, state: State): Decision<Event> => {
  if (state.done !== undefined) return nothing
  const ids = { refundId: command.refundId, cardPaymentId: command.cardPaymentId, at: command.at }
  if (command.answer._tag === "Submitted") return accept<Event>({ _tag: "CardRefundSubmitted", ...ids })
  const attempt = state.attempts + 1
  const failed: Event = { _tag: "CardRefundAttemptFailed", ...ids, attempt, reason: command.answer.reason }
  return attempt >= maxAttempts
    ? accept<Event>(failed, { _tag: "CardRefundAttemptsExhausted", ...ids, attempts: attempt })
    : accept<Event>(failed)
}

export const decide = byCommand<Command, State, Event>({ RecordCardRefundAttempt: record })

export const evolve = byEvent<Event, State>({
  CardRefundAttemptFailed: (state, event) => ({ ...state, attempts: event.attempt, lastFailedAt: event.at }),
  CardRefundSubmitted: (state) => ({ ...state, done: "Submitted" }),
  CardRefundAttemptsExhausted: (state) => ({ ...state, done: "Exhausted" }),
})

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "CardRefundAttempts",
  initialState,
  decide,
  evolve,
  events: CardRefundAttemptEvent,
  eventVersion: () => 1,
}

/** The card refund's outcome once the processor could not be reached `attempts` times. */
export const exhaustedOutcome = (event: Of<"CardRefundAttemptsExhausted">): CardRefunds.RecordCardRefundOutcome => ({
  _tag: "RecordCardRefundOutcome",
  refundId: event.refundId,
  outcome: {
    _tag: "Failed",
    reason: `the card processor could not be reached (${event.attempts} attempts)`,
  },
  at: event.at,
})

/** Policy: a refund whose attempts are exhausted is Failed (its amount back, REFUND_STATUS_CHANGED Failed). */
export const exhaustedPolicy = Policy.make({
  name: "a card refund the processor could not be asked for is failed",
  source: aggregate,
  reactsTo: ["CardRefundAttemptsExhausted"],
  target: CardRefunds.aggregate,
  react: (event: Event) =>
    event._tag === "CardRefundAttemptsExhausted"
      ? { id: event.cardPaymentId, command: exhaustedOutcome(event) }
      : undefined,
})
