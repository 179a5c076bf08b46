/**
 * The money-movement workers, in the sandbox AND in production (the provider
 * differs: `SandboxMoneyMovement` or the operator's bridge,
 * `providers/MoneyMovementBridge.ts`):
 *
 * - `money-movement-originator`: Pending transfers not originated yet, and
 *   Pending refunds not originated yet, are originated through the
 *   `MoneyMovement` port (`MoneyMovements.originate`: a debit keyed by the
 *   transfer id, a credit keyed by the refund id) and their references
 *   recorded, one unit of work per batch. Safe across crashes and with
 *   several instances: the provider answers a repeated key with the first
 *   movement, and recording a reference twice changes nothing.
 * - `money-movement-outcomes`: originated Pending transfers, transfers
 *   settled within the return window (`PARTNERPAY_RETURN_WINDOW_DAYS`: a
 *   return such as R10 may still come) and originated Pending refunds are
 *   polled (`MoneyMovements.poll`) and their outcomes recorded, one unit of
 *   work per batch (the request Paid, Failed or Returned, the instalment
 *   Settled, Failed or Returned, the refund Completed or Failed, through the
 *   Transfer's policies). Its cursors walk through each set and wrap around.
 *
 * Work is done on each partner's sandbox clock (`SandboxClock.within`; in
 * production the real clock).
 */
import { PgDueWork } from "@partnerpay/adapters-pg"
import { Ids, MoneyMovements, Traced, type TransferEvents } from "@partnerpay/domain"
import { Effect, type Layer } from "effect"
import * as SandboxClock from "../sandbox/SandboxClock.ts"
import { worker } from "./Polling.ts"

/** Items read per poll and per kind. */
export const batchSize = 100

export const originatorName = "money-movement-originator"
export const outcomesName = "money-movement-outcomes"

/** The refunds of a transfer row (JSON of the read model's `refunds`). */
interface RefundRow {
  readonly refundId: string
  readonly status: string
  readonly providerReference?: string
  readonly statusRetryAt?: string
}

const refundsOf = (row: PgDueWork.RefundingTransfer): ReadonlyArray<RefundRow> =>
  (JSON.parse(row.refunds ?? "[]") as ReadonlyArray<RefundRow> | null) ?? []

/** Items grouped by partner, in the order first seen. */
const byPartner = <A>(items: ReadonlyArray<readonly [string, A]>): ReadonlyArray<readonly [string, Array<A>]> => {
  const groups = new Map<string, Array<A>>()
  for (const [partnerId, item] of items) {
    const group = groups.get(partnerId)
    if (group === undefined) groups.set(partnerId, [item])
    else group.push(item)
  }
  return [...groups.entries()]
}

/**
 * The movements whose outcome changed something: a worker that recorded none waits before its next
 * poll (a settled transfer stays in the outcome poller's set for its whole return window, and
 * polling it again records nothing new; counted as work, it kept the poller in a busy loop).
 */
export const changedCount = (results: ReadonlyArray<MoneyMovements.Recorded>) =>
  results.filter((result) => result._tag === "Recorded" && result.changed).length

/** Logs a batch that could not complete (the next poll takes it again). */
const logBatchFailure = (worker: string, size: number) => (error: unknown) =>
  Effect.logWarning(`${worker}: batch could not complete`, {
    items: size,
    error: (error as { _tag?: string })._tag ?? "unknown",
  }).pipe(Effect.as([] as ReadonlyArray<MoneyMovements.Recorded>))

/** One originator step: what it originated and recorded. */
export const originateStep = Traced.fn("MoneyMovementWorkers.originateStep")(function* () {
  const clocks = yield* SandboxClock.current
  // Up to the furthest-ahead partner's time; the use case skips an item not due on its partner's clock.
  const transfers = yield* PgDueWork.unoriginatedTransfers(
    batchSize,
    new Date(yield* clocks.latestMillis).toISOString(),
  )
  const refunding = yield* PgDueWork.refundsToOriginate(batchSize)
  const items: Array<readonly [string, MoneyMovements.Movement]> = transfers.map((row) => [
    row.partner_id,
    { _tag: "Debit", transferId: Ids.TransferId.make(row.id) },
  ])
  for (const row of refunding)
    for (const refund of refundsOf(row))
      if (refund.status === "Pending" && refund.providerReference === undefined)
        items.push([
          row.partner_id,
          {
            _tag: "Credit",
            transferId: Ids.TransferId.make(row.id),
            refundId: refund.refundId as TransferEvents.RefundId,
          },
        ])
  let done = 0
  for (const [partnerId, movements] of byPartner(items)) {
    const results = yield* clocks
      .within(partnerId, MoneyMovements.originate(movements))
      .pipe(Effect.catch(logBatchFailure(originatorName, movements.length)))
    done += changedCount(results)
  }
  return done
})

