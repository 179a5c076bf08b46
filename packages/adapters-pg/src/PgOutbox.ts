/**
 * The outbox on PostgreSQL (table `outbox`, migrations 0002 and 0005): the
 * domain `Outbox` port (`record`, called by the event pipeline inside the
 * append's transaction) and `OutboxDispatch`, the API webhook dispatchers and
 * operators use.
 *
 * Row life: `pending` -> claimed: `delivering` (leased to one worker until
 * `claimed_until`) -> `delivered`, or back to `pending` with a later
 * `next_attempt_at` after a failed attempt, or `failed` when the dispatcher
 * gives up; a claimed row the worker did not attempt is `release`d (pending,
 * the claim's attempt not counted). An operator's `redeliver` puts a failed or
 * delivered row back to `pending`, due now; `redeliverFailed` does so for the
 * failed rows recorded since an instant, a batch at a time.
 *
 * Order rule: a partner's notifications are delivered in order, where order
 * is (transaction_id, position, id): the id of the transaction that recorded
 * the row (migration 0005), then its position. A partner's open rows
 * (pending or delivering) form a queue; only its head, and the rows right
 * after it, can be claimed:
 * - a row is claimable when it is due (pending with `next_attempt_at <=
 *   now()`, or delivering whose lease expired: the worker died) and its
 *   transaction is below the horizon (`transaction_id <
 *   pg_snapshot_xmin(pg_current_snapshot())`: older than every running
 *   transaction, so no row that sorts before it can still be committed);
 * - a claim takes, per partner, the longest run of claimable rows starting at
 *   the head (at most `perPartner`), for at most `limit` rows in all,
 *   partners with the oldest head first.
 * So a row is never claimed while an earlier row of its partner is pending
 * (retrying: not due) or delivering (leased): that row is the head or sits
 * before the run and ends it. A failing webhook delays that partner's later
 * notifications, never other partners'; giving up (`failed`) releases the
 * partner's next row; a redelivered row is delivered before the partner's
 * later open rows but after ones already delivered. Delivery is at least
 * once: a worker whose lease expired may still deliver, so receivers
 * de-duplicate by notification id (the event id).
 *
 * Cost: the claim walks the partial index `outbox_claim` (partner_id,
 * transaction_id, position, id) of open rows: a skip scan finds the partners
 * with open rows (one index probe each), then each partner's head and its
 * next `perPartner` rows are read in index order. Nothing scans a partner's
 * whole backlog: the cost grows with the number of partners and the batch,
 * not with the number of pending rows.
 *
 * Concurrency: the run's rows are locked `FOR UPDATE SKIP LOCKED`, so
 * concurrent claimers never take the same row and never wait for each other.
 * A claimer keeps a partner's rows only when it locked the whole run from the
 * head (the lock re-checks the row's latest version, so a row another claimer
 * took or delivered meanwhile is skipped): a skipped row ends the run, so a
 * later row is never claimed without the earlier ones.
 *
 * Times (`next_attempt_at`, leases) use the database clock, shared by all
 * workers.
 */
import { type EventStore, Outbox } from "@partnerpay/domain"
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
  /** HTTP status of the receiver's last answer (null: none yet, or no answer). */
  readonly lastResponseStatus: number | null
  readonly claimedBy: string | null
  readonly claimedUntil: DateTime.Utc | null
  readonly createdAt: DateTime.Utc
  readonly deliveredAt: DateTime.Utc | null
}

export interface ClaimOptions {
  /** Recorded in `claimed_by` (diagnostics). */
  readonly workerId: string
  /** At most this many rows in all. */
  readonly limit: number
  /** At most this many rows of one partner, consecutive in its order (default 1). */
  readonly perPartner?: number
  /**
   * Rows this worker delivered since its last claim: marked delivered by the same statement (as
   * `markDelivered`), and no longer open for the claim, so one round trip both records a batch and
   * claims the next.
   */
  readonly delivered?: ReadonlyArray<string>
  /** The receivers' answer status of `delivered` rows, by id (recorded as `last_response_status`). */
  readonly deliveredStatuses?: Readonly<Record<string, number>>
  /** How long the rows are reserved for this worker; after that they can be claimed again. */
  readonly leaseMs: number
}

