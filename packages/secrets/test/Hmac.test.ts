/** HMAC-SHA256: the published test vectors (RFC 4231), text as UTF-8 bytes. */
import { assert, describe, it } from "@effect/vitest"
import * as Hmac from "../src/Hmac.ts"

describe("HMAC-SHA256", () => {
  it("gives RFC 4231's test case 2 (a text key and message)", () => {
    assert.strictEqual(
      Hmac.sha256Hex("Jefe", "what do ya want for nothing?"),
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    )
  })

  it("gives RFC 4231's test case 1 (a byte key), as bytes and as hex", () => {
    const key = new Uint8Array(20).fill(0x0b)
    const expected = "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    assert.strictEqual(Hmac.sha256Hex(key, "Hi There"), expected)
    assert.strictEqual(Buffer.from(Hmac.sha256(key, new TextEncoder().encode("Hi There"))).toString("hex"), expected)
  })

  it("hashes text as its UTF-8 bytes", () => {
    assert.strictEqual(Hmac.sha256Hex("k", "café"), Hmac.sha256Hex("k", Buffer.from("café", "utf8")))
  })
})
