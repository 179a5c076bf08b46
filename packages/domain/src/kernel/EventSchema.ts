/**
 * What every event of an aggregate carries, declared once. An aggregate's
 * events all name it by the same ids and record the instant they happened
 * (`at`); `eventsOf(ids)` is the constructor of that aggregate's event
 * schemas, adding those fields around what each event says (the ids first,
 * `at` last: the order the stored events have always had).
 *
 * ```ts
 * const customerEvent = EventSchema.eventsOf({ registrationId: RegistrationId, partnerId: PartnerId })
 * export const KycRejected = customerEvent("KycRejected", { referenceId: Uuid })
 * ```
 */
import { Schema } from "effect"

/** The instant an event happened, in every event: an ISO 8601 UTC string when stored. */
export const At = Schema.DateTimeUtcFromString

/** The tagged event schemas of an aggregate whose events all carry `ids` and `at`. */
export const eventsOf =
  <const Ids extends Schema.Struct.Fields>(ids: Ids) =>
  <const Tag extends string, const Fields extends Schema.Struct.Fields = {}>(
    tag: Tag,
    fields: Fields = {} as Fields,
  ): Schema.TaggedStruct<Tag, Ids & Fields & { readonly at: typeof At }> =>
    Schema.TaggedStruct(tag, { ...ids, ...fields, at: At })
