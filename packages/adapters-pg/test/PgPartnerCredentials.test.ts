/** Partner credentials and partner administration on PGlite and PostgreSQL (fresh schema). */
import { assert, describe, it } from "@effect/vitest"
import { type Ids, PartnerCredentials } from "@partnerpay/domain"
import { Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgPartnerCredentials from "../src/PgPartnerCredentials.ts"
import { hashSecret, verifySecret } from "../src/SecretHash.ts"
import { databases } from "./readSideSupport.ts"

/** Cheap scrypt parameters: the tests check behaviour, not cost. */
const fast = { N: 2 ** 10, r: 8, p: 1 }

describe("SecretHash", () => {
  it.effect("verifies the right secret and refuses a wrong one or a malformed hash", () =>
    Effect.gen(function* () {
      const stored = yield* hashSecret(Redacted.make("s3cret"), fast)
      assert.match(stored, /^scrypt\$1024\$8\$1\$[^$]+\$[^$]+$/)
      assert.isTrue(yield* verifySecret(Redacted.make("s3cret"), stored))
      assert.isFalse(yield* verifySecret(Redacted.make("s3cret!"), stored))
      assert.isFalse(yield* verifySecret(Redacted.make("s3cret"), "plain$text"))
    }),
  )
})

for (const database of databases) {
  describe(`partners on ${database.name}`, () => {
    const layer = PgPartnerCredentials.layer(fast).pipe(
      Layer.provideMerge(Migrations.layer),
      Layer.provideMerge(database.layer()),
    )
    const authenticate = (clientId: string, secret: string) =>
      Effect.flatMap(PartnerCredentials, (c) => c.authenticate(clientId, Redacted.make(secret)))

    it.layer(layer, { timeout: 120_000 })((it) => {
      it.effect(
        "a created partner authenticates with its secret, shown once and stored only as a hash",
        () =>
          Effect.gen(function* () {
            const partners = yield* PgPartnerCredentials.Partners
            const created = yield* partners.create({ name: "Acme Payments" })
            const secret = Redacted.value(created.clientSecret)
            assert.deepStrictEqual(
              yield* authenticate(created.clientId, secret),
              Option.some({ partnerId: created.partnerId }),
            )
            assert.isTrue(Option.isNone(yield* authenticate(created.clientId, `${secret}x`)))
            assert.isTrue(Option.isNone(yield* authenticate("unknown-client", secret)))
            const sql = yield* SqlClient
            const rows = yield* sql<{ secret_hash: string; name: string }>`
            SELECT secret_hash, name FROM partners WHERE client_id = ${created.clientId}`
            assert.strictEqual(rows[0]?.name, "Acme Payments")
            assert.match(rows[0]?.secret_hash ?? "", /^scrypt\$/)
            assert.notInclude(rows[0]?.secret_hash ?? "", secret)
            assert.strictEqual(String(created.clientSecret), "<redacted>")
          }),
        60_000,
      )

      it.effect(
        "rotating the secret makes the old one stop working",
        () =>
          Effect.gen(function* () {
            const partners = yield* PgPartnerCredentials.Partners
            const created = yield* partners.create({ name: "Rotating" })
            const next = yield* partners.rotateSecret(created.partnerId)
            assert.isTrue(Option.isNone(yield* authenticate(created.clientId, Redacted.value(created.clientSecret))))
            assert.isTrue(Option.isSome(yield* authenticate(created.clientId, Redacted.value(next))))
            const missing = yield* Effect.flip(partners.rotateSecret(crypto.randomUUID() as Ids.PartnerId))
            assert.strictEqual(missing._tag, "NotFound")
          }),
        60_000,
      )

      it.effect(
        "the sandbox upsert creates the partner once, with the given id, then only replaces the secret",
        () =>
          Effect.gen(function* () {
            const partners = yield* PgPartnerCredentials.Partners
            const clientId = `sandbox-${crypto.randomUUID()}`
            const partnerId = crypto.randomUUID() as Ids.PartnerId
            const first = yield* partners.upsertSandboxPartner({
              clientId,
              clientSecret: Redacted.make("one"),
              partnerId,
            })
            assert.strictEqual(first, partnerId)
            const second = yield* partners.upsertSandboxPartner({ clientId, clientSecret: Redacted.make("two") })
            assert.strictEqual(second, partnerId)
            assert.isTrue(Option.isNone(yield* authenticate(clientId, "one")))
            assert.deepStrictEqual(yield* authenticate(clientId, "two"), Option.some({ partnerId }))
          }),
        60_000,
      )

      it.effect(
        "the webhook is stored per partner and its signing secret comes back redacted",
        () =>
          Effect.gen(function* () {
            const partners = yield* PgPartnerCredentials.Partners
            const created = yield* partners.create({ name: "Hooked" })
            assert.isTrue(Option.isNone(yield* partners.getWebhook(created.partnerId)))
            yield* partners.setWebhook(created.partnerId, {
              url: "https://partner.example/hooks",
              signingSecret: Redacted.make("whsec_1"),
            })
            const webhook = Option.getOrThrow(yield* partners.getWebhook(created.partnerId))
            assert.strictEqual(webhook.url, "https://partner.example/hooks")
            assert.strictEqual(Redacted.value(webhook.signingSecret), "whsec_1")
            assert.notInclude(JSON.stringify(webhook), "whsec_1")
            const missing = yield* Effect.flip(
              partners.setWebhook(crypto.randomUUID() as Ids.PartnerId, {
                url: "https://x.example",
                signingSecret: Redacted.make("s"),
              }),
            )
            assert.strictEqual(missing._tag, "NotFound")
          }),
        60_000,
      )
    })
  })
}
