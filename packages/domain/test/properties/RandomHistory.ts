/**
 * Random histories for the "read models agree with their aggregates"
 * properties: explicit fast-check generators for ids, amounts and instants
 * (Schema arbitraries give mixed-case or nil UUIDs and tiny integers), and
 * `history`, which runs a random command sequence through a decider (a
 * refused command records nothing, as in the service) and folds the events it
 * records into the aggregate's state, beside `documentOf`, which runs the same
 * events through a projection as the event pipeline does.
 */
import { DateTime, Result } from "effect"
import fc from "fast-check"
import type { DomainEvent, Envelope } from "../../src/composition/DomainEvents.ts"
import type { Projection } from "../../src/infrastructure/ReadModel.ts"
import type { Decider } from "../../src/kernel/Decider.ts"
import * as Money from "../../src/kernel/Money.ts"
import { PropertyParams } from "../../src/testing/index.ts"
import { envelopes } from "../../src/testing/ProjectionSpecification.ts"

/**
 * The seed and run count the properties here used before each file had its own (`PropertyParams.propertyParams`);
 * kept for tests written against it. Prefer a file seed: `const seeded = PropertyParams.propertyParams(42)`.
 */
export const runs: PropertyParams.PropertyParams = PropertyParams.propertyParams(42)()

const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: length, maxLength: length })

/** A lowercase version 4 UUID (never the nil UUID). */
export const uuid: fc.Arbitrary<string> = fc
  .tuple(hex(8), hex(4), hex(3), fc.constantFrom("8", "9", "a", "b"), hex(3), hex(12))
  .map(([a, b, c, variant, d, e]) => `${a}-${b}-4${c}-${variant}${d}-${e}`)

/** A positive amount in minor units, from one cent to `max`. */
export const minorUnits = (max = 1_000_000): fc.Arbitrary<number> => fc.integer({ min: 1, max })

export const usd = (units: number): Money.Money => Money.make(units, "USD")

/** The instant of the n-th command of a history: `hoursApart` hours apart (one by default) from a fixed start. */
export const start = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
export const instant = (n: number, hoursApart = 1): DateTime.Utc => DateTime.add(start, { hours: n * hoursApart })

/**
 * A command that still needs the instant it is given at; it may also read the
 * state it meets (e.g. to name the next due date), as the edge reads the
 * aggregate before sending a command.
 */
export type Timed<Command, State = unknown> = (at: DateTime.Utc, state: State) => Command

/** The events a command sequence records (refused commands record nothing) and the state they fold into. */
export const history = <Command, Event, State, Error>(
  decider: Decider<Command, Event, State, Error>,
  commands: ReadonlyArray<Timed<Command, State>>,
  hoursApart = 1,
): { readonly events: ReadonlyArray<Event>; readonly state: State } => {
  let state = decider.initialState
  const events: Array<Event> = []
  commands.forEach((command, index) => {
    const decision = decider.decide(command(instant(index, hoursApart), state), state)
    if (Result.isFailure(decision)) return
    for (const event of decision.success) {
      events.push(event)
      state = decider.evolve(state, event)
    }
  })
  return { events, state }
}

/** The document a projection makes from the events of one stream, as the event pipeline applies them. */
export const documentOf = <Doc, Env extends Envelope>(
  projection: Projection<Doc, Env>,
  streamType: DomainEvent["streamType"],
  streamId: string,
  events: ReadonlyArray<unknown>,
): Doc | undefined =>
  (envelopes({ streamType, streamId }, events as ReadonlyArray<DomainEvent["event"]>) as ReadonlyArray<Env>).reduce<
    Doc | undefined
  >(
    (current, envelope) => (projection.key(envelope) === undefined ? current : projection.apply(current, envelope)),
    undefined,
  )

/** An ISO 8601 instant, as documents store them. */
export const iso = (at: DateTime.Utc): string => DateTime.formatIso(at)

/** One event recorded on some stream, in the order of the global log. */
export interface Recorded {
  readonly streamType: DomainEvent["streamType"]
  readonly streamId: string
  readonly event: unknown
}

/** The document a projection reading several streams makes from their events, in the order they were recorded. */
export const documentOfLog = <Doc, Env extends Envelope>(
  projection: Projection<Doc, Env>,
  id: string,
  log: ReadonlyArray<Recorded>,
): Doc | undefined =>
  log
    .flatMap(
      ({ streamType, streamId, event }) =>
        envelopes({ streamType, streamId }, [event as DomainEvent["event"]]) as ReadonlyArray<Env>,
    )
    .reduce<Doc | undefined>(
      (current, envelope) => (projection.key(envelope) === id ? projection.apply(current, envelope) : current),
      undefined,
    )
