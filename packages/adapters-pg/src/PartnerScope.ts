/**
 * The partner of what the stores read and write (issue 27 section 4;
 * docs/scaling.md): every table holding a partner's data has a `partner_id`
 * column, filled by the writers, and every statement of a partner's request
 * filters by it, so that a sharded deployment routes it to the partner's node.
 *
 * In a partner's request the partner is `Tenancy.CurrentPartner` (set by the
 * HTTP adapter). Outside one (workers, the CLI, the operator API) statements
 * are not filtered, and what is written takes its partner from what it
 * belongs to: a stream from the `partnerId` of its first events (metadata,
 * then data) and, once it exists, keeps its own; a token generation or data
 * key of a partner subject (`partner:<id>`, `partner-webhook:<id>`) from the
 * subject. '' stands for "no partner".
 */
import { type EventStore, Tenancy } from "@partnerpay/domain"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { Fragment } from "effect/sql/Statement"

/** The partner whose request the current fiber serves, if any. */
export const current: Effect.Effect<string | undefined> = Effect.service(Tenancy.CurrentPartner)

/** `AND partner_id = <partner>` in a partner's request, nothing outside one. */
export const and = (sql: SqlClient, partner: string | undefined, column = "partner_id"): Fragment =>
  partner === undefined ? sql.literal("") : sql`AND ${sql(column)} = ${partner}`

/**
 * For read-model documents: `AND partner_id IN (<partner>, <system tenant>)` in a partner's request
 * (the workers' work lists are filed under `Tenancy.systemTenant` and written by partners' units),
 * nothing outside one.
 */
export const andDocuments = (sql: SqlClient, partner: string | undefined): Fragment =>
  partner === undefined ? sql.literal("") : sql`AND partner_id IN (${partner}, ${Tenancy.systemTenant})`

/** The partner named by a subject of the form `partner:<id>` or `partner-webhook:<id>`, if it is one. */
export const ofSubject = (subject: string): string | undefined => {
  const colon = subject.indexOf(":")
  const kind = subject.slice(0, colon)
  return colon > 0 && (kind === "partner" || kind === "partner-webhook") ? subject.slice(colon + 1) : undefined
}

/** The partner a subject's row is filed under: the request's, else the one the subject names, else none. */
export const forSubject = (partner: string | undefined, subject: string): string => partner ?? ofSubject(subject) ?? ""

const partnerField = (value: unknown): string | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const field = (value as Record<string, unknown>).partnerId
  return typeof field === "string" && field.length > 0 ? field : undefined
}

/** The partner a new stream is filed under: the request's, else its events' (metadata, then data), else none. */
export const forNewStream = (partner: string | undefined, events: ReadonlyArray<EventStore.NewEvent>): string => {
  if (partner !== undefined) return partner
  for (const event of events) {
    const found = event.metadata.partnerId ?? partnerField(event.data)
    if (found !== undefined && found.length > 0) return found
  }
  return ""
}
