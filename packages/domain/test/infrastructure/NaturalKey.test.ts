/** NaturalKey: the first claim of a unique key wins; later claims change nothing and learn the owner. */
import { DateTime } from "effect"
import { assert, describe, it } from "vitest"
import * as NaturalKey from "../../src/infrastructure/NaturalKey.ts"
import { DeciderSpecification } from "../../src/testing/index.ts"

const spec = DeciderSpecification.forAggregate(NaturalKey.aggregate)
const at = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")
const claim = (ownerId: string): NaturalKey.Command => ({ _tag: "ClaimNaturalKey", scope: "CardPayment", ownerId, at })
const claimed = (ownerId: string): NaturalKey.Event => ({
  _tag: "NaturalKeyClaimed",
  scope: "CardPayment",
  ownerId,
  at,
})

describe("a free natural key", () => {
  it("is claimed by the first claimant", () => {
    spec
      .given([])
      .when(claim("payment-1"))
      .then([claimed("payment-1")])
  })
})

describe("a claimed natural key", () => {
  it("claiming it again, by anyone, changes nothing; it keeps its owner", () => {
    spec
      .given([claimed("payment-1")])
      .when(claim("payment-2"))
      .thenNothingHappens()
    spec
      .given([claimed("payment-1")])
      .when(claim("payment-1"))
      .thenNothingHappens()
    const state = NaturalKey.evolve(NaturalKey.evolve(NaturalKey.initialState, claimed("payment-1")), claimed("x"))
    assert.strictEqual(NaturalKey.ownerOf(state, "payment-2"), "payment-1")
  })
})

describe("the owner of a key", () => {
  it("is the claimant while the key is free", () => {
    assert.strictEqual(NaturalKey.ownerOf(NaturalKey.initialState, "payment-2"), "payment-2")
  })
  it("its claim's events are stored at version 1", () => {
    assert.strictEqual(NaturalKey.aggregate.eventVersion("NaturalKeyClaimed"), 1)
  })
})

describe("the id of a key", () => {
  it("is the scope and the parts, percent-encoded, joined by colons", () => {
    assert.strictEqual(NaturalKey.idOf("DebitAuth", ["a b", "c:d"]), "DebitAuth:a%20b:c%3Ad")
  })
  it("keeps the parts apart: no two different keys share an id", () => {
    assert.notStrictEqual(NaturalKey.idOf("CardPayment", ["a:b", "c"]), NaturalKey.idOf("CardPayment", ["a", "b:c"]))
    assert.notStrictEqual(NaturalKey.idOf("DebitAuth", ["a", "b"]), NaturalKey.idOf("CardPayment", ["a", "b"]))
  })
})
