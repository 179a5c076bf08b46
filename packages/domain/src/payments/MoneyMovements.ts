/**
 * Money-movement use cases: how transfers and refunds move money through the
 * `MoneyMovement` port, and the one entry point of their outcomes.
 *
 * - `originate`: asks the provider to move the money of transfers (a debit of
 *   the payer's funding source, idempotency key = the transfer id) and refunds
 *   (a credit back to the payer, key = the refund id) not originated yet, then
 *   records every provider reference in ONE unit of work (each item atomic on
 *   its own). The provider is called outside any unit: a unit retried after a
 *   conflict never calls it twice, and a crash between the call and the record
 *   only makes the next run ask again under the same key, which answers the
 *   first movement (never moves money twice). Several instances may originate
 *   the same item: the provider answers both with one reference, the second
 *   record changes nothing. A refusal fails the movement at once (no return
 *   code unless the rail gave one); an unavailable rail defers it with
 *   backoff (`MovementAttempts.ts`).
 * - `poll`: asks the provider where originated movements stand (`status`) and
 *   records the outcomes that are no longer Pending, in one unit of work.
 * - `recordOutcomes`: the ONE entry point of an outcome, whatever told it
 *   (the poller, or a provider's notification decoded by the application:
 *   `recordNotification`): Settled, Failed (before settlement) or Returned
 *   (after it) with an ACH return code; the Transfer decides, and a repeat
 *   changes nothing. Its policies carry the outcome to the payment request
 *   and the plan instalment in the same unit.
 */
import { DateTime, Effect, Option, Random } from "effect"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { decodeDocument, ReadModelStore } from "../infrastructure/ReadModel.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import type { CompanyId, RegistrationId, TransferId } from "../kernel/Ids.ts"
import * as Traced from "../kernel/Traced.ts"
import { MoneyMovement, type MovementOutcome, type MovementReference, MovementRefused } from "./MoneyMovement.ts"
import * as RailRules from "./RailRules.ts"
import * as ReturnCodes from "./ReturnCodes.ts"
import * as Transfer from "./Transfer.ts"
import type { RefundId } from "./TransferEvents.ts"
import * as TransfersProjection from "./TransfersProjection.ts"

/** One movement of ours: a transfer's debit, or one of its refunds' credit. */
export type Movement =
  | { readonly _tag: "Debit"; readonly transferId: TransferId }
  | { readonly _tag: "Credit"; readonly transferId: TransferId; readonly refundId: RefundId }

/** The id a movement is known by at the provider (and its idempotency key). */
export const idOf = (movement: Movement): string =>
  movement._tag === "Debit" ? movement.transferId : movement.refundId

/**
 * A movement and what happened to it, as recorded. `changed` is false when the transfer had the
 * outcome already (a settled transfer polled again within its return window, a reference recorded
 * twice): nothing new was recorded, so a worker has nothing to go on with at once.
 */
export type Recorded =
  | { readonly _tag: "Recorded"; readonly movement: Movement; readonly changed: boolean }
  | { readonly _tag: "Skipped"; readonly movement: Movement; readonly error: string }

/** The domain's outcome for a provider's (undefined while still Pending). */
export const outcomeOf = (outcome: MovementOutcome): Transfer.Outcome | undefined => {
  switch (outcome.status) {
    case "Pending":
      return undefined
    case "Settled":
      return { _tag: "Settled" }
    case "Failed":
      return { _tag: "Failed", returnCode: outcome.returnCode }
    case "Returned":
      return { _tag: "Returned", returnCode: outcome.returnCode }
  }
}

/** Applies one transfer command in a nested unit (undone alone; its policies follow). */
const applyToTransfer = UseCase.fn("MoneyMovements.applyToTransfer")(function* (
  transferId: string,
  command: Transfer.Command,
) {
  return yield* CommandHandler.handle(Transfer.aggregate, transferId, command)
})

/**
 * Runs one command per movement in ONE unit of work, each atomic on its own: a
 * refused or racing item is Skipped and the others commit; a database failure
 * fails the batch.
 */
