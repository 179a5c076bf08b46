/**
 * The `TokenGenerations` port on PostgreSQL (table `token_generations`,
 * migration 0006), built for a verification that costs no SQL.
 *
 * - `known(subject)` answers from an in-memory map (no I/O): every request's
 *   token check uses it.
 * - The map is loaded at start (rows changed in the last 25 hours) and then
 *   refreshed by a background fiber every `pollMillis` (2 s by default) with
 *   the rows changed in the last minute; generations only grow, so a row seen
 *   twice or out of order is harmless (the larger value wins). A poll that
 *   failed, or a gap longer than 50 s, makes the next one a full 25-hour load.
 *   Bound on propagation: a revocation made by another process (another
 *   instance, the CLI) is enforced here at most `pollMillis` + one query later
 *   while the database is reachable; a revocation made by this process is
 *   enforced here at once.
 * - `current(subject)` reads the row (one statement) and is used when a token
 *   is issued or renewed, so a fresh token never carries a stale generation.
 * - `bump(subject)` sets the subject's generation to `nextval` of one shared
 *   sequence (above every earlier generation of any subject).
 *
 * Pruning: a token issued before a revocation dies at most 24 hours after its
 * login (`auth_time` cap, Tokens.ts), so rows (and map entries) older than 25
 * hours protect nothing and are deleted (rows: on each bump; map entries:
 * once an hour). Generations come from one sequence, so a subject revoked
 * again after pruning still gets a generation above all its earlier tokens.
 */
import { TokenGenerations, Traced } from "@partnerpay/domain"
import { Clock, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as PartnerScope from "./PartnerScope.ts"

export interface Options {
  /** How often the map is refreshed from the database (default 2,000 ms). */
  readonly pollMillis?: number | undefined
}

export const defaultPollMillis = 2_000
const retentionMillis = 25 * 3600 * 1000
const overlapMillis = 50_000
const pruneEveryMillis = 3600 * 1000

interface Entry {
  generation: number
  learnedAt: number
}

type Row = { readonly subject: string; readonly generation: string | number }

export const make = Traced.fn("PgTokenGenerations.make")(function* (options: Options = {}) {
  const sql = yield* SqlClient
  const pollMillis = options.pollMillis ?? defaultPollMillis
  const entries = new Map<string, Entry>()

  const merge = (subject: string, generation: number, now: number) => {
    const entry = entries.get(subject)
    if (entry === undefined) entries.set(subject, { generation, learnedAt: now })
    else if (generation >= entry.generation) {
      entry.generation = generation
      entry.learnedAt = now
    }
  }
  const mergeRows = (rows: ReadonlyArray<Row>, now: number) => {
    for (const row of rows) merge(row.subject, Number(row.generation), now)
  }

  const loadAll = sql<Row>`
      SELECT subject, generation FROM token_generations WHERE updated_at > now() - interval '25 hours'`
  const loadRecent = sql<Row>`
      SELECT subject, generation FROM token_generations WHERE updated_at > now() - interval '1 minute'`

  let lastLoad = yield* Clock.currentTimeMillis
  let lastPrune = lastLoad
  mergeRows(yield* Effect.orDie(loadAll), lastLoad)

  const poll = Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const rows = yield* now - lastLoad > overlapMillis ? loadAll : loadRecent
    mergeRows(rows, now)
    lastLoad = now
    if (now - lastPrune > pruneEveryMillis) {
      lastPrune = now
      for (const [subject, entry] of entries) if (now - entry.learnedAt > retentionMillis) entries.delete(subject)
    }
  }).pipe(Effect.catch((error) => Effect.logWarning("token generations refresh failed", error)))

  yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(pollMillis), poll)))

  const known = (subject: string) => entries.get(subject)?.generation ?? 0

  const current = Traced.fn("PgTokenGenerations.current")(function* (subject: string) {
    const partner = (yield* PartnerScope.current) ?? PartnerScope.ofSubject(subject)
    const rows = yield* sql<Row>`
      SELECT subject, generation FROM token_generations WHERE subject = ${subject} ${PartnerScope.and(sql, partner)}`
    mergeRows(rows, yield* Clock.currentTimeMillis)
    return known(subject)
  }, Effect.orDie)

  const bump = Traced.fn("PgTokenGenerations.bump")(function* (subject: string) {
    const partner = PartnerScope.forSubject(yield* PartnerScope.current, subject)
    const rows = yield* sql<Row>`
          INSERT INTO token_generations (subject, generation, updated_at, partner_id)
          VALUES (${subject}, nextval('token_generation_seq'), now(), ${partner})
          ON CONFLICT (subject) DO UPDATE SET generation = EXCLUDED.generation, updated_at = now()
          RETURNING subject, generation`
    mergeRows(rows, yield* Clock.currentTimeMillis)
    yield* sql`DELETE FROM token_generations WHERE updated_at < now() - interval '25 hours'`
    return known(subject)
  }, Effect.orDie)

  return TokenGenerations.TokenGenerations.of({ known, current, bump })
})

/** `TokenGenerations` on the `SqlClient` in context (migrations must have run); polls while the layer lives. */
export const layer = (options: Options = {}): Layer.Layer<TokenGenerations.TokenGenerations, never, SqlClient> =>
  Layer.effect(TokenGenerations.TokenGenerations, make(options))
