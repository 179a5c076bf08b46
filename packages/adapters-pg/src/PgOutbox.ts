/**
 * The outbox on PostgreSQL (table `outbox`, migration 0002): the domain
 * `Outbox` port (`record`, called by the event pipeline inside the append's
 * transaction) and `OutboxDispatch`, the API webhook dispatchers and
 * operators use.
 *
 * Row life: `pending` -> claimed: `delivering` (leased to one worker until
 * `claimed_until`) -> `delivered`, or back to `pending` with a later
 * `next_attempt_at` after a failed attempt, or `failed` when the dispatcher
 * gives up. An operator's `redeliver` puts a failed or delivered row back to
 * `pending`, due now.
 *
 * Claiming (`FOR UPDATE SKIP LOCKED`, so concurrent claimers never take the
 * same row and never wait for each other) takes rows that are due: pending
 * with `next_attempt_at <= now()`, or delivering whose lease expired (the
 * worker died). Order rule: notifications of one partner are delivered in
 * commit order, one at a time. A row is claimable only when no row of the same
 * partner that comes before it (lower position; same position: lower id) is
 * still pending or delivering, whether due or not. So a failing webhook delays
 * that partner's later notifications (while retrying), never other partners';
 * giving up (`failed`) releases the partner's next row; a redelivered row is
 * delivered before the partner's later pending rows but after ones already
 * delivered. Delivery is at least once: a worker whose lease expired may still
 * deliver, so receivers de-duplicate by notification id (the event id).
 *
 * Times (`next_attempt_at`, leases) use the database clock, shared by all
 * workers.
 */
