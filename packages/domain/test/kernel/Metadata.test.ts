/** The rules of a partner's metadata: at most 50 keys of 1 to 40 characters, string values of at most 500. */
import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as Metadata from "../../src/kernel/Metadata.ts"

const decode = Schema.decodeUnknownResult(Metadata.Metadata)
const many = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, "v"]))

describe("metadata", () => {
  it("of 50 keys of 40 characters with values of 500 characters keeps the rules", () => {
    const metadata = { ...many(49), ["k".repeat(40)]: "v".repeat(500) }
    assert.deepStrictEqual(Metadata.issues("metadata", metadata), [])
    assert.isTrue(Result.isSuccess(decode(metadata)))
  })

  it("of 51 keys is refused as a whole", () => {
    assert.deepStrictEqual(
      Metadata.issues("metadata", many(51)).map((issue) => issue.field),
      ["metadata"],
    )
    assert.isTrue(Result.isFailure(decode(many(51))))
  })

  it("with a key of 41 characters or an empty key names the key", () => {
    const long = "k".repeat(41)
    assert.deepStrictEqual(
      Metadata.issues("metadata", { [long]: "v", "": "v" }).map((issue) => issue.field),
      [`metadata.${long}`, "metadata."],
    )
    assert.isTrue(Result.isFailure(decode({ [long]: "v" })))
  })

  it("with a value of 501 characters names its key", () => {
    assert.deepStrictEqual(
      Metadata.issues("metadata", { note: "v".repeat(501) }).map((issue) => issue.field),
      ["metadata.note"],
    )
    assert.isTrue(Result.isFailure(decode({ note: "v".repeat(501) })))
    assert.isTrue(Result.isFailure(decode({ count: 3 })))
  })
})
