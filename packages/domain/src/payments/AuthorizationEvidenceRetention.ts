/**
 * The authorization evidence as a legal record (docs/personal-data.md, "Authorization evidence"): its
 * personal part (the payer's `ipAddress` and `userAgent`) is sealed under a key of its own, one per
 * payer and UTC day of `acceptedAt` (`authorization-evidence:<YYYY-MM-DD>:<registrationId>`), which a
 * customer erasure does NOT delete: NACHA requires the originator of WEB debits to keep the
 * authorization two years. The key is destroyed (`purge`) once every evidence it sealed is two years
 * old: on the day after `acceptedAt`'s day plus two years. From then on the two fields read "[erased]"
 * (for every payer, erased or not: nothing keeps them longer); `acceptedAt`, `text` and `textVersion`
 * (not personal) stay.
 *
 * - `subjectOf` / `fieldsOf`: the declarations the protected stores use (`composition/PersonalDataMap.ts`)
 *   for every event and document carrying `authorization`.
 * - `purgeableAt` / `expired`: the retention rule (pure, time as input).
 * - `keys` / `purge`: the keys there are, and the use case destroying the expired ones (the worker
 *   `EvidencePurge` calls it with each partner's time). Destroying a key twice changes nothing: safe
 *   on several instances; no provider is involved.
 */
import { DateTime, Effect } from "effect"
import { type FieldsOf, PersonalDataVault, type SubjectKey } from "../infrastructure/PersonalData.ts"
import * as Traced from "../kernel/Traced.ts"

/** How long the evidence is kept: NACHA's two years for WEB debit authorizations. */
export const retentionYears = 2

/** The prefix of every evidence key's subject. */
export const subjectPrefix = "authorization-evidence:"

/** The personal fields of an evidence held in `field` of a record. */
export const personalPaths = (field: string): ReadonlyArray<string> => [`${field}.ipAddress`, `${field}.userAgent`]

const isoDay = /^\d{4}-\d{2}-\d{2}$/

/** The subject sealing the evidence the payer `registrationId` gave on `acceptedAt`'s UTC day. */
export const subjectOf = (registrationId: string, acceptedAt: DateTime.Utc | string): string =>
  `${subjectPrefix}${(typeof acceptedAt === "string" ? acceptedAt : DateTime.formatIso(acceptedAt)).slice(0, 10)}:${registrationId}`

/** The UTC day an evidence subject covers, if `subject` is one. */
export const dayOf = (subject: string): string | undefined => {
  if (!subject.startsWith(subjectPrefix)) return undefined
  const day = subject.slice(subjectPrefix.length, subjectPrefix.length + 10)
  return isoDay.test(day) && subject.charAt(subjectPrefix.length + 10) === ":" ? day : undefined
}

/** The instant from which the key of `day`'s evidence may be destroyed: the next day, two years later. */
export const purgeableAt = (day: string): DateTime.Utc =>
  DateTime.add(DateTime.makeUnsafe(`${day}T00:00:00.000Z`), { years: retentionYears, days: 1 })

/** The evidence keys among `keys` whose retention has ended at `now`. */
export const expired = (keys: ReadonlyArray<SubjectKey>, now: DateTime.Utc): ReadonlyArray<SubjectKey> =>
  keys.filter((key) => {
    const day = dayOf(key.subject)
    return day !== undefined && DateTime.isLessThanOrEqualTo(purgeableAt(day), now)
  })

/**
 * The personal fields of a record holding an evidence in `field` given by the payer named in
 * `registrationId` (debit authorizations, payment request events, the customer) or
 * `payerRegistrationId` (consents, payment request documents, gifts, card payments); a record naming
 * no payer files it under its stream or document id.
 */
export const fieldsAt =
  (field: string): FieldsOf =>
  (data, streamId) => {
    const evidence = data[field]
    if (typeof evidence !== "object" || evidence === null) return []
    const acceptedAt = (evidence as Record<string, unknown>).acceptedAt
    if (typeof acceptedAt !== "string") return []
    const payer =
      typeof data.registrationId === "string"
        ? data.registrationId
        : typeof data.payerRegistrationId === "string"
          ? data.payerRegistrationId
          : streamId
    return [{ subject: subjectOf(payer, acceptedAt), paths: personalPaths(field) }]
  }

/** The personal fields of a record holding an evidence in `authorization`. */
export const fieldsOf: FieldsOf = fieldsAt("authorization")

/** Both declarations' fields. */
export const both =
  (first: FieldsOf, second: FieldsOf): FieldsOf =>
  (data, streamId) => [...first(data, streamId), ...second(data, streamId)]

/** The evidence keys there are (every partner's outside a partner's request), with their partners. */
export const keys = Traced.fn("AuthorizationEvidenceRetention.keys")(function* () {
  return yield* (yield* PersonalDataVault).subjects(subjectPrefix)
})

/** Destroys the keys among `candidates` whose retention has ended at `now`; answers the subjects destroyed. */
export const purge = Traced.fn("AuthorizationEvidenceRetention.purge")(function* (
  candidates: ReadonlyArray<SubjectKey>,
  now: DateTime.Utc,
) {
  const vault = yield* PersonalDataVault
  const destroyed: Array<string> = []
  for (const key of expired(candidates, now)) if (yield* vault.erase(key.subject)) destroyed.push(key.subject)
  if (destroyed.length > 0) yield* Effect.logInfo("authorization evidence purged", { keys: destroyed.length })
  return destroyed
})
