/**
 * Marks the code running inside an append's `onAppend` hook (projections and
 * outbox writes). The read-model store locks the documents it reads only
 * there: the hook's read-modify-write of a document must queue behind a
 * concurrent append's, while a use case's reads before its first append must
 * not lock anything (a lock would make PostgreSQL assign the transaction id
 * before the append, which the global-order rule of PgEventStore forbids).
 */
import { Context } from "effect"

export const InsideAppendHook = Context.Reference<boolean>("partnerpay/pg/InsideAppendHook", {
  defaultValue: () => false,
})
