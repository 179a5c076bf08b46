/**
 * An aggregate's events declared once, as one record by tag, from which its
 * event schemas, the codec of its stream (the union) and the type of each
 * event are derived: no event is named again in a hand-written union list.
 *
 * ```ts
 * export const events = EventRecord.of({ payoutId: PayoutId })({
 *   PayoutPaid: {},
 *   PayoutOriginated: { providerReference: Schema.String },
 * })
 * export const PayoutEvent = EventRecord.unionOf(events)
 * export type PayoutEvent = typeof PayoutEvent.Type
 * export type Of<Tag extends PayoutEvent["_tag"]> = EventRecord.Of<PayoutEvent, Tag>
 * ```
 *
 * Each schema is `EventSchema.eventsOf(ids)(tag, fields)`: the ids first, the
 * fields, `at` last (the order stored events have always had). The union's
 * members come in the record's order.
 */
import { Schema } from "effect"
import { type At, eventsOf } from "./EventSchema.ts"

/** The tagged event schemas of a record of events' fields, each carrying `ids` and `at`. */
export type Schemas<Ids extends Schema.Struct.Fields, Events extends Record<string, Schema.Struct.Fields>> = {
  readonly [Tag in keyof Events & string]: Schema.TaggedStruct<Tag, Ids & Events[Tag] & { readonly at: typeof At }>
}

/** The event schemas of an aggregate whose events all carry `ids` and `at`, from what each event says, by tag. */
export const of =
  <const Ids extends Schema.Struct.Fields>(ids: Ids) =>
  <const Events extends Record<string, Schema.Struct.Fields>>(events: Events): Schemas<Ids, Events> => {
    const event = eventsOf(ids)
    return Object.fromEntries(
      Object.entries(events).map(([tag, fields]) => [tag, event(tag, fields)]),
    ) as unknown as Schemas<Ids, Events>
  }

/** The codec of a stream: the union of a record's event schemas, each under its own tag. */
export const unionOf = <
  const Events extends { readonly [Tag in keyof Events]: Schema.Top & { readonly Type: { readonly _tag: Tag } } },
>(
  events: Events,
): Schema.Union<ReadonlyArray<Events[keyof Events]>> =>
  Schema.Union(Object.values(events) as ReadonlyArray<Events[keyof Events]>)

/** The event of `Event` (a union of tagged events) whose tag is `Tag`. */
export type Of<Event extends { readonly _tag: string }, Tag extends Event["_tag"]> = Extract<
  Event,
  { readonly _tag: Tag }
>