import { type EventStoreUnavailable, type Notification, Outbox } from "@partnerpay/domain"
import { Context, DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { unavailable } from "./SqlErrors.ts"

export type OutboxStatus = "pending" | "delivering" | "delivered" | "failed"

/** One outbox row as dispatchers and operators see it. */
export interface OutboxEntry {
  readonly id: string
  readonly partnerId: string
  readonly eventType: string
  readonly data: Readonly<Record<string, unknown>>
  readonly position: number
  readonly status: OutboxStatus
  /** Delivery attempts started (claims). */
  readonly attempts: number
  readonly nextAttemptAt: DateTime.Utc
  readonly lastError: string | null
  readonly claimedBy: string | null
  readonly claimedUntil: DateTime.Utc | null
  readonly createdAt: DateTime.Utc
  readonly deliveredAt: DateTime.Utc | null
}

export interface ClaimOptions {
  /** Recorded in `claimed_by` (diagnostics). */
  readonly workerId: string
  /** At most this many rows (at most one per partner, see the order rule). */
  readonly limit: number
  /** How long the rows are reserved for this worker; after that they can be claimed again. */
  readonly leaseMs: number
}

export class OutboxDispatch extends Context.Service<
  OutboxDispatch,
  {
    /** Claims due rows (see the module doc for the order rule); they become `delivering`, attempts + 1. */
    claim(options: ClaimOptions): Effect.Effect<ReadonlyArray<OutboxEntry>, EventStoreUnavailable>
    /** The row was delivered. */
    markDelivered(id: string): Effect.Effect<void, EventStoreUnavailable>
    /** A delivery attempt failed: retry at `nextAttemptAt`, or give up (`failed`). */
    markFailedAttempt(
      id: string,
      error: string,
      next: DateTime.DateTime | "give up",
    ): Effect.Effect<void, EventStoreUnavailable>
    /** Rows for operators, newest (highest position) first, optionally of one status. */
    list(options: {
      readonly status?: OutboxStatus
      readonly limit: number
    }): Effect.Effect<ReadonlyArray<OutboxEntry>, EventStoreUnavailable>
    /** Puts a failed or delivered row back to pending, due now. False when no such row. */
    redeliver(id: string): Effect.Effect<boolean, EventStoreUnavailable>
  }
>()("partnerpay/adapters-pg/OutboxDispatch") {}

interface Row {
  readonly id: string
  readonly partner_id: string
  readonly event_type: string
  readonly data: Record<string, unknown>
  readonly position: bigint | number | string
  readonly status: OutboxStatus
  readonly attempts: number
  readonly next_attempt_at: Date
  readonly last_error: string | null
  readonly claimed_by: string | null
  readonly claimed_until: Date | null
  readonly created_at: Date
  readonly delivered_at: Date | null
}

const columns =
  "id, partner_id, event_type, data, position, status, attempts, next_attempt_at, last_error, claimed_by, claimed_until, created_at, delivered_at"

const instant = (date: Date): DateTime.Utc => DateTime.makeUnsafe(date.getTime())

const toEntry = (row: Row): OutboxEntry => ({
  id: row.id,
  partnerId: row.partner_id,
  eventType: row.event_type,
  data: row.data,
  position: Number(row.position),
  status: row.status,
  attempts: Number(row.attempts),
  nextAttemptAt: instant(row.next_attempt_at),
  lastError: row.last_error,
  claimedBy: row.claimed_by,
  claimedUntil: row.claimed_until === null ? null : instant(row.claimed_until),
  createdAt: instant(row.created_at),
  deliveredAt: row.delivered_at === null ? null : instant(row.delivered_at),
})

/** Builds `Outbox` and `OutboxDispatch` on the `SqlClient` in context. */
export const make: Effect.Effect<
  { readonly outbox: Outbox["Service"]; readonly dispatch: OutboxDispatch["Service"] },
  never,
  SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient

  const record = (notifications: ReadonlyArray<Notification>) =>
    notifications.length === 0
      ? Effect.void
      : sql`
          INSERT INTO outbox (id, partner_id, event_type, data, position)
          SELECT n.value ->> 'id', n.value ->> 'partnerId', n.value ->> 'eventType', n.value -> 'data',
                 (n.value ->> 'position')::bigint
          FROM jsonb_array_elements(${JSON.stringify(notifications)}::jsonb) WITH ORDINALITY AS n(value, ord)
          ORDER BY n.ord
          ON CONFLICT (id) DO NOTHING`.pipe(Effect.asVoid, unavailable("outbox record"))

  const claim = ({ workerId, limit, leaseMs }: ClaimOptions) =>
    Effect.map(
      sql<Row>`
        WITH claimable AS (
          SELECT o.id FROM outbox o
          WHERE ((o.status = 'pending' AND o.next_attempt_at <= now())
              OR (o.status = 'delivering' AND o.claimed_until <= now()))
            AND NOT EXISTS (
              SELECT 1 FROM outbox earlier
              WHERE earlier.partner_id = o.partner_id
                AND earlier.status IN ('pending', 'delivering')
                AND (earlier.position < o.position OR (earlier.position = o.position AND earlier.id < o.id)))
          ORDER BY o.position, o.id
          LIMIT ${Math.max(0, Math.floor(limit))}
          FOR UPDATE OF o SKIP LOCKED
        )
        UPDATE outbox SET status = 'delivering', attempts = outbox.attempts + 1, claimed_by = ${workerId},
               claimed_until = now() + make_interval(secs => ${Math.max(0, leaseMs) / 1000})
        FROM claimable WHERE outbox.id = claimable.id
        RETURNING ${sql.literal(
          columns
            .split(", ")
            .map((c) => `outbox.${c}`)
            .join(", "),
        )}`,
      (rows) => rows.map(toEntry).sort((a, b) => a.position - b.position),
    ).pipe(unavailable("outbox claim"))

  const markDelivered = (id: string) =>
    sql`
      UPDATE outbox SET status = 'delivered', delivered_at = now(), claimed_by = NULL, claimed_until = NULL
      WHERE id = ${id} AND status <> 'delivered'`.pipe(Effect.asVoid, unavailable("outbox mark delivered"))

  const markFailedAttempt = (id: string, error: string, next: DateTime.DateTime | "give up") =>
    (next === "give up"
      ? sql`
          UPDATE outbox SET status = 'failed', last_error = ${error}, claimed_by = NULL, claimed_until = NULL
          WHERE id = ${id} AND status IN ('pending', 'delivering')`
      : sql`
          UPDATE outbox SET status = 'pending', last_error = ${error}, claimed_by = NULL, claimed_until = NULL,
                 next_attempt_at = ${DateTime.formatIso(next)}::timestamptz
          WHERE id = ${id} AND status IN ('pending', 'delivering')`
    ).pipe(Effect.asVoid, unavailable("outbox mark failed attempt"))

  const list = (options: { readonly status?: OutboxStatus; readonly limit: number }) =>
    Effect.map(
      options.status === undefined
        ? sql<Row>`SELECT ${sql.literal(columns)} FROM outbox ORDER BY position DESC, id DESC LIMIT ${options.limit}`
        : sql<Row>`SELECT ${sql.literal(columns)} FROM outbox WHERE status = ${options.status}
                   ORDER BY position DESC, id DESC LIMIT ${options.limit}`,
      (rows) => rows.map(toEntry),
    ).pipe(unavailable("outbox list"))

  const redeliver = (id: string) =>
    Effect.map(
      sql<{ id: string }>`
        UPDATE outbox SET status = 'pending', next_attempt_at = now(), claimed_by = NULL, claimed_until = NULL,
               delivered_at = NULL
        WHERE id = ${id} AND status IN ('failed', 'delivered') RETURNING id`,
      (rows) => rows.length > 0,
    ).pipe(unavailable("outbox redeliver"))

  return {
    outbox: Outbox.of({ record }),
    dispatch: OutboxDispatch.of({ claim, markDelivered, markFailedAttempt, list, redeliver }),
  }
})

/** `Outbox` and `OutboxDispatch` on the `SqlClient` in context. */
export const layer: Layer.Layer<Outbox | OutboxDispatch, never, SqlClient> = Layer.effectContext(
  Effect.map(make, ({ outbox, dispatch }) => Context.make(Outbox, outbox).pipe(Context.add(OutboxDispatch, dispatch))),
)
