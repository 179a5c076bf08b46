/** Client-secret hashing: salted scrypt in a self-describing format, verified in constant time. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { generateSecret, hashSecret, verifySecret } from "../src/SecretHash.ts"

const cheap = { N: 2 ** 10, r: 8, p: 1 }

describe("SecretHash", () => {
  it.effect("a hash verifies its own secret and no other", () =>
    Effect.gen(function* () {
      const stored = yield* hashSecret(Redacted.make("s3cret"), cheap)
      assert.isTrue(yield* verifySecret(Redacted.make("s3cret"), stored))
      assert.isFalse(yield* verifySecret(Redacted.make("s3cret!"), stored))
    }),
  )

  it.effect("the stored form names scrypt and its parameters, is salted, and never contains the secret", () =>
    Effect.gen(function* () {
      const a = yield* hashSecret(Redacted.make("s3cret"), cheap)
      const b = yield* hashSecret(Redacted.make("s3cret"), cheap)
      assert.match(a, /^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/)
      assert.notStrictEqual(a, b)
      assert.notInclude(a, "s3cret")
    }),
  )

  it.effect("a stored value that is not an scrypt hash, or has broken parameters, never verifies", () =>
    Effect.gen(function* () {
      assert.isFalse(yield* verifySecret(Redacted.make("s3cret"), "plain$text"))
      assert.isFalse(yield* verifySecret(Redacted.make("s3cret"), "scrypt$x$8$1$c2FsdA==$aGFzaA=="))
    }),
  )

  it("a generated secret is 32 random bytes in base64url", () => {
    const secret = Redacted.value(generateSecret())
    assert.match(secret, /^[A-Za-z0-9_-]{43}$/)
    assert.notStrictEqual(secret, Redacted.value(generateSecret()))
  })
})
