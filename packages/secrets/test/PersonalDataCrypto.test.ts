/** Crypto-shredding primitives: sealed values, wrapped data keys, derived keys and keyed hashes. */
import { assert, describe, it } from "@effect/vitest"
import * as Crypto from "../src/PersonalDataCrypto.ts"

const master = Crypto.parseMasterKey(Crypto.newMasterKey())

describe("a sealed value", () => {
  it("opens to its plaintext with the same key and subject", () => {
    const key = Crypto.newDataKey()
    const sealed = Crypto.seal(key, "customer:1", "Ada Lovelace, 1815-12-10")
    assert.isTrue(Crypto.isSealed(sealed))
    assert.notInclude(sealed, "Ada")
    assert.strictEqual(Crypto.open(key, "customer:1", sealed), "Ada Lovelace, 1815-12-10")
  })

  it("differs every time the same text is sealed (random IV)", () => {
    const key = Crypto.newDataKey()
    assert.notStrictEqual(Crypto.seal(key, "s", "same"), Crypto.seal(key, "s", "same"))
  })

  it("never reuses an IV, across many refills of the random pool", () => {
    const key = Crypto.keyObject(Crypto.newDataKey())
    const ivs = new Set(Array.from({ length: 2000 }, () => Crypto.seal(key, "s", "same").split(".")[1]))
    assert.strictEqual(ivs.size, 2000)
  })

  it("opens the same with the key's bytes or its key object", () => {
    const bytes = Crypto.newDataKey()
    const sealed = Crypto.seal(Crypto.keyObject(bytes), "customer:1", "Ada")
    assert.strictEqual(Crypto.open(bytes, "customer:1", sealed), "Ada")
    assert.strictEqual(
      Crypto.open(Crypto.keyObject(bytes), "customer:1", Crypto.seal(bytes, "customer:1", "Ada")),
      "Ada",
    )
  })

  it("does not open with another key", () => {
    const sealed = Crypto.seal(Crypto.newDataKey(), "customer:1", "secret")
    assert.throws(() => Crypto.open(Crypto.newDataKey(), "customer:1", sealed))
  })

  it("does not open for another subject (the subject is authenticated)", () => {
    const key = Crypto.newDataKey()
    const sealed = Crypto.seal(key, "customer:1", "secret")
    assert.throws(() => Crypto.open(key, "customer:2", sealed))
  })

  it("does not open once tampered with", () => {
    const key = Crypto.newDataKey()
    const [version, iv, body, tag] = Crypto.seal(key, "s", "amount 100").split(".")
    const flipped = `${body!.startsWith("A") ? "B" : "A"}${body!.slice(1)}`
    assert.throws(() => Crypto.open(key, "s", [version, iv, flipped, tag].join(".")))
  })
})

describe("a data key", () => {
  it("is new every time, across many refills of the random pool", () => {
    const keys = new Set(Array.from({ length: 1000 }, () => Buffer.from(Crypto.newDataKey()).toString("hex")))
    assert.strictEqual(keys.size, 1000)
    assert.strictEqual(Crypto.newDataKey().byteLength, Crypto.keyBytes)
  })
})

describe("a wrapped data key", () => {
  it("unwraps with the master key that wrapped it, for its subject only", () => {
    const dataKey = Crypto.newDataKey()
    const wrapped = Crypto.wrapDataKey(master, "company-owner:9", dataKey)
    assert.deepStrictEqual(Crypto.unwrapDataKey(master, "company-owner:9", wrapped), dataKey)
    assert.throws(() => Crypto.unwrapDataKey(master, "company-owner:8", wrapped))
    assert.throws(() => Crypto.unwrapDataKey(Crypto.parseMasterKey(Crypto.newMasterKey()), "company-owner:9", wrapped))
  })

  it("re-wrapped under a new master key still opens what the data key sealed (rotation)", () => {
    const dataKey = Crypto.newDataKey()
    const sealed = Crypto.seal(dataKey, "customer:1", "+14155550123")
    const next = Crypto.parseMasterKey(Crypto.newMasterKey())
    const rewrapped = Crypto.wrapDataKey(
      next,
      "customer:1",
      Crypto.unwrapDataKey(master, "customer:1", Crypto.wrapDataKey(master, "customer:1", dataKey)),
    )
    assert.strictEqual(
      Crypto.open(Crypto.unwrapDataKey(next, "customer:1", rewrapped), "customer:1", sealed),
      "+14155550123",
    )
    assert.notStrictEqual(Crypto.masterKeyId(next), Crypto.masterKeyId(master))
  })
})

describe("keys derived from the master key", () => {
  it("give the same keyed hash for the same value, and another one under another purpose or master", () => {
    const index = Crypto.deriveKey(master, "phone-index")
    const hash = Crypto.keyedHash(index, "+14155550123")
    assert.match(hash, /^[0-9a-f]{64}$/)
    assert.strictEqual(Crypto.keyedHash(Crypto.deriveKey(master, "phone-index"), "+14155550123"), hash)
    assert.notStrictEqual(Crypto.keyedHash(Crypto.deriveKey(master, "other"), "+14155550123"), hash)
    const otherMaster = Crypto.parseMasterKey(Crypto.newMasterKey())
    assert.notStrictEqual(Crypto.keyedHash(Crypto.deriveKey(otherMaster, "phone-index"), "+14155550123"), hash)
  })
})

describe("a master key written as text", () => {
  it("is 32 bytes in base64, base64url or hex; anything else is refused", () => {
    const bytes = Buffer.alloc(32, 7)
    assert.deepStrictEqual(Crypto.parseMasterKey(bytes.toString("base64")), new Uint8Array(bytes))
    assert.deepStrictEqual(Crypto.parseMasterKey(bytes.toString("base64url")), new Uint8Array(bytes))
    assert.deepStrictEqual(Crypto.parseMasterKey(bytes.toString("hex")), new Uint8Array(bytes))
    assert.throws(() => Crypto.parseMasterKey("too-short"), /32 bytes/)
    assert.throws(() => Crypto.parseMasterKey(Buffer.alloc(16).toString("base64")), /32 bytes/)
  })
})
