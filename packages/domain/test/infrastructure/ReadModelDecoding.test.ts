/**
 * Decoding a stored document (`ReadModel.decodeDocument`): data a store keeps between reads comes
 * frozen, and its decoded document is kept with it; any other data is decoded at each read.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import * as ReadModel from "../../src/infrastructure/ReadModel.ts"

/** A document whose decoding makes something new: the instant from its text. */
const projection: ReadModel.Projection<{ readonly at: Date }> = {
  collection: "instants",
  document: Schema.Struct({ at: Schema.DateFromString }),
  key: () => undefined,
  apply: (current) => current,
  index: () => ({ partnerId: "p-1", keys: {}, sortKey: "" }),
}

const stored = (data: unknown): ReadModel.StoredDocument => ({
  collection: "instants",
  id: "i-1",
  data,
  index: { partnerId: "p-1", keys: {}, sortKey: "" },
})

describe("a stored document", () => {
  it("kept by its store (frozen) is decoded once: a second read answers the same document", () => {
    const data = Object.freeze({ at: "2026-11-29T12:00:00.000Z" })
    const first = ReadModel.decodeDocument(projection, stored(data))
    assert.strictEqual(ReadModel.decodeDocument(projection, stored(data)), first)
    assert.strictEqual(first.at.toISOString(), "2026-11-29T12:00:00.000Z")
  })

  it("read anew (not frozen) is decoded at each read", () => {
    const data = { at: "2026-11-29T12:00:00.000Z" }
    const first = ReadModel.decodeDocument(projection, stored(data))
    const again = ReadModel.decodeDocument(projection, stored(data))
    assert.notStrictEqual(again, first)
    assert.deepStrictEqual(again, first)
  })
})