const recordBatch = UseCase.fn("MoneyMovements.recordBatch")(function* (
  items: ReadonlyArray<{ readonly movement: Movement; readonly command: (at: DateTime.Utc) => Transfer.Command }>,
) {
  const at = yield* DateTime.now
  return yield* Effect.forEach(items, ({ movement, command }) =>
    applyToTransfer(movement.transferId, command(at)).pipe(
      Effect.map((handled): Recorded => ({ _tag: "Recorded", movement, changed: handled.events.length > 0 })),
      Effect.catch((error) =>
        error._tag === "EventStoreUnavailable"
          ? Effect.fail(error)
          : Effect.succeed<Recorded>({ _tag: "Skipped", movement, error: error._tag }),
      ),
    ),
  )
})

/** The command recording a movement's outcome (naming the provider's reference when the teller did). */
const outcomeCommand =
  (movement: Movement, outcome: Transfer.Outcome, providerReference?: string) =>
  (at: DateTime.Utc): Transfer.Command => {
    const named = providerReference === undefined ? {} : { providerReference }
    return movement._tag === "Debit"
      ? { _tag: "RecordOutcome", transferId: movement.transferId, outcome, ...named, at }
      : {
          _tag: "RecordRefundOutcome",
          transferId: movement.transferId,
          refundId: movement.refundId,
          outcome,
          ...named,
          at,
        }
  }

/** One outcome to record: the movement, what became of it, and the provider's reference when known. */
export interface OutcomeOf {
  readonly movement: Movement
  readonly outcome: Transfer.Outcome
  readonly providerReference?: string
}

/**
 * Records outcomes (the one entry point, polling or notification) in one unit
 * of work: each decided by the Transfer, a repeat changing nothing.
 */
export const recordOutcomes = (outcomes: ReadonlyArray<OutcomeOf>) =>
  recordBatch(
    outcomes.map(({ movement, outcome, providerReference }) => ({
      movement,
      command: outcomeCommand(movement, outcome, providerReference),
    })),
  )

/** A provider's notification about one movement of ours, as the application decoded it. */
export interface Notification {
  readonly movement: Movement
  /** The provider's reference of the movement: it must be the one recorded (recorded now if none was yet). */
  readonly providerReference: string
  readonly outcome: MovementOutcome
}

/**
 * The notification path: a provider's notification about one movement of
 * ours, recorded by the same entry point as polling (Pending changes
 * nothing). Refused like a command: the transfer or refund unknown
 * (NotFound), another movement's reference (RuleViolated `OTHER_MOVEMENT`), a
 * code outside the table (ValidationFailed).
 */
export const recordNotification = UseCase.fn("MoneyMovements.recordNotification")(function* (
  notification: Notification,
) {
  const decided = outcomeOf(notification.outcome)
  if (decided === undefined) return { recorded: false }
  const { movement, providerReference } = notification
  const at = yield* DateTime.now
  yield* CommandHandler.handle(
    Transfer.aggregate,
    movement.transferId,
    outcomeCommand(movement, decided, providerReference)(at),
  )
  return { recorded: true }
})

/** The transfer document of a movement (undefined when it does not exist). */
const documentOf = Traced.fn("MoneyMovements.documentOf")(function* (transferId: string) {
  const store = yield* ReadModelStore
  const stored = yield* store.get(TransfersProjection.collection, transferId)
  return Option.isNone(stored) ? undefined : decodeDocument(TransfersProjection.projection, stored.value)
})

/** The provider's funding source of the payer: the linked bank account debited (else the payer's default). */
export const fundingSourceOf = (doc: TransfersProjection.TransferDocument): string =>
  doc.bankAccountId ?? `payer:${doc.payerRegistrationId ?? "unknown"}`

