/**
 * The bank's outcome of transfers applied by hand or in batches (tests, tools
 * and the settlement worker's batches; the workers record outcomes through
 * `MoneyMovements`): a transfer Settled or Failed, the payment request it pays
 * following through the Transfer -> PaymentRequest policy, in one unit of work.
 */
import { DateTime, Effect } from "effect"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import type { TransferId } from "../kernel/Ids.ts"
import * as Transfer from "./Transfer.ts"

/** Applies a transfer command (its policies: the payment request it pays follows), in one unit of work. */
const applyToTransfer = UseCase.fn("Payments.applyToTransfer")(function* (
  transferId: string,
  command: Transfer.Command,
) {
  return yield* CommandHandler.handle(Transfer.aggregate, transferId, command)
})

/** The bank settled the transfer: it becomes Settled and the request it pays Paid. A repeat changes nothing. */
export const settleTransfer = UseCase.fn("Payments.settleTransfer")(function* (transferId: TransferId) {
  const handled = yield* CommandHandler.handleNow(Transfer.aggregate, transferId, {
    _tag: "SettleTransfer",
    transferId,
  })
  return Transfer.summary(handled.state)
})

/** The bank failed the transfer (return code, e.g. R01): it becomes Failed and the request it pays Failed. */
export const failTransfer = UseCase.fn("Payments.failTransfer")(function* (
  transferId: TransferId,
  returnCode: string,
  reason = "returned by the bank",
) {
  const handled = yield* CommandHandler.handleNow(Transfer.aggregate, transferId, {
    _tag: "FailTransfer",
    transferId,
    returnCode,
    reason,
  })
  return Transfer.summary(handled.state)
})

/** The bank's outcome for one transfer, for `settleBatch`. */
export type SettlementDecision =
  | { readonly _tag: "Settle"; readonly transferId: TransferId }
  | { readonly _tag: "Fail"; readonly transferId: TransferId; readonly returnCode: string; readonly reason: string }

/** One transfer's outcome in `settleBatch`. */
export type SettlementBatchResult =
  | { readonly _tag: "Applied"; readonly transferId: TransferId; readonly decision: SettlementDecision["_tag"] }
  | { readonly _tag: "Skipped"; readonly transferId: TransferId; readonly error: string }

/**
 * Applies many bank outcomes in ONE unit of work (the settlement worker's
 * batches: one commit instead of one per transfer), each by the rule of
 * `settleTransfer` / `failTransfer` and each atomic on its own (a nested unit:
 * the transfer and the request it pays change together or not at all). A
 * transfer whose command is refused or loses a race is reported as Skipped and
 * the others still commit; a database failure fails the whole batch.
 */
export const settleBatch = UseCase.fn("Payments.settleBatch")(function* (decisions: ReadonlyArray<SettlementDecision>) {
  const at = yield* DateTime.now
  return yield* Effect.forEach(decisions, (decision) =>
    applyToTransfer(
      decision.transferId,
      decision._tag === "Settle"
        ? { _tag: "SettleTransfer", transferId: decision.transferId, at }
        : {
            _tag: "FailTransfer",
            transferId: decision.transferId,
            returnCode: decision.returnCode,
            reason: decision.reason,
            at,
          },
    ).pipe(
      Effect.as<SettlementBatchResult>({
        _tag: "Applied",
        transferId: decision.transferId,
        decision: decision._tag,
      }),
      Effect.catch((error) =>
        error._tag === "EventStoreUnavailable"
          ? Effect.fail(error)
          : Effect.succeed<SettlementBatchResult>({
              _tag: "Skipped",
              transferId: decision.transferId,
              error: error._tag,
            }),
      ),
    ),
  )
})
