/**
 * The providers' notifications received and verified (migration 38's
 * `provider_notifications`), one row per provider event id: `seen` tells a
 * repeat (a retry of the provider, or a replay) from a new one, `record` keeps
 * it once applied (a second record of the same id changes nothing).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

/** Whether `eventId` of `provider` was already recorded. */
export const seen = (provider: string, eventId: string) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql`SELECT 1 FROM provider_notifications WHERE provider = ${provider} AND event_id = ${eventId}`,
  ).pipe(Effect.map((rows) => rows.length > 0))

/** Records `eventId` of `provider`; false when it was already recorded. */
export const record = (provider: string, eventId: string, topic: string, resourceId: string) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql`
      INSERT INTO provider_notifications (provider, event_id, topic, resource_id)
      VALUES (${provider}, ${eventId}, ${topic}, ${resourceId})
      ON CONFLICT (provider, event_id) DO NOTHING
      RETURNING event_id`,
  ).pipe(Effect.map((rows) => rows.length > 0))
