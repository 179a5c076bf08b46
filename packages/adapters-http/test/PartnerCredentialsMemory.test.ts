/** The in-memory PartnerCredentials: peppered HMAC hashes, legacy scrypt accepted, same answer for unknown id and wrong secret. */
import { assert, describe, it } from "@effect/vitest"
import { PartnerCredentials } from "@partnerpay/domain"
import { Effect, Option, Redacted } from "effect"
import { hashSecretScrypt, layerMemory } from "../src/cross-cutting/PartnerCredentialsMemory.ts"
import { partnerId } from "./fixtures.ts"

const Credentials = layerMemory([{ clientId: "client-a", clientSecret: Redacted.make("s3cret-a"), partnerId }])

describe("PartnerCredentials (in memory)", () => {
  it.effect("the right pair authenticates the partner", () =>
    Effect.gen(function* () {
      const credentials = yield* PartnerCredentials.PartnerCredentials
      const result = yield* credentials.authenticate("client-a", Redacted.make("s3cret-a"))
      assert.deepStrictEqual(result, Option.some({ partnerId }))
    }).pipe(Effect.provide(Credentials)),
  )

  it.effect("a wrong secret, an unknown id and an empty secret are all None", () =>
    Effect.gen(function* () {
      const credentials = yield* PartnerCredentials.PartnerCredentials
      assert.isTrue(Option.isNone(yield* credentials.authenticate("client-a", Redacted.make("s3cret-b"))))
      assert.isTrue(Option.isNone(yield* credentials.authenticate("client-b", Redacted.make("s3cret-a"))))
      assert.isTrue(Option.isNone(yield* credentials.authenticate("client-a", Redacted.make(""))))
    }).pipe(Effect.provide(Credentials)),
  )
})

describe("a partner whose secret is still stored as a legacy scrypt hash", () => {
  it.effect("authenticates with the right secret, again after the hash was migrated, and never with a wrong one", () =>
    Effect.gen(function* () {
      const storedHash = yield* hashSecretScrypt(Redacted.make("s3cret-a"), { N: 2 ** 10, r: 8, p: 1 })
      const credentials = yield* Effect.provide(
        Effect.gen(function* () {
          return yield* PartnerCredentials.PartnerCredentials
        }),
        layerMemory([{ clientId: "client-a", storedHash, partnerId }]),
      )
      assert.isTrue(Option.isNone(yield* credentials.authenticate("client-a", Redacted.make("s3cret-b"))))
      assert.deepStrictEqual(
        yield* credentials.authenticate("client-a", Redacted.make("s3cret-a")),
        Option.some({ partnerId }),
      )
      assert.deepStrictEqual(
        yield* credentials.authenticate("client-a", Redacted.make("s3cret-a")),
        Option.some({ partnerId }),
      )
      assert.isTrue(Option.isNone(yield* credentials.authenticate("client-a", Redacted.make("s3cret-b"))))
    }),
  )
})
