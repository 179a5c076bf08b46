/**
 * What the PostgreSQL adapters tell an operator through Effect's metric
 * registry (rendered by the service's `GET /metrics`): events appended and
 * units of work committed or refused on a version conflict (updated by
 * `PgUnitOfWork` once per commit, never per statement), and the outbox
 * backlog (read on demand by `outboxBacklog`, one indexed statement per
 * scrape).
 */
import { Traced } from "@partnerpay/domain"
import { Metric } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

/** Events written by committed units of work (re-appends of recorded event ids not counted). */
export const eventsAppended = Metric.counter("partnerpay_events_appended_total", {
  description: "Events appended to the event store by committed units of work",
  incremental: true,
})

/** Units of work by outcome: `committed`, or `conflict` (refused at commit; the use case retries). */
export const unitsCommitted = Metric.counter("partnerpay_units_of_work_total", {
  description: "Units of work sent to the database, by outcome",
  attributes: { outcome: "committed" },
  incremental: true,
})
export const unitsConflicted = Metric.counter("partnerpay_units_of_work_total", {
  description: "Units of work sent to the database, by outcome",
  attributes: { outcome: "conflict" },
  incremental: true,
})

/**
 * What timed out (issue 34): a statement, a lock wait, or a session left idle in a transaction (the
 * server's session timeouts), or a statement's wait for a session of a busy pool (`acquire`).
 */
export type TimeoutKind = "statement" | "lock" | "idle_in_transaction" | "acquire"

/** Every kind, in the order `/metrics` lists them. */
export const timeoutKinds: ReadonlyArray<TimeoutKind> = ["statement", "lock", "idle_in_transaction", "acquire"]

/** The kind of timeout a SQLSTATE code reports, if it reports one. */
export const timeoutKindOf = (code: string | undefined): TimeoutKind | undefined =>
  code === "57014" ? "statement" : code === "55P03" ? "lock" : code === "25P03" ? "idle_in_transaction" : undefined

const timeoutCounters = new Map<TimeoutKind, Metric.Counter<number>>()

/** The counter of one kind of timeout (`partnerpay_database_timeouts_total{kind}`). */
export const databaseTimeouts = (kind: TimeoutKind): Metric.Counter<number> => {
  let counter = timeoutCounters.get(kind)
  if (counter === undefined) {
    counter = Metric.counter("partnerpay_database_timeouts_total", {
      description:
        "Database statements ended by a timeout, by kind (statement, lock, idle_in_transaction; acquire: no pooled session in time)",
      attributes: { kind },
      incremental: true,
    })
    timeoutCounters.set(kind, counter)
  }
  return counter
}

/** Webhook notifications not yet delivered nor given up, and how old the oldest one is. */
export const outboxPending = Metric.gauge("partnerpay_outbox_backlog", {
  description: "Webhook notifications waiting for delivery (pending or being delivered)",
})
export const outboxOldestAge = Metric.gauge("partnerpay_outbox_oldest_age_seconds", {
  description: "Age of the oldest webhook notification waiting for delivery (0 when none)",
})

/** Reads the outbox backlog into the two gauges (one statement over the open rows' partial index). */
export const outboxBacklog = Traced.fn("PgMetrics.outboxBacklog")(function* () {
  const sql = yield* SqlClient
  const rows = yield* sql<{ readonly pending: number; readonly oldest: number | null }>`
    SELECT count(*)::int AS pending, extract(epoch FROM now() - min(created_at))::float8 AS oldest
    FROM outbox WHERE status IN ('pending', 'delivering')`
  const row = rows[0]
  yield* Metric.update(outboxPending, row?.pending ?? 0)
  yield* Metric.update(outboxOldestAge, Math.max(0, row?.oldest ?? 0))
})

/** Companies whose available balance is negative in some currency, and how long the oldest deficit lasts. */
export const negativeBalancesCount = Metric.gauge("partnerpay_negative_balances", {
  description: "Companies whose available balance is negative in some currency (refunds or returns after payout)",
})
export const negativeBalanceOldestAge = Metric.gauge("partnerpay_negative_balance_oldest_age_seconds", {
  description:
    "Age of the oldest deficit a payout run found and not yet recovered (0 when none); a Debit payout that fails leaves it growing",
})

/** The statement of the negative balances (the operators' view: also `partnerpay balances --negative`). */
export const negativeBalancesStatement = (sql: SqlClient) =>
  sql<{
    readonly company_id: string
    readonly partner_id: string
    readonly available: ReadonlyArray<{ readonly currency: string; readonly minorUnits: number }>
    readonly deficit_since: string | null
  }>`
    SELECT id AS company_id, partner_id::text AS partner_id, data -> 'available' AS available,
      data ->> 'deficitSince' AS deficit_since
    FROM read_models
    WHERE collection = 'balances' AND EXISTS (
      SELECT 1 FROM jsonb_array_elements(data -> 'available') AS amount WHERE (amount ->> 'minorUnits')::bigint < 0)
    ORDER BY data ->> 'deficitSince' NULLS LAST, id`

/** Reads the negative balances into their two gauges. */
export const negativeBalances = Traced.fn("PgMetrics.negativeBalances")(function* () {
  const sql = yield* SqlClient
  const rows = yield* negativeBalancesStatement(sql)
  const oldest = rows.reduce<number | undefined>((min, row) => {
    if (row.deficit_since === null) return min
    const since = Date.parse(row.deficit_since)
    return min === undefined || since < min ? since : min
  }, undefined)
  yield* Metric.update(negativeBalancesCount, rows.length)
  yield* Metric.update(negativeBalanceOldestAge, oldest === undefined ? 0 : Math.max(0, (Date.now() - oldest) / 1000))
  return rows
})

/**
 * Debit payouts (deficit recoveries) the bank or the rail refused, counted from the `payouts` read
 * model (so every instance, and a restarted one, reports the same total): when one fails the deficit
 * stays, the company's collections go on, and an operator has to act (issue 37 §3). The webhook
 * (`PAYOUT_STATUS_CHANGED`, Failed, Direction Debit) tells the partner; this counter tells the operator.
 */
export const debitPayoutsFailedTotal = Metric.counter("partnerpay_debit_payouts_failed_total", {
  description:
    "Debit payouts (recoveries of a negative balance from the payout account) that failed; the deficit stays",
  incremental: true,
})

/** Reads the failed Debit payouts and raises the counter to their number. */
export const debitPayoutsFailed = Traced.fn("PgMetrics.debitPayoutsFailed")(function* () {
  const sql = yield* SqlClient
  const rows = yield* sql<{ readonly failed: number }>`
    SELECT count(*)::int AS failed FROM read_models
    WHERE collection = 'payouts' AND data ->> 'direction' = 'Debit' AND data ->> 'status' = 'Failed'`
  const failed = rows[0]?.failed ?? 0
  // The counter only grows: it is raised by what the read model counts beyond it.
  const counted = (yield* Metric.value(debitPayoutsFailedTotal)).count
  if (failed > counted) yield* Metric.update(debitPayoutsFailedTotal, failed - counted)
  return failed
})