/** Asks the provider to move one movement's money; the reference, or why not (then nothing is recorded). */
const originateOne = Traced.fn("MoneyMovements.originateOne")(function* (movement: Movement) {
  const doc = yield* documentOf(movement.transferId)
  if (doc === undefined) return undefined
  const provider = yield* MoneyMovement
  const common = {
    companyId: doc.companyId as CompanyId,
    payerRegistrationId: (doc.payerRegistrationId ?? "") as RegistrationId,
    fundingSource: fundingSourceOf(doc),
  }
  const now = DateTime.formatIso(yield* DateTime.now)
  if (movement._tag === "Debit") {
    if (doc.status !== "Pending" || doc.providerReference !== undefined) return undefined
    // Deferred while the rail is unavailable: not before its next attempt (`MovementAttempts.ts`).
    if (doc.originationRetryAt !== undefined && doc.originationRetryAt > now) return undefined
    // The rail's payer limit, before asking it: an automatic collection past it fails with that reason.
    if (doc.payerRegistrationId !== undefined)
      yield* RailRules.checkPayerLimit(doc.partnerId, doc.payerRegistrationId, doc.amount, doc.transferId).pipe(
        Effect.catchTag("RuleViolated", (refusal) =>
          Effect.fail(new MovementRefused({ code: refusal.code, reason: refusal.reason })),
        ),
      )
    return yield* provider.originateDebit({
      ...common,
      idempotencyKey: movement.transferId,
      amount: doc.amount,
      description: doc.description,
    })
  }
  const refund = doc.refunds?.find((candidate) => candidate.refundId === movement.refundId)
  if (refund === undefined || refund.status !== "Pending" || refund.providerReference !== undefined) return undefined
  if (refund.retryAt !== undefined && refund.retryAt > now) return undefined
  return yield* provider.originateCredit({
    ...common,
    idempotencyKey: movement.refundId,
    transferId: movement.transferId,
    amount: refund.amount,
    description: `Refund of ${doc.description}`,
  })
})

/**
 * The decision on a provider's refusal to originate: with an ACH return code, the movement Failed
 * with that code (the bank's answer); any other refusal (Dwolla's ValidationError, our own
 * NO_FUNDING_SOURCE...) is Refused: Failed at once, no return code, the rail's words as the reason.
 */
export const refusedOutcome = (refusal: { readonly code: string; readonly reason: string }): Transfer.Outcome =>
  ReturnCodes.isReturnCode(refusal.code)
    ? { _tag: "Failed", returnCode: refusal.code }
    : { _tag: "Refused", reason: Transfer.refusalReason(refusal.reason) }

/**
 * Originates movements not originated yet and records their references in one
 * unit of work. The three decisions on a provider that does not originate:
 * refused ends the movement at once (`refusedOutcome`: Failed, with the ACH
 * return code the rail gave, else with its words and no code); unavailable (a
 * timeout, a 5xx, a 429) defers it with backoff and jitter, recorded on the
 * transfer (`MovementAttempts.ts`: not asked again before its next attempt,
 * Failed after 72 hours of outage). A movement deferred and not due yet is
 * skipped without asking the provider.
 */
export const originate = Traced.fn("MoneyMovements.originate")(function* (movements: ReadonlyArray<Movement>) {
  const references: Array<{ readonly movement: Movement; readonly command: (at: DateTime.Utc) => Transfer.Command }> =
    []
  for (const movement of movements) {
    const answered = yield* originateOne(movement).pipe(
      Effect.map((reference) => ({ _tag: "Originated" as const, reference })),
      Effect.catchTags({
        MovementRefused: (refusal) => Effect.succeed({ _tag: "Refused" as const, refusal }),
        ProviderUnavailable: (error) =>
          Effect.logWarning("money movement: provider unavailable, origination deferred (backoff)", {
            movement: idOf(movement),
            reason: error.reason,
          }).pipe(Effect.as({ _tag: "Unavailable" as const, reason: error.reason })),
      }),
    )
    if (answered._tag === "Originated") {
      const reference = answered.reference
      if (reference === undefined) continue
      references.push({
        movement,
        command: (at) =>
          movement._tag === "Debit"
            ? {
                _tag: "RecordOrigination",
                transferId: movement.transferId,
                providerReference: reference.providerReference,
                at,
              }
            : {
                _tag: "RecordRefundOrigination",
                transferId: movement.transferId,
                refundId: movement.refundId,
                providerReference: reference.providerReference,
                at,
              },
      })
    } else if (answered._tag === "Refused") {
      references.push({ movement, command: outcomeCommand(movement, refusedOutcome(answered.refusal)) })
    } else {
      references.push({
        movement,
        command: yield* unavailable("RecordOriginationUnavailable", movement, answered.reason),
      })
    }
  }
  if (references.length === 0) return [] as ReadonlyArray<Recorded>
  return yield* recordBatch(references)
})

