/**
 * The `ledger_postings` read model: the platform's books, one document per
 * money event posted (`Postings.postingOf`), kept from the CompanyBalance
 * streams alone (pure), so it is rebuilt with the other read models. The
 * trial balance sums its lines up to an instant (`TrialBalance.ts`; on
 * PostgreSQL one statement over the documents, `PgLedger`).
 * Id: the event's id; index keys: `companyId`; sort key: when it was posted.
 */
import type { Projection } from "../infrastructure/ReadModel.ts"
import type { BalanceEnvelope } from "./BalancesProjection.ts"
import * as Postings from "./Postings.ts"

export const collection = "ledger_postings"

export const PostingDocument = Postings.Posting
export type PostingDocument = Postings.Posting

/** The posting of an envelope of the books' streams (undefined: none). */
const postingOf = (envelope: BalanceEnvelope): Postings.Posting | undefined =>
  envelope.streamType === "CompanyBalance" ? Postings.postingOf(envelope.event) : undefined

export const projection: Projection<PostingDocument, BalanceEnvelope> = {
  collection,
  document: PostingDocument,
  // FEES (issue 37 §4): the stream types of the new money events join here.
  streamTypes: ["CompanyBalance"],
  creates: ["LedgerEntryRecorded", "BalancePaidOut", "PayoutItemsRestored"],
  key: (envelope) => (postingOf(envelope) === undefined ? undefined : envelope.eventId),
  apply: (_current, envelope) => postingOf(envelope),
  index: (doc) => ({
    partnerId: doc.partnerId,
    keys: doc.companyId === undefined ? {} : { companyId: doc.companyId },
    sortKey: Postings.postedAtIso(doc),
  }),
}
