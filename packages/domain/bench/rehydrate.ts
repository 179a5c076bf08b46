/**
 * Rehydration benchmark: how fast one aggregate's state is rebuilt from a long
 * stream of events.
 *
 * Builds N events (default 1,000,000) of one Counter aggregate (the test
 * fixture: a tagged-union state, events carrying an instant), then measures,
 * in one run, after a warm-up, the median of 5 runs of:
 *   - folding the events through `evolve` with `Decider.fold`;
 *   - an indexed loop calling the same `evolve` (what `fold` adds to evolve);
 *   - a hand-written loop over the same events, no state object per event (the lower bound);
 *   - decoding the events from their stored JSON form through the aggregate's
 *     Schema, as `CommandHandler.decodeEvents` does when loading a stream;
 *   - the same from JSON text (JSON.parse then decode);
 *   - a full load: decode and fold.
 *
 * Run: node bench/rehydrate.ts [events]   (from packages/domain; Node >= 22.18 strips the types)
 */
import { DateTime, Effect, Schema } from "effect"
import { decodeEvents } from "../src/infrastructure/CommandHandler.ts"
import type { RecordedEvent } from "../src/infrastructure/EventStore.ts"
import { fold } from "../src/kernel/Decider.ts"
import * as Counter from "../test/fixtures/Counter.ts"

// The domain compiles without Node typings; these are the few globals this script uses.
declare const performance: { now(): number }
declare const console: { log(...values: ReadonlyArray<unknown>): void }
declare const process: { readonly argv: ReadonlyArray<string>; readonly version: string }

const eventCount = Number(process.argv[2] ?? 1_000_000)
const runs = 5

// ---------------------------------------------------------------------------------------------
// the events: opened, then increments and decrements that keep the value non-negative

const start = Date.UTC(2026, 0, 1)
const events: Array<Counter.CounterEvent> = [{ _tag: "CounterOpened", at: DateTime.makeUnsafe(start) }]
for (let i = 1; i < eventCount; i++) {
  const at = DateTime.makeUnsafe(start + i * 1000)
  events.push(i % 3 === 0 ? { _tag: "Decremented", by: 1, at } : { _tag: "Incremented", by: 1 + (i % 5), at })
}

const encode = Schema.encodeSync(Counter.CounterEvent)
const recorded: Array<RecordedEvent> = events.map((event, index) => ({
  eventId: `00000000-0000-4000-8000-${index.toString(16).padStart(12, "0")}`,
  eventType: event._tag,
  schemaVersion: 1,
  data: encode(event),
  metadata: {},
  streamId: "Counter-bench",
  streamType: "Counter",
  streamVersion: index + 1,
  globalPosition: index + 1,
  recordedAt: DateTime.makeUnsafe(start),
}))
const jsonText = recorded.map((event) => JSON.stringify(event.data))

// ---------------------------------------------------------------------------------------------
// the contenders

const byFold = (): Counter.CounterState => fold(Counter.aggregate, events)

/** The same `evolve`, called from an indexed loop: what `fold` costs beyond evolve itself. */
const byEvolveLoop = (): Counter.CounterState => {
  let state = Counter.initialState
  for (let i = 0; i < events.length; i++) state = Counter.evolve(state, events[i]!)
  return state
}

/** What one would write by hand for this aggregate: locals instead of a state object per event. */
const byHand = (): Counter.CounterState => {
  let tag: Counter.CounterState["_tag"] = "Unopened"
  let value = 0
  let changes = 0
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!
    switch (event._tag) {
      case "CounterOpened":
        tag = "Open"
        value = 0
        changes = 0
        break
      case "Incremented":
        if (tag === "Open") {
          value += event.by
          changes++
        }
        break
      case "Decremented":
        if (tag === "Open") {
          value -= event.by
          changes++
        }
        break
      case "CounterClosed":
        if (tag === "Open") tag = "Closed"
        break
    }
  }
  return tag === "Unopened"
    ? { _tag: "Unopened" }
    : tag === "Open"
      ? { _tag: "Open", value, changes }
      : { _tag: "Closed", value }
}

const decodeStored = (): ReadonlyArray<Counter.CounterEvent> =>
  Effect.runSync(decodeEvents(Counter.aggregate, recorded))

const decodeFromText = (): ReadonlyArray<Counter.CounterEvent> => {
  const decode = Schema.decodeUnknownSync(Counter.CounterEvent)
  const out: Array<Counter.CounterEvent> = new Array(jsonText.length)
  for (let i = 0; i < jsonText.length; i++) out[i] = decode(JSON.parse(jsonText[i]!))
  return out
}

const load = (): Counter.CounterState => fold(Counter.aggregate, decodeStored())

// ---------------------------------------------------------------------------------------------
// measuring

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

let sink: unknown
const measure = (run: () => unknown): number => {
  run() // warm-up
  const times: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const begin = performance.now()
    sink = run()
    times.push(performance.now() - begin)
  }
  return median(times)
}

const expected = byHand()
const same = (state: unknown) => JSON.stringify(state) === JSON.stringify(expected)
if (!same(byFold()) || !same(byEvolveLoop()) || !same(load()) || !same(fold(Counter.aggregate, decodeFromText()))) {
  throw new Error("the contenders disagree on the final state")
}

const results: Array<{ readonly name: string; readonly ms: number }> = [
  { name: "Decider.fold (evolve)", ms: measure(byFold) },
  { name: "indexed loop calling evolve", ms: measure(byEvolveLoop) },
  { name: "hand-written loop (no evolve)", ms: measure(byHand) },
  { name: "decode stored JSON values (Schema)", ms: measure(decodeStored) },
  { name: "JSON.parse + decode (Schema)", ms: measure(decodeFromText) },
  { name: "full load: decode + fold", ms: measure(load) },
]

const rate = (ms: number) => Math.round(eventCount / (ms / 1000))
const formatted = (n: number) => n.toLocaleString("en-US")
const width = Math.max(...results.map((result) => result.name.length))
console.log(
  `rehydrating ${formatted(eventCount)} Counter events, Node ${process.version}, median of ${runs} runs after a warm-up`,
)
console.log(`${"".padEnd(width)}  ${"median ms".padStart(10)}  ${"events/s".padStart(14)}`)
for (const result of results) {
  console.log(
    `${result.name.padEnd(width)}  ${result.ms.toFixed(1).padStart(10)}  ${formatted(rate(result.ms)).padStart(14)}`,
  )
}
const msOf = (name: string) => results.find((result) => result.name === name)!.ms
const foldMs = msOf("Decider.fold (evolve)")
console.log(
  `ratio Decider.fold / indexed evolve loop: ${(foldMs / msOf("indexed loop calling evolve")).toFixed(2)}x the time`,
)
console.log(
  `ratio Decider.fold / hand-written loop: ${(foldMs / msOf("hand-written loop (no evolve)")).toFixed(2)}x the time`,
)
console.log(
  `ratio full load / fold alone: ${(msOf("full load: decode + fold") / foldMs).toFixed(1)}x the time (decoding dominates)`,
)
console.log(`final state: ${JSON.stringify(sink)}`)
