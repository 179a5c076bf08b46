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
 *
 * `unionOf(ids, { Tag: fields, ... })` declares all the events of an aggregate
 * in one record, what each says by its tag: the tagged union is the codec of
 * the stream, each event's schema is in its `cases`, and the record's order is
 * the union's.
 *
 * ```ts
 * export const CustomerEvent = EventSchema.unionOf({ registrationId: RegistrationId, partnerId: PartnerId }, {
 *   KycRejected: { referenceId: Uuid },
 *   BankAccountUnlinked: { bankAccountId: BankAccountId },
 * })
 * export const { KycRejected, BankAccountUnlinked } = CustomerEvent.cases
 * ```
 */
import { Schema } from "effect"

/** The instant an event happened, in every event: an ISO 8601 UTC string when stored. */
export const At = Schema.DateTimeUtcFromString

/** The fields of an event: the aggregate's ids, what the event says, and `at`. */
export type EventFields<Ids extends Schema.Struct.Fields, Fields extends Schema.Struct.Fields> = Ids &
  Fields & { readonly at: typeof At }

/** The tagged event schemas of an aggregate whose events all carry `ids` and `at`. */
export const eventsOf =
  <const Ids extends Schema.Struct.Fields>(ids: Ids) =>
  <const Tag extends string, const Fields extends Schema.Struct.Fields = {}>(
    tag: Tag,
    fields: Fields = {} as Fields,
  ): Schema.TaggedStruct<Tag, EventFields<Ids, Fields>> =>
    Schema.TaggedStruct(tag, { ...ids, ...fields, at: At })

/** What a case of `unionOf` says: the fields it adds to the ids and `at`, or its whole schema (an event apart). */
export type CaseFields = Schema.Struct.Fields | (Schema.Top & { readonly Type: { readonly _tag: string } })

/** The schema of one case of `unionOf`: the tagged struct of the aggregate's ids, the case's fields and `at`. */
export type CaseSchema<
  Ids extends Schema.Struct.Fields,
  Tag extends string,
  Case extends CaseFields,
> = Case extends Schema.Struct.Fields ? Schema.TaggedStruct<Tag, EventFields<Ids, Case>> : Case

/** The tagged union of an aggregate's events, declared as one record of what each event says by its tag. */
export type UnionOf<Ids extends Schema.Struct.Fields, Cases extends Record<string, CaseFields>> = Schema.TaggedUnion<{
  readonly [Tag in keyof Cases & string]: CaseSchema<Ids, Tag, Cases[Tag]>
}>

/**
 * The events of an aggregate whose events all carry `ids` and `at`, declared in one record (tag -> the
 * fields the event adds, or, for an event apart, its whole schema under its own tag): their tagged union, in
 * the record's order.
 */
export const unionOf = <const Ids extends Schema.Struct.Fields, const Cases extends Record<string, CaseFields>>(
  ids: Ids,
  cases: Cases,
): UnionOf<Ids, Cases> =>
  Schema.Union(
    Object.entries(cases).map(([tag, fields]) =>
      Schema.isSchema(fields) ? fields : Schema.TaggedStruct(tag, { ...ids, ...fields, at: At }),
    ),
  ).pipe(Schema.toTaggedUnion("_tag") as (union: Schema.Top) => unknown) as UnionOf<Ids, Cases>