/** The refund a movement is the credit of (nothing for the transfer's debit). */
const refundOf = (movement: Movement) => (movement._tag === "Credit" ? { refundId: movement.refundId } : {})

/**
 * The command recording that the rail was unavailable for a movement (to originate it, or to say where
 * it stands): tried again after the transfer's backoff, with a random jitter drawn now.
 */
const unavailable = Effect.fnUntraced(function* (
  tag: "RecordOriginationUnavailable" | "RecordStatusUnavailable",
  movement: Movement,
  reason: string,
) {
  const jitter = yield* Random.next
  const refusal = Transfer.refusalReason(reason)
  return (at: DateTime.Utc): Transfer.Command => ({
    _tag: tag,
    transferId: movement.transferId,
    ...refundOf(movement),
    reason: refusal,
    jitter,
    at,
  })
})

/** An originated movement to poll: ours and the provider's reference. */
export interface Originated {
  readonly movement: Movement
  readonly providerReference: string
  /** While the rail is unavailable: when its status may be asked again (ISO 8601, the document's `statusRetryAt`). */
  readonly statusRetryAt?: string
}

/** The provider's handle of an originated movement. */
export const referenceOf = ({ movement, providerReference }: Originated): MovementReference => ({
  kind: movement._tag,
  id: idOf(movement),
  providerReference,
})

/**
 * The polling path: asks the provider where each movement stands and records
 * the outcomes no longer Pending in one unit of work. An unreachable provider
 * (a timeout, a 5xx, a 429) is the origination's "unavailable, try again"
 * decision (`MovementAttempts.ts`): the movement's status is deferred with
 * backoff and jitter, recorded on the transfer (not asked again before its
 * next attempt; Failed after 72 hours of outage); a movement deferred and not
 * due yet is skipped without asking the provider; the first answer after an
 * outage ends it (its backoff forgotten).
 */
export const poll = Traced.fn("MoneyMovements.poll")(function* (originated: ReadonlyArray<Originated>) {
  const provider = yield* MoneyMovement
  const now = DateTime.formatIso(yield* DateTime.now)
  const commands: Array<{ readonly movement: Movement; readonly command: (at: DateTime.Utc) => Transfer.Command }> = []
  for (const item of originated) {
    if (item.statusRetryAt !== undefined && item.statusRetryAt > now) continue
    const answered = yield* provider.status(referenceOf(item)).pipe(
      Effect.map((status) => ({ _tag: "Answered" as const, outcome: outcomeOf(status) })),
      Effect.catchTag("ProviderUnavailable", (error) =>
        Effect.logWarning("money movement: provider unavailable, status asked again later (backoff)", {
          movement: idOf(item.movement),
          reason: error.reason,
        }).pipe(Effect.as({ _tag: "Unavailable" as const, reason: error.reason })),
      ),
    )
    const { movement } = item
    if (answered._tag === "Unavailable") {
      commands.push({ movement, command: yield* unavailable("RecordStatusUnavailable", movement, answered.reason) })
    } else if (answered.outcome !== undefined) {
      commands.push({ movement, command: outcomeCommand(movement, answered.outcome) })
    } else if (item.statusRetryAt !== undefined) {
      commands.push({
        movement,
        command: (at) => ({ _tag: "RecordStatusAnswered", transferId: movement.transferId, ...refundOf(movement), at }),
      })
    }
  }
  if (commands.length === 0) return [] as ReadonlyArray<Recorded>
  return yield* recordBatch(commands)
})
