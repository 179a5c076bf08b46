/** The in-memory PartnerCredentials: scrypt-hashed secrets, same answer for unknown id and wrong secret. */
import { assert, describe, it } from "@effect/vitest"
import { PartnerCredentials } from "@partnerpay/domain"
import { Effect, Option, Redacted } from "effect"
import { hashSecret, layerMemory, verifySecret } from "../src/PartnerCredentialsMemory.ts"
import { partnerId } from "./fixtures.ts"

const cheap = { N: 2 ** 10, r: 8, p: 1 }
const Credentials = layerMemory([{ clientId: "client-a", clientSecret: Redacted.make("s3cret-a"), partnerId }], cheap)

describe("PartnerCredentials (in memory)", () => {
  it.effect("the right pair authenticates the partner", () =>
    Effect.gen(function* () {
      const credentials = yield* PartnerCredentials
      const result = yield* credentials.authenticate("client-a", Redacted.make("s3cret-a"))
      assert.deepStrictEqual(result, Option.some({ partnerId }))
    }).pipe(Effect.provide(Credentials)),
  )

  it.effect("a wrong secret, an unknown id and an empty secret are all None", () =>
    Effect.gen(function* () {
      const credentials = yield* PartnerCredentials
      assert.isTrue(Option.isNone(yield* credentials.authenticate("client-a", Redacted.make("s3cret-b"))))
      assert.isTrue(Option.isNone(yield* credentials.authenticate("client-b", Redacted.make("s3cret-a"))))
      assert.isTrue(Option.isNone(yield* credentials.authenticate("client-a", Redacted.make(""))))
    }).pipe(Effect.provide(Credentials)),
  )

  it.effect("a stored secret is a salted scrypt hash that never contains the secret", () =>
    Effect.gen(function* () {
      const a = yield* hashSecret(Redacted.make("s3cret-a"), cheap)
      const b = yield* hashSecret(Redacted.make("s3cret-a"), cheap)
      assert.match(a, /^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/)
      assert.notStrictEqual(a, b)
      assert.notInclude(a, "s3cret-a")
      assert.isTrue(yield* verifySecret(Redacted.make("s3cret-a"), a))
      assert.isFalse(yield* verifySecret(Redacted.make("s3cret-A"), a))
      assert.isFalse(yield* verifySecret(Redacted.make("s3cret-a"), "plain$text"))
    }),
  )
})