export class OutboxDispatch extends Context.Service<
  OutboxDispatch,
  {
    /**
     * Claims due rows (see the module doc for the order rule); they become `delivering`, attempts + 1.
     * The result lists each partner's rows together, in the partner's order.
     */
    claim(options: ClaimOptions): Effect.Effect<ReadonlyArray<OutboxEntry>, EventStore.EventStoreUnavailable>
    /** The rows were delivered (one statement). */
    markDelivered(
      ids: string | ReadonlyArray<string>,
      statuses?: Readonly<Record<string, number>>,
    ): Effect.Effect<void, EventStore.EventStoreUnavailable>
    /**
     * Claimed rows the worker did not attempt go back to `pending` (due now), their claim's attempt not
     * counted (one statement).
     */
    release(ids: ReadonlyArray<string>): Effect.Effect<void, EventStore.EventStoreUnavailable>
    /**
     * A delivery attempt failed: retry at `nextAttemptAt`, or give up (`failed`); `responseStatus` is the
     * receiver's answer status, when it answered.
     */
    markFailedAttempt(
      id: string,
      error: string,
      next: DateTime.DateTime | "give up",
      responseStatus?: number | null,
    ): Effect.Effect<void, EventStore.EventStoreUnavailable>
    /**
     * Gives up on rows at once (`failed`, `error` recorded, no receiver status), e.g. every claimed row of
     * a partner that has no webhook URL (one statement).
     */
    giveUp(ids: ReadonlyArray<string>, error: string): Effect.Effect<void, EventStore.EventStoreUnavailable>
    /** Rows for operators, newest (highest position) first, optionally of one status. */
    list(options: {
      readonly status?: OutboxStatus
      readonly limit: number
    }): Effect.Effect<ReadonlyArray<OutboxEntry>, EventStore.EventStoreUnavailable>
    /** Puts a failed or delivered row back to pending, due now. False when no such row. */
    redeliver(id: string): Effect.Effect<boolean, EventStore.EventStoreUnavailable>
    /** How many rows are `failed` that were recorded at or after `since`. */
    countFailed(since: DateTime.DateTime): Effect.Effect<number, EventStore.EventStoreUnavailable>
    /**
     * Puts up to `limit` failed rows recorded at or after `since` back to pending, due now (oldest first);
     * how many it queued (one statement).
     */
    redeliverFailed(since: DateTime.DateTime, limit: number): Effect.Effect<number, EventStore.EventStoreUnavailable>
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
  readonly last_response_status: number | null
  readonly claimed_by: string | null
  readonly claimed_until: Date | null
  readonly created_at: Date
  readonly delivered_at: Date | null
}

const columns =
  "id, partner_id, event_type, data, position, status, attempts, next_attempt_at, last_error, last_response_status, claimed_by, claimed_until, created_at, delivered_at"

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
  lastResponseStatus: row.last_response_status === null ? null : Number(row.last_response_status),
  claimedBy: row.claimed_by,
  claimedUntil: row.claimed_until === null ? null : instant(row.claimed_until),
  createdAt: instant(row.created_at),
  deliveredAt: row.delivered_at === null ? null : instant(row.delivered_at),
})

/** Ids as one bind parameter (a JSON array), whatever their number. */
const idList = (ids: ReadonlyArray<string>): string => JSON.stringify(ids)

/** `last_response_status` for delivered rows: the status given for the row's id, else unchanged. */
const statusOf = (sql: SqlClient, statuses: Readonly<Record<string, number>> | undefined) =>
  statuses === undefined
    ? sql.literal("outbox.last_response_status")
    : sql`COALESCE((${JSON.stringify(statuses)}::jsonb ->> outbox.id)::integer, outbox.last_response_status)`

/** A row is due: pending and its attempt time came, or leased and the lease expired. */
const due = (alias: string) =>
  `((${alias}.status = 'pending' AND ${alias}.next_attempt_at <= now()) OR (${alias}.status = 'delivering' AND ${alias}.claimed_until <= now()))`

