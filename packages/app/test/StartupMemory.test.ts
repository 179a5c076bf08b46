/**
 * Start-up's memory given back (src/StartupMemory.ts): one memory-reducing full collection shrinks the
 * heap a burst of allocation grew, and leaves no `gc` function where the service's code could call it.
 */

import * as v8 from "node:v8"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as StartupMemory from "../src/StartupMemory.ts"

const committedMegabytes = (): number => v8.getHeapStatistics().total_heap_size / 1_048_576
const youngMegabytes = (): number =>
  (v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0) / 1_048_576

/** Grows the old generation with about `megabytes` of objects that are garbage once it returns. */
const burst = (megabytes: number): number => {
  const kept: Array<ReadonlyArray<number>> = []
  for (let i = 0; i < megabytes * 16; i++) kept.push(Array.from({ length: 8_000 }, (_, j) => j + i))
  return kept.length
}

describe("after start-up", () => {
  it.effect("gives back the heap a burst of allocation grew", () =>
    Effect.gen(function* () {
      burst(96)
      const grown = committedMegabytes()
      yield* StartupMemory.release
      const released = committedMegabytes()
      assert.isAbove(grown - released, 32, `heap committed ${grown.toFixed(0)} MB -> ${released.toFixed(0)} MB`)
    }),
  )

  it.effect("shrinks the young generation a burst grew to its ceiling", () =>
    Effect.gen(function* () {
      burst(64)
      const grown = youngMegabytes()
      yield* StartupMemory.release
      const released = youngMegabytes()
      assert.isBelow(released, grown / 2, `young generation ${grown.toFixed(0)} MB -> ${released.toFixed(0)} MB`)
    }),
  )

  it.effect("leaves no gc function in the global scope", () =>
    Effect.gen(function* () {
      yield* StartupMemory.release
      assert.strictEqual(typeof (globalThis as { gc?: unknown }).gc, "undefined")
    }),
  )
})
