/**
 * Given/then specifications for projections, beside DeciderSpecification:
 *
 *   spec.given([CompanyRegistered(...), CompanyVerified(...)]).thenDocument((doc) => ...)
 *   spec.given([...]).then(expectedDocument)
 *   spec.given([LocationAdded(...)]).thenNoDocument()
 *
 * The events are wrapped as recorded events of one stream (positions 1, 2,
 * ...) and applied in order. Documents are compared through the projection's
 * Schema encoding, so two documents are equal exactly when they would be
 * stored identically. Failures throw an Error describing expected and actual.
 */
import { Schema } from "effect"
import type { DomainEvent, Envelope } from "../composition/DomainEvents.ts"
import type { Projection } from "../infrastructure/ReadModel.ts"
import * as StableJson from "./StableJson.ts"

const stable = (value: unknown): string => StableJson.stable(value, 2)

/** The stream the given events belong to. */
export interface Stream<Type extends DomainEvent["streamType"]> {
  readonly streamType: Type
  readonly streamId: string
}

export interface Then<Doc> {
  /** The events leave exactly this document. */
  then(expected: Doc): void
  /** The events leave a document; `check` asserts on it. */
  thenDocument(check: (document: Doc) => void): void
  /** The events leave no document. */
  thenNoDocument(): void
}

/** Recorded events of one stream, as the event pipeline hands them to projections. */
export const envelopes = <Type extends DomainEvent["streamType"]>(
  stream: Stream<Type>,
  events: ReadonlyArray<EventOf<Type>>,
): ReadonlyArray<Extract<Envelope, { readonly streamType: Type }>> =>
  events.map(
    (event, index) =>
      ({
        streamType: stream.streamType,
        event,
        eventId: `00000000-0000-4000-8000-${String(index + 1).padStart(12, "0")}`,
        streamId: stream.streamId,
        streamVersion: index + 1,
        globalPosition: index + 1,
        recordedAt: (event as { readonly at?: unknown }).at,
        metadata: {},
      }) as Extract<Envelope, { readonly streamType: Type }>,
  )

/** The events of one stream type. */
export type EventOf<Type extends DomainEvent["streamType"]> = Extract<
  DomainEvent,
  { readonly streamType: Type }
>["event"]

export const forProjection = <Doc, Env extends Envelope, Type extends Env["streamType"]>(
  projection: Projection<Doc, Env>,
  stream: Stream<Type>,
) => {
  const encode = Schema.encodeSync(projection.document)
  return {
    given: (events: ReadonlyArray<EventOf<Type>>): Then<Doc> => {
      const document = (envelopes(stream, events) as ReadonlyArray<Envelope> as ReadonlyArray<Env>).reduce<
        Doc | undefined
      >((current, envelope) => projection.apply(current, envelope), undefined)
      const describe = () => `${projection.collection}: given ${events.map((e) => e._tag).join(", ") || "no events"}`
      const existing = (): Doc => {
        if (document === undefined) throw new Error(`${describe()}: expected a document but there is none`)
        return document
      }
      return {
        // biome-ignore lint/suspicious/noThenProperty: given/then is the vocabulary of the specification; the object is never awaited
        then: (expected) => {
          const actual = stable(encode(existing()))
          if (actual !== stable(encode(expected))) {
            throw new Error(`${describe()}:\nexpected ${stable(encode(expected))}\nbut got ${actual}`)
          }
        },
        thenDocument: (check) => check(existing()),
        thenNoDocument: () => {
          if (document !== undefined)
            throw new Error(`${describe()}: expected no document but got ${stable(encode(document))}`)
        },
      }
    },
  }
}
