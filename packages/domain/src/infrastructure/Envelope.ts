/**
 * The envelope of a decoded event: the typed event, tagged with its stream
 * type, with where and when it was recorded. Generic over the events: the
 * machinery (projections, notification rules, the pipeline) is written for
 * any envelope, each area names the envelopes of its own streams
 * (`Envelope.Of<"Consent", ConsentEvent>`), and the composition root
 * (`composition/DomainEvents.ts`) the union of every stream's. `routed`
 * gives each event only to the readers of its stream type.
 */
import type { RecordedEvent } from "./EventStore.ts"

/** Where and when an event was recorded. */
export interface Recorded {
  readonly eventId: string
  readonly streamId: string
  readonly streamVersion: number
  readonly globalPosition: number
  readonly recordedAt: RecordedEvent["recordedAt"]
  readonly metadata: RecordedEvent["metadata"]
}

/** A typed event tagged with its stream type, e.g. `{ streamType: "Consent"; event: ConsentEvent }`. */
export interface Tagged {
  readonly streamType: string
  readonly event: { readonly _tag: string }
}

/** The envelope of a union of tagged events (distributes over the union, so `streamType` narrows `event`). */
export type Envelope<Events extends Tagged> = Events extends Tagged ? Events & Recorded : never

/** The envelope of one stream type's events. */
export type Of<StreamType extends string, Event extends { readonly _tag: string }> = Envelope<{
  readonly streamType: StreamType
  readonly event: Event
}>

/** The envelope of any event: what the machinery moves without looking inside. */
export type Any = Envelope<Tagged>

/** Something that reads the events of some stream types (all of them when it names none). */
export interface Reader {
  readonly streamTypes?: ReadonlyArray<string> | undefined
}

const routes = new WeakMap<ReadonlyArray<Reader>, Map<string, ReadonlyArray<Reader>>>()

/** The readers (projections, notification rules) that read events of `streamType`, worked out once per list. */
export const routed = <R extends Reader>(readers: ReadonlyArray<R>, streamType: string): ReadonlyArray<R> => {
  let byStreamType = routes.get(readers)
  if (byStreamType === undefined) {
    byStreamType = new Map()
    routes.set(readers, byStreamType)
  }
  let found = byStreamType.get(streamType)
  if (found === undefined) {
    found = readers.filter((reader) => reader.streamTypes === undefined || reader.streamTypes.includes(streamType))
    byStreamType.set(streamType, found)
  }
  return found as ReadonlyArray<R>
}
