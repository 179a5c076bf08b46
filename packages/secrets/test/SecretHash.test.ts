/** Client-secret hashing: HMAC-SHA-256 under a server pepper; legacy scrypt hashes still verify (for migration). */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { generateSecret, hashSecret, hashSecretScrypt, unmatchableHash, verifySecret } from "../src/SecretHash.ts"

const cheap = { N: 2 ** 10, r: 8, p: 1 }
const pepper = Redacted.make("pepper-0123456789-0123456789-0123456789")
const otherPepper = Redacted.make("another-pepper-0123456789-0123456789-01")

describe("SecretHash (HMAC-SHA-256 with a pepper)", () => {
  it.effect("a hash verifies its own secret and no other", () =>
    Effect.gen(function* () {
      const stored = hashSecret(Redacted.make("s3cret"), pepper)
      assert.strictEqual(yield* verifySecret(Redacted.make("s3cret"), stored, pepper), "match")
      assert.strictEqual(yield* verifySecret(Redacted.make("s3cret!"), stored, pepper), "mismatch")
    }),
  )

  it.effect("the hash depends on the pepper: under another pepper the right secret does not verify", () =>
    Effect.gen(function* () {
      const stored = hashSecret(Redacted.make("s3cret"), pepper)
      assert.notStrictEqual(stored, hashSecret(Redacted.make("s3cret"), otherPepper))
      assert.strictEqual(yield* verifySecret(Redacted.make("s3cret"), stored, otherPepper), "mismatch")
    }),
  )

  it("the stored form names the scheme and never contains the secret", () => {
    const stored = hashSecret(Redacted.make("s3cret"), pepper)
    assert.match(stored, /^hmac-sha256\$[A-Za-z0-9+/]{43}=$/)
    assert.notInclude(stored, "s3cret")
  })

  it.effect("an unmatchable hash matches no secret", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* verifySecret(Redacted.make(""), unmatchableHash(), pepper), "mismatch")
      assert.strictEqual(yield* verifySecret(generateSecret(), unmatchableHash(), pepper), "mismatch")
    }),
  )
})

describe("SecretHash (legacy scrypt hashes)", () => {
  it.effect("the right secret under a legacy hash is a legacy match (to be re-hashed), a wrong one a mismatch", () =>
    Effect.gen(function* () {
      const stored = yield* hashSecretScrypt(Redacted.make("s3cret"), cheap)
      assert.match(stored, /^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/)
      assert.strictEqual(yield* verifySecret(Redacted.make("s3cret"), stored, pepper), "legacy-match")
      assert.strictEqual(yield* verifySecret(Redacted.make("s3cret!"), stored, pepper), "mismatch")
    }),
  )

  it.effect("a stored value of no known scheme, or with broken parameters, never verifies", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* verifySecret(Redacted.make("s3cret"), "plain$text", pepper), "mismatch")
      assert.strictEqual(
        yield* verifySecret(Redacted.make("s3cret"), "scrypt$x$8$1$c2FsdA==$aGFzaA==", pepper),
        "mismatch",
      )
    }),
  )
})

it("a generated secret is 32 random bytes (256 bits) in base64url", () => {
  const secret = Redacted.value(generateSecret())
  assert.match(secret, /^[A-Za-z0-9_-]{43}$/)
  assert.notStrictEqual(secret, Redacted.value(generateSecret()))
})