/** The outcome poller's cursors (per instance, in memory): where each walk goes on. */
interface Cursors {
  pending: string
  settled: string
  refunding: string
}

/** One poller step: the outcomes it recorded. */
export const pollStep = Traced.fn("MoneyMovementWorkers.pollStep")(function* (
  cursors: Cursors,
  returnWindowMillis: number,
) {
  const clocks = yield* SandboxClock.current
  const pending = yield* PgDueWork.originatedPendingTransfers(batchSize, cursors.pending)
  cursors.pending = pending.length < batchSize ? "" : pending[pending.length - 1]!.sort_key
  const since = new Date((yield* clocks.latestMillis) - returnWindowMillis).toISOString()
  const settled = yield* PgDueWork.settledMovements(since, batchSize, cursors.settled)
  cursors.settled = settled.length < batchSize ? "" : settled[settled.length - 1]!.settled_at
  const refunding = yield* PgDueWork.refundingTransfers(batchSize, cursors.refunding)
  cursors.refunding = refunding.length < batchSize ? "" : refunding[refunding.length - 1]!.sort_key
  const items: Array<readonly [string, MoneyMovements.Originated]> = []
  for (const row of [...pending, ...settled])
    if (row.provider_reference !== null)
      items.push([
        row.partner_id,
        {
          movement: { _tag: "Debit", transferId: Ids.TransferId.make(row.id) },
          providerReference: row.provider_reference,
          ...("status_retry_at" in row && row.status_retry_at !== null ? { statusRetryAt: row.status_retry_at } : {}),
        },
      ])
  for (const row of refunding)
    for (const refund of refundsOf(row))
      if (refund.status === "Pending" && refund.providerReference !== undefined)
        items.push([
          row.partner_id,
          {
            movement: {
              _tag: "Credit",
              transferId: Ids.TransferId.make(row.id),
              refundId: refund.refundId as TransferEvents.RefundId,
            },
            providerReference: refund.providerReference,
            ...(refund.statusRetryAt === undefined ? {} : { statusRetryAt: refund.statusRetryAt }),
          },
        ])
  let done = 0
  for (const [partnerId, originated] of byPartner(items)) {
    const results = yield* clocks
      .within(partnerId, MoneyMovements.poll(originated))
      .pipe(Effect.catch(logBatchFailure(outcomesName, originated.length)))
    done += changedCount(results)
  }
  return done
})

/** The idle wait: the sandbox follows its settlement delay, production its poll setting. */
export const idleMillis = (options: {
  readonly sandbox: boolean
  readonly delayMillis: number
  readonly pollMillis: number
}) => (options.sandbox ? Math.min(1000, Math.max(100, Math.floor(options.delayMillis / 4))) : options.pollMillis)

export interface Options {
  readonly sandbox: boolean
  /** Sandbox: the settlement delay (the idle wait follows it). */
  readonly delayMillis: number
  /** Production: the idle wait. */
  readonly pollMillis: number
  readonly returnWindowDays: number
}

/** Both workers. */
export const layer = (options: Options) => {
  const idle = idleMillis(options)
  const cursors: Cursors = { pending: "", settled: "", refunding: "" }
  const originator = worker(originatorName, idle, originateStep())
  const outcomes = worker(
    outcomesName,
    idle,
    Effect.suspend(() => pollStep(cursors, options.returnWindowDays * 86_400_000)),
  )
  return [originator, outcomes] as const satisfies ReadonlyArray<Layer.Layer<never, never, unknown>>
}