const returned = columns
  .split(", ")
  .map((c) => `outbox.${c}`)
  .join(", ")

/**
 * The claim (one statement; see the module doc). Exported so that tests can
 * EXPLAIN it.
 *
 * - `horizon`: the oldest running transaction; rows of transactions at or
 *   above it are not claimed.
 * - `done`: marks the rows the worker reports delivered (`delivered`); the
 *   walks below skip them (in this statement's snapshot they are still open),
 *   so they count as delivered for the order rule. A skipped entry costs one
 *   index entry: the walks stay bounded by the batch, not the backlog.
 * - `partners`: the partners with open rows, by a recursive skip scan of
 *   `outbox_claim` (one probe per partner, however many rows each has).
 * - `heads`: each partner's first open row (index order); partners whose head
 *   is claimable, oldest head first, at most `limit`.
 * - `candidates`: each such partner's first `perPartner` open rows (index
 *   order), with `claimable` true while every row from the head to this one
 *   is due and below the horizon (the run).
 * - `locked`: the run's rows, locked `FOR UPDATE SKIP LOCKED`; the lock
 *   re-checks that each row is still due on its latest version.
 * - `chosen`: the longest prefix of each run that was wholly locked (a row
 *   skipped because another claimer holds it ends the run), at most `limit`.
 * - the update finds the chosen rows by their `ctid` (as locked: a locked row
 *   cannot move before this statement updates it), a TID scan whatever the
 *   planner thinks of the table's size.
 */
export const claimStatement = (
  sql: SqlClient,
  { workerId, limit, perPartner = 1, leaseMs, delivered = [], deliveredStatuses }: ClaimOptions,
) => {
  const total = Math.max(0, Math.floor(limit))
  const per = Math.max(1, Math.floor(perPartner))
  const done =
    delivered.length === 0
      ? sql.literal("")
      : sql`
    done_ids AS MATERIALIZED (
      SELECT array_agg(d.id) AS ids FROM jsonb_array_elements_text(${idList(delivered)}::jsonb) AS d(id)
    ),
    done AS (
      UPDATE outbox SET status = 'delivered', delivered_at = now(), claimed_by = NULL, claimed_until = NULL,
             last_response_status = ${statusOf(sql, deliveredStatuses)}
      WHERE outbox.id = ANY((SELECT ids FROM done_ids)::text[]) AND outbox.status <> 'delivered'
      RETURNING outbox.id
    ),`
  const notDone = sql.literal(delivered.length === 0 ? "" : " AND o.id <> ALL((SELECT ids FROM done_ids)::text[])")
  return sql<Row & { readonly partner_rank: string | number; readonly n: string | number }>`
    WITH RECURSIVE horizon AS MATERIALIZED (
      SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin
    ),
    ${done}
    partners AS (
      (SELECT o.partner_id FROM outbox o
       WHERE o.status IN ('pending', 'delivering')${notDone}
       ORDER BY o.partner_id LIMIT 1)
      UNION ALL
      SELECT (SELECT o.partner_id FROM outbox o
              WHERE o.status IN ('pending', 'delivering') AND o.partner_id > p.partner_id
               ${notDone}
              ORDER BY o.partner_id LIMIT 1)
      FROM partners p WHERE p.partner_id IS NOT NULL
    ),
    heads AS (
      SELECT h.partner_id, row_number() OVER (ORDER BY h.transaction_id, h.position, h.id) AS partner_rank
      FROM partners p
      CROSS JOIN LATERAL (
        SELECT o.partner_id, o.transaction_id, o.position, o.id, o.status, o.next_attempt_at, o.claimed_until
        FROM outbox o
        WHERE o.partner_id = p.partner_id AND o.status IN ('pending', 'delivering')
         ${notDone}
        ORDER BY o.transaction_id, o.position, o.id
        LIMIT 1
      ) h
      WHERE p.partner_id IS NOT NULL
        AND h.transaction_id < (SELECT xmin FROM horizon)
        AND ${sql.literal(due("h"))}
      ORDER BY h.transaction_id, h.position, h.id
      LIMIT ${total}
    ),
    candidates AS (
      SELECT c.id, hd.partner_id, hd.partner_rank,
             row_number() OVER run AS n,
             bool_and(c.transaction_id < (SELECT xmin FROM horizon) AND ${sql.literal(due("c"))}) OVER run AS claimable
      FROM heads hd
      CROSS JOIN LATERAL (
        SELECT o.id, o.transaction_id, o.position, o.status, o.next_attempt_at, o.claimed_until
        FROM outbox o
        WHERE o.partner_id = hd.partner_id AND o.status IN ('pending', 'delivering')
         ${notDone}
        ORDER BY o.transaction_id, o.position, o.id
        LIMIT ${per}
      ) c
      WINDOW run AS (PARTITION BY hd.partner_id ORDER BY c.transaction_id, c.position, c.id
                     ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
    ),
    locked AS (
      SELECT o.id, o.ctid FROM outbox o
      WHERE o.id = ANY(ARRAY(SELECT id FROM candidates WHERE claimable)) AND ${sql.literal(due("o"))}
      FOR UPDATE OF o SKIP LOCKED
    ),
    runs AS (
      SELECT c.id, l.ctid, c.partner_rank, c.n,
             bool_and(l.id IS NOT NULL) OVER (PARTITION BY c.partner_id ORDER BY c.n
                                              ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS whole
      FROM candidates c LEFT JOIN locked l ON l.id = c.id
      WHERE c.claimable
    ),
    chosen AS (
      SELECT r.ctid, r.partner_rank, r.n FROM runs r WHERE r.whole ORDER BY r.partner_rank, r.n LIMIT ${total}
    )
    UPDATE outbox SET status = 'delivering', attempts = outbox.attempts + 1, claimed_by = ${workerId},
           claimed_until = now() + make_interval(secs => ${Math.max(0, leaseMs) / 1000})
    FROM chosen WHERE outbox.ctid = ANY(ARRAY(SELECT ctid FROM chosen)) AND outbox.ctid = chosen.ctid
    RETURNING ${sql.literal(returned)}, chosen.partner_rank, chosen.n`
}

