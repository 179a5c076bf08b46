/**
 * The money-movement provider's funding sources of our bank accounts
 * (migration 39's `provider_funding_sources`): `find` one by our id (a payout
 * account id, a linked bank account id), `keep` a new one (the first kept
 * wins: two instances making one at once end with the same), and the
 * provider's customer of a company (its KYB submission, from the companies
 * read model). A payer's references are kept sealed by the caller
 * (`DwollaStore`); `reseal` rewrites one kept in clear before.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as PartnerScope from "./PartnerScope.ts"

/** The funding source of `ownerId` at `provider`, if one was kept. */
export const find = (provider: string, ownerId: string) =>
  Effect.flatMap(
    Effect.all([SqlClient, PartnerScope.current]),
    ([sql, partner]) => sql<{ readonly funding_source: string }>`
      SELECT funding_source FROM provider_funding_sources
      WHERE provider = ${provider} AND owner_id = ${ownerId} ${PartnerScope.and(sql, partner)}`,
  ).pipe(Effect.map((rows) => rows[0]?.funding_source))

/** Keeps `fundingSource` for `ownerId`; answers the one kept (an earlier one wins). */
export const keep = (provider: string, ownerId: string, fundingSource: string) =>
  Effect.flatMap(
    Effect.all([SqlClient, PartnerScope.current]),
    ([sql, partner]) => sql`
      INSERT INTO provider_funding_sources (provider, owner_id, funding_source, partner_id)
      VALUES (${provider}, ${ownerId}, ${fundingSource}, ${partner ?? ""})
      ON CONFLICT (provider, owner_id) DO NOTHING`,
  ).pipe(
    Effect.andThen(find(provider, ownerId)),
    Effect.map((kept) => kept ?? fundingSource),
  )

/**
 * Replaces the clear `clear` of `ownerId` by `sealed` (a row written before the payers' references were
 * sealed, rewritten at its first read); a row changed meanwhile is left alone.
 */
export const reseal = (provider: string, ownerId: string, clear: string, sealed: string) =>
  Effect.flatMap(
    Effect.all([SqlClient, PartnerScope.current]),
    ([sql, partner]) => sql`
      UPDATE provider_funding_sources SET funding_source = ${sealed}
      WHERE provider = ${provider} AND owner_id = ${ownerId} AND funding_source = ${clear}
        ${PartnerScope.and(sql, partner)}`,
  ).pipe(Effect.asVoid)

/** The KYB provider's reference (Dwolla: the customer id) of a company, if submitted. */
export const kybSubmissionOf = (companyId: string) =>
  Effect.flatMap(
    Effect.all([SqlClient, PartnerScope.current]),
    ([sql, partner]) => sql<{ readonly submission_id: string | null }>`
      SELECT data ->> 'kybSubmissionId' AS submission_id FROM read_models
      WHERE collection = 'companies' AND id = ${companyId} ${PartnerScope.andDocuments(sql, partner)}`,
  ).pipe(Effect.map((rows) => rows[0]?.submission_id ?? undefined))

/** A payer's linked bank account (institution, last four digits, type) in the customers read model. */
export const linkedAccountOf = (registrationId: string, bankAccountId: string) =>
  Effect.flatMap(
    Effect.all([SqlClient, PartnerScope.current]),
    ([sql, partner]) => sql<{ readonly institution_id: string; readonly mask: string; readonly type: string }>`
      SELECT account ->> 'institutionId' AS institution_id, account ->> 'mask' AS mask, account ->> 'type' AS type
      FROM read_models r, jsonb_array_elements(r.data -> 'bankAccounts') AS account
      WHERE r.collection = 'customers' AND r.id = ${registrationId} AND account ->> 'bankAccountId' = ${bankAccountId}
        ${PartnerScope.andDocuments(sql, partner)}
      LIMIT 1`,
  ).pipe(
    Effect.map((rows) => {
      const row = rows[0]
      return row === undefined ? undefined : { institutionId: row.institution_id, mask: row.mask, type: row.type }
    }),
  )
