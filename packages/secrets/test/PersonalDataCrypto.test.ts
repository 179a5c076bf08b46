/** Crypto-shredding primitives: sealed values, wrapped data keys, derived keys and keyed hashes. */
import { assert, describe, it } from "@effect/vitest"
import * as PersonalDataCrypto from "../src/PersonalDataCrypto.ts"

const master = PersonalDataCrypto.parseMasterKey(PersonalDataCrypto.newMasterKey())

describe("a sealed value", () => {
  it("opens to its plaintext with the same key and subject", () => {
    const key = PersonalDataCrypto.newDataKey()
    const sealed = PersonalDataCrypto.seal(key, "customer:1", "Ada Lovelace, 1815-12-10")
    assert.isTrue(PersonalDataCrypto.isSealed(sealed))
    assert.notInclude(sealed, "Ada")
    assert.strictEqual(PersonalDataCrypto.open(key, "customer:1", sealed), "Ada Lovelace, 1815-12-10")
  })

  it("differs every time the same text is sealed (random IV)", () => {
    const key = PersonalDataCrypto.newDataKey()
    assert.notStrictEqual(PersonalDataCrypto.seal(key, "s", "same"), PersonalDataCrypto.seal(key, "s", "same"))
  })

  it("never reuses an IV, across many refills of the random pool", () => {
    const key = PersonalDataCrypto.keyObject(PersonalDataCrypto.newDataKey())
    const ivs = new Set(Array.from({ length: 2000 }, () => PersonalDataCrypto.seal(key, "s", "same").split(".")[1]))
    assert.strictEqual(ivs.size, 2000)
  })

  it("opens the same with the key's bytes or its key object", () => {
    const bytes = PersonalDataCrypto.newDataKey()
    const sealed = PersonalDataCrypto.seal(PersonalDataCrypto.keyObject(bytes), "customer:1", "Ada")
    assert.strictEqual(PersonalDataCrypto.open(bytes, "customer:1", sealed), "Ada")
    assert.strictEqual(
      PersonalDataCrypto.open(
        PersonalDataCrypto.keyObject(bytes),
        "customer:1",
        PersonalDataCrypto.seal(bytes, "customer:1", "Ada"),
      ),
      "Ada",
    )
  })

  it("does not open with another key", () => {
    const sealed = PersonalDataCrypto.seal(PersonalDataCrypto.newDataKey(), "customer:1", "secret")
    assert.throws(() => PersonalDataCrypto.open(PersonalDataCrypto.newDataKey(), "customer:1", sealed))
  })

  it("does not open for another subject (the subject is authenticated)", () => {
    const key = PersonalDataCrypto.newDataKey()
    const sealed = PersonalDataCrypto.seal(key, "customer:1", "secret")
    assert.throws(() => PersonalDataCrypto.open(key, "customer:2", sealed))
  })

  it("does not open once tampered with", () => {
    const key = PersonalDataCrypto.newDataKey()
    const [version, iv, body, tag] = PersonalDataCrypto.seal(key, "s", "amount 100").split(".")
    const flipped = `${body!.startsWith("A") ? "B" : "A"}${body!.slice(1)}`
    assert.throws(() => PersonalDataCrypto.open(key, "s", [version, iv, flipped, tag].join(".")))
  })
})

describe("a data key", () => {
  it("is new every time, across many refills of the random pool", () => {
    const keys = new Set(
      Array.from({ length: 1000 }, () => Buffer.from(PersonalDataCrypto.newDataKey()).toString("hex")),
    )
    assert.strictEqual(keys.size, 1000)
    assert.strictEqual(PersonalDataCrypto.newDataKey().byteLength, PersonalDataCrypto.keyBytes)
  })
})

describe("a wrapped data key", () => {
  it("unwraps with the master key that wrapped it, for its subject only", () => {
    const dataKey = PersonalDataCrypto.newDataKey()
    const wrapped = PersonalDataCrypto.wrapDataKey(master, "company-owner:9", dataKey)
    assert.deepStrictEqual(PersonalDataCrypto.unwrapDataKey(master, "company-owner:9", wrapped), dataKey)
    assert.throws(() => PersonalDataCrypto.unwrapDataKey(master, "company-owner:8", wrapped))
    assert.throws(() =>
      PersonalDataCrypto.unwrapDataKey(
        PersonalDataCrypto.parseMasterKey(PersonalDataCrypto.newMasterKey()),
        "company-owner:9",
        wrapped,
      ),
    )
  })

  it("re-wrapped under a new master key still opens what the data key sealed (rotation)", () => {
    const dataKey = PersonalDataCrypto.newDataKey()
    const sealed = PersonalDataCrypto.seal(dataKey, "customer:1", "+14155550123")
    const next = PersonalDataCrypto.parseMasterKey(PersonalDataCrypto.newMasterKey())
    const rewrapped = PersonalDataCrypto.wrapDataKey(
      next,
      "customer:1",
      PersonalDataCrypto.unwrapDataKey(
        master,
        "customer:1",
        PersonalDataCrypto.wrapDataKey(master, "customer:1", dataKey),
      ),
    )
    assert.strictEqual(
      PersonalDataCrypto.open(PersonalDataCrypto.unwrapDataKey(next, "customer:1", rewrapped), "customer:1", sealed),
      "+14155550123",
    )
    assert.notStrictEqual(PersonalDataCrypto.masterKeyId(next), PersonalDataCrypto.masterKeyId(master))
  })
})

describe("keys derived from the master key", () => {
  it("give the same keyed hash for the same value, and another one under another purpose or master", () => {
    const index = PersonalDataCrypto.deriveKey(master, "phone-index")
    const hash = PersonalDataCrypto.keyedHash(index, "+14155550123")
    assert.match(hash, /^[0-9a-f]{64}$/)
    assert.strictEqual(
      PersonalDataCrypto.keyedHash(PersonalDataCrypto.deriveKey(master, "phone-index"), "+14155550123"),
      hash,
    )
    assert.notStrictEqual(
      PersonalDataCrypto.keyedHash(PersonalDataCrypto.deriveKey(master, "other"), "+14155550123"),
      hash,
    )
    const otherMaster = PersonalDataCrypto.parseMasterKey(PersonalDataCrypto.newMasterKey())
    assert.notStrictEqual(
      PersonalDataCrypto.keyedHash(PersonalDataCrypto.deriveKey(otherMaster, "phone-index"), "+14155550123"),
      hash,
    )
  })
})

describe("a master key written as text", () => {
  it("is 32 bytes in base64, base64url or hex; anything else is refused", () => {
    const bytes = Buffer.alloc(32, 7)
    assert.deepStrictEqual(PersonalDataCrypto.parseMasterKey(bytes.toString("base64")), new Uint8Array(bytes))
    assert.deepStrictEqual(PersonalDataCrypto.parseMasterKey(bytes.toString("base64url")), new Uint8Array(bytes))
    assert.deepStrictEqual(PersonalDataCrypto.parseMasterKey(bytes.toString("hex")), new Uint8Array(bytes))
    assert.throws(() => PersonalDataCrypto.parseMasterKey("too-short"), /32 bytes/)
    assert.throws(() => PersonalDataCrypto.parseMasterKey(Buffer.alloc(16).toString("base64")), /32 bytes/)
  })
})