/** Builds `Outbox` and `OutboxDispatch` on the `SqlClient` in context. */
export const make: Effect.Effect<
  { readonly outbox: Outbox.Outbox["Service"]; readonly dispatch: OutboxDispatch["Service"] },
  never,
  SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient

  const record = (notifications: ReadonlyArray<Outbox.Webhook>) =>
    notifications.length === 0
      ? Effect.void
      : sql`
          INSERT INTO outbox (id, partner_id, event_type, data, position)
          SELECT n.value ->> 'id', n.value ->> 'partnerId', n.value ->> 'eventType', n.value -> 'data',
                 (n.value ->> 'position')::bigint
          FROM jsonb_array_elements(${JSON.stringify(notifications)}::jsonb) WITH ORDINALITY AS n(value, ord)
          ORDER BY n.ord
          ON CONFLICT (id) DO NOTHING`.pipe(Effect.asVoid, unavailable("outbox record"))

  const claim = (options: ClaimOptions) =>
    Effect.map(claimStatement(sql, options), (rows) =>
      [...rows]
        .sort((a, b) => Number(a.partner_rank) - Number(b.partner_rank) || Number(a.n) - Number(b.n))
        .map(toEntry),
    ).pipe(unavailable("outbox claim"))

  const markDelivered = (ids: string | ReadonlyArray<string>, statuses?: Readonly<Record<string, number>>) => {
    const list = typeof ids === "string" ? [ids] : ids
    return list.length === 0
      ? Effect.void
      : sql`
          UPDATE outbox SET status = 'delivered', delivered_at = now(), claimed_by = NULL, claimed_until = NULL,
                 last_response_status = ${statusOf(sql, statuses)}
          WHERE id IN (SELECT jsonb_array_elements_text(${idList(list)}::jsonb)) AND status <> 'delivered'`.pipe(
          Effect.asVoid,
          unavailable("outbox mark delivered"),
        )
  }

  const release = (ids: ReadonlyArray<string>) =>
    ids.length === 0
      ? Effect.void
      : sql`
          UPDATE outbox SET status = 'pending', attempts = greatest(0, attempts - 1), next_attempt_at = now(),
                 claimed_by = NULL, claimed_until = NULL
          WHERE id IN (SELECT jsonb_array_elements_text(${idList(ids)}::jsonb)) AND status = 'delivering'`.pipe(
          Effect.asVoid,
          unavailable("outbox release"),
        )

  const markFailedAttempt = (
    id: string,
    error: string,
    next: DateTime.DateTime | "give up",
    responseStatus: number | null = null,
  ) =>
    (next === "give up"
      ? sql`
          UPDATE outbox SET status = 'failed', last_error = ${error}, claimed_by = NULL, claimed_until = NULL,
                 last_response_status = ${responseStatus}
          WHERE id = ${id} AND status IN ('pending', 'delivering')`
      : sql`
          UPDATE outbox SET status = 'pending', last_error = ${error}, claimed_by = NULL, claimed_until = NULL,
                 last_response_status = ${responseStatus},
                 next_attempt_at = ${DateTime.formatIso(next)}::timestamptz
          WHERE id = ${id} AND status IN ('pending', 'delivering')`
    ).pipe(Effect.asVoid, unavailable("outbox mark failed attempt"))

  const giveUp = (ids: ReadonlyArray<string>, error: string) =>
    ids.length === 0
      ? Effect.void
      : sql`
          UPDATE outbox SET status = 'failed', last_error = ${error}, claimed_by = NULL, claimed_until = NULL,
                 last_response_status = NULL
          WHERE id IN (SELECT jsonb_array_elements_text(${idList(ids)}::jsonb)) AND status IN ('pending', 'delivering')`.pipe(
          Effect.asVoid,
          unavailable("outbox give up"),
        )

  const list = (options: { readonly status?: OutboxStatus; readonly limit: number }) =>
    Effect.map(
      options.status === undefined
        ? sql<Row>`SELECT ${sql.literal(columns)} FROM outbox
                   ORDER BY transaction_id DESC, position DESC, id DESC LIMIT ${options.limit}`
        : sql<Row>`SELECT ${sql.literal(columns)} FROM outbox WHERE status = ${options.status}
                   ORDER BY transaction_id DESC, position DESC, id DESC LIMIT ${options.limit}`,
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

  const countFailed = (since: DateTime.DateTime) =>
    Effect.map(
      sql<{ count: string }>`
        SELECT count(*)::text AS count FROM outbox
        WHERE status = 'failed' AND created_at >= ${DateTime.formatIso(since)}::timestamptz`,
      (rows) => Number(rows[0]?.count ?? 0),
    ).pipe(unavailable("outbox count failed"))

  const redeliverFailed = (since: DateTime.DateTime, limit: number) =>
    Effect.map(
      sql<{ id: string }>`
        UPDATE outbox SET status = 'pending', next_attempt_at = now(), claimed_by = NULL, claimed_until = NULL
        WHERE id IN (
          SELECT id FROM outbox WHERE status = 'failed' AND created_at >= ${DateTime.formatIso(since)}::timestamptz
          ORDER BY transaction_id, position, id LIMIT ${Math.max(1, Math.floor(limit))}
          FOR UPDATE SKIP LOCKED)
        RETURNING id`,
      (rows) => rows.length,
    ).pipe(unavailable("outbox redeliver failed"))

  return {
    outbox: Outbox.Outbox.of({ record }),
    dispatch: OutboxDispatch.of({
      claim,
      markDelivered,
      release,
      markFailedAttempt,
      giveUp,
      list,
      redeliver,
      countFailed,
      redeliverFailed,
    }),
  }
})

/** `Outbox` and `OutboxDispatch` on the `SqlClient` in context. */
export const layer: Layer.Layer<Outbox.Outbox | OutboxDispatch, never, SqlClient> = Layer.effectContext(
  Effect.map(make, ({ outbox, dispatch }) =>
    Context.make(Outbox.Outbox, outbox).pipe(Context.add(OutboxDispatch, dispatch)),
  ),
)
