/**
 * Migration 130 (issue 38): the sandbox dispute worker reads its work list from the
 * `sandbox_card_disputes` read model (`SandboxDisputesProjection`, the system tenant's page index of
 * `read_models`) instead of the event log, so migration 80's two partial indexes on `events` go. The
 * read model is filled here from the events (what a `projections rebuild` would write), so a database
 * migrated with sandbox payments or disputes in flight needs no rebuild: the card payments of a company
 * made with the card ending in 0259 and not disputed (step `Dispute`), and the sandbox's disputes opened
 * with nothing since (step `Lose`). Both sets are empty in production, and small in a sandbox.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

/** The read model's collection and owner (`SandboxDisputesProjection.collection`, `workTenant`), as of this migration. */
const collection = "sandbox_card_disputes"
const tenant = "00000000-0000-0000-0000-000000000000"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`
    INSERT INTO read_models (collection, id, partner_id, keys, sort_key, data)
    SELECT ${collection}, e.data ->> 'cardPaymentId', ${tenant}, '{"step":"Dispute"}'::jsonb, e.data ->> 'at',
      jsonb_strip_nulls(jsonb_build_object(
        'cardPaymentId', e.data ->> 'cardPaymentId',
        'step', 'Dispute',
        'partnerId', CASE WHEN e.event_type = 'CardPaymentRegistered' THEN e.data ->> 'partnerId' END,
        'paymentRequestId', e.data ->> 'paymentRequestId',
        'dueFrom', e.data ->> 'at'))
    FROM events e
    WHERE e.event_type IN ('PaymentRequestPaidByCard', 'CardPaymentRegistered') AND e.data ->> 'last4' = '0259'
      AND (e.event_type = 'PaymentRequestPaidByCard' OR e.data ->> 'companyId' IS NOT NULL)
      AND NOT EXISTS (
        SELECT 1 FROM streams s WHERE s.stream_id = 'CardDispute-dp_sandbox_' || (e.data ->> 'cardPaymentId'))
    ON CONFLICT (collection, id) DO NOTHING`
  yield* sql`
    INSERT INTO read_models (collection, id, partner_id, keys, sort_key, data)
    SELECT ${collection}, e.data -> 'dispute' -> 'payment' ->> 'cardPaymentId', ${tenant}, '{"step":"Lose"}'::jsonb,
      e.data ->> 'at',
      jsonb_build_object(
        'cardPaymentId', e.data -> 'dispute' -> 'payment' ->> 'cardPaymentId',
        'step', 'Lose',
        'partnerId', e.data -> 'dispute' -> 'payment' ->> 'partnerId',
        'disputeId', e.data -> 'dispute' ->> 'disputeId',
        'dueFrom', e.data ->> 'at')
    FROM events e JOIN streams s ON s.stream_id = e.stream_id
    WHERE e.event_type = 'CardDisputeOpened' AND e.stream_id LIKE 'CardDispute-dp_sandbox_%' AND s.version = 1
    ON CONFLICT (collection, id) DO UPDATE SET keys = excluded.keys, sort_key = excluded.sort_key, data = excluded.data`
  yield* sql`DROP INDEX IF EXISTS events_sandbox_disputed_cards`
  yield* sql`DROP INDEX IF EXISTS events_sandbox_open_disputes`
})
