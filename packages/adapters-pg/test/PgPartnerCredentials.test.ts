/** Partner credentials, partner administration and token generations on PGlite and PostgreSQL (fresh schema). */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { type Ids, PartnerCredentials, PersonalData, TokenGenerations } from "@partnerpay/domain"
import { Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgPartnerCredentials from "../src/PgPartnerCredentials.ts"
import * as PgPersonalDataVault from "../src/PgPersonalDataVault.ts"
import * as PgTokenGenerations from "../src/PgTokenGenerations.ts"
import { hashSecretScrypt } from "../src/SecretHash.ts"
import { databases } from "./readSideSupport.ts"

/** The master key sealing webhook signing secrets in these tests. */
const master = PgPersonalDataVault.parseMasterKey(PgPersonalDataVault.newMasterKeyText())

for (const database of databases) {
  describe(`partners on ${database.name}`, () => {
    const runtime = ManagedRuntime.make(
      Layer.mergeAll(PgPartnerCredentials.layer(), PgTokenGenerations.layer({ pollMillis: 100 })).pipe(
        Layer.provideMerge(PgPersonalDataVault.layer(master)),
        Layer.provideMerge(Migrations.layer),
        Layer.provideMerge(database.layer()),
      ),
    )
    const run = <A, E>(
      effect: Effect.Effect<
        A,
        E,
        | PartnerCredentials.PartnerCredentials
        | PgPartnerCredentials.Partners
        | SqlClient
        | TokenGenerations.TokenGenerations
        | PersonalData.PersonalDataVault
      >,
    ) => runtime.runPromise(effect)
    afterAll(() => runtime.dispose())
    const authenticate = (clientId: string, secret: string) =>
      Effect.flatMap(PartnerCredentials.PartnerCredentials, (c) => c.authenticate(clientId, Redacted.make(secret)))

    it("a created partner authenticates with its secret, shown once and stored only as a hash", {
      timeout: 60_000,
    }, async () => {
      await run(
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
          assert.match(rows[0]?.secret_hash ?? "", /^hmac-sha256\$/)
          assert.notInclude(rows[0]?.secret_hash ?? "", secret)
          assert.strictEqual(String(created.clientSecret), "<redacted>")
        }),
      )
    })

    it("pins a partner's API version at its first call and keeps it when a later version ships", {
      timeout: 60_000,
    }, async () => {
      await run(
        Effect.gen(function* () {
          const partners = yield* PgPartnerCredentials.Partners
          const created = yield* partners.create({ name: "Versioned" })
          assert.strictEqual(yield* partners.pinApiVersion(created.partnerId, "2026-11-25"), "2026-11-25")
          assert.strictEqual(yield* partners.pinApiVersion(created.partnerId, "2027-01-01"), "2026-11-25")
          // Kept with the partner: another process (a fresh cache) reads the same pin.
          const sql = yield* SqlClient
          const rows = yield* sql<{ api_version: string }>`
            SELECT api_version FROM partners WHERE partner_id = ${created.partnerId}::uuid`
          assert.strictEqual(rows[0]?.api_version, "2026-11-25")
          const other = yield* partners.create({ name: "Later" })
          assert.strictEqual(yield* partners.pinApiVersion(other.partnerId, "2027-01-01"), "2027-01-01")
        }),
      )
    })

    it("rotating the secret makes the old one stop working", { timeout: 60_000 }, async () => {
      await run(
        Effect.gen(function* () {
          const partners = yield* PgPartnerCredentials.Partners
          const created = yield* partners.create({ name: "Rotating" })
          const next = yield* partners.rotateSecret(created.partnerId)
          assert.isTrue(Option.isNone(yield* authenticate(created.clientId, Redacted.value(created.clientSecret))))
          assert.isTrue(Option.isSome(yield* authenticate(created.clientId, Redacted.value(next))))
          const missing = yield* Effect.flip(partners.rotateSecret(crypto.randomUUID() as Ids.PartnerId))
          assert.strictEqual(missing._tag, "NotFound")
        }),
      )
    })

    it("the sandbox upsert creates the partner once, with the given id, then only replaces the secret", {
      timeout: 60_000,
    }, async () => {
      await run(
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
      )
    })

    it("the webhook is stored per partner and its signing secret comes back redacted", {
      timeout: 60_000,
    }, async () => {
      await run(
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
      )
    })

    it("a webhook signing secret is stored sealed with the partner's key, never in plaintext", {
      timeout: 60_000,
    }, async () => {
      await run(
        Effect.gen(function* () {
          const partners = yield* PgPartnerCredentials.Partners
          const sql = yield* SqlClient
          const { partnerId } = yield* partners.create({ name: "Sealed" })
          const secret = "whsec_sealed-at-rest-0123456789"
          yield* partners.setWebhook(partnerId, {
            url: "https://partner.example/hooks",
            signingSecret: Redacted.make(secret),
          })
          const rows = yield* sql<{ row: string }>`SELECT row_to_json(p)::text AS row FROM partners p`
          for (const { row } of rows) assert.notInclude(row, secret)
          const [stored] = yield* sql<{ webhook_secret: string | null; webhook_secret_sealed: string | null }>`
            SELECT webhook_secret, webhook_secret_sealed FROM partners WHERE partner_id = ${partnerId}::uuid`
          assert.isNull(stored?.webhook_secret)
          assert.match(stored?.webhook_secret_sealed ?? "", /^pd1\./)
          const keys = yield* sql<{ subject: string }>`SELECT subject FROM personal_data_keys`
          assert.include(
            keys.map((key) => key.subject),
            PgPartnerCredentials.webhookSubject(partnerId),
          )
          const webhook = Option.getOrThrow(yield* partners.getWebhook(partnerId))
          assert.strictEqual(Redacted.value(webhook.signingSecret), secret)
        }),
      )
    })

    it("a signing secret an earlier version stored in plaintext is still read, then sealed and cleared", {
      timeout: 60_000,
    }, async () => {
      await run(
        Effect.gen(function* () {
          const partners = yield* PgPartnerCredentials.Partners
          const sql = yield* SqlClient
          const vault = yield* PersonalData.PersonalDataVault
          const { partnerId } = yield* partners.create({ name: "Legacy" })
          yield* sql`
            UPDATE partners SET webhook_url = 'https://legacy.example/hooks', webhook_secret = 'whsec_legacy-plain'
            WHERE partner_id = ${partnerId}::uuid`
          const secretOf = Effect.map(partners.getWebhook(partnerId), (found) =>
            Redacted.value(Option.getOrThrow(found).signingSecret),
          )
          assert.strictEqual(yield* secretOf, "whsec_legacy-plain")
          assert.strictEqual(yield* PgPartnerCredentials.sealStoredSecrets(sql, vault), 1)
          const [stored] = yield* sql<{ webhook_secret: string | null; webhook_secret_sealed: string | null }>`
            SELECT webhook_secret, webhook_secret_sealed FROM partners WHERE partner_id = ${partnerId}::uuid`
          assert.isNull(stored?.webhook_secret)
          assert.notInclude(stored?.webhook_secret_sealed ?? "", "whsec_legacy-plain")
          assert.strictEqual(yield* secretOf, "whsec_legacy-plain")
          assert.strictEqual(yield* PgPartnerCredentials.sealStoredSecrets(sql, vault), 0)
        }),
      )
    })

    it("a legacy scrypt hash still authenticates and is replaced by the HMAC form on that login", {
      timeout: 60_000,
    }, async () => {
      await run(
        Effect.gen(function* () {
          const partners = yield* PgPartnerCredentials.Partners
          const created = yield* partners.create({ name: "Legacy" })
          const secret = Redacted.value(created.clientSecret)
          const sql = yield* SqlClient
          const legacy = yield* hashSecretScrypt(created.clientSecret, { N: 2 ** 10, r: 8, p: 1 })
          yield* sql`UPDATE partners SET secret_hash = ${legacy} WHERE partner_id = ${created.partnerId}::uuid`
          const stored = () =>
            Effect.map(
              sql<{
                secret_hash: string
              }>`SELECT secret_hash FROM partners WHERE partner_id = ${created.partnerId}::uuid`,
              (rows) => rows[0]?.secret_hash ?? "",
            )
          assert.isTrue(Option.isNone(yield* authenticate(created.clientId, `${secret}x`)))
          assert.strictEqual(yield* stored(), legacy)
          assert.isTrue(Option.isSome(yield* authenticate(created.clientId, secret)))
          assert.match(yield* stored(), /^hmac-sha256\$/)
          assert.isTrue(Option.isSome(yield* authenticate(created.clientId, secret)))
          assert.isTrue(Option.isNone(yield* authenticate(created.clientId, `${secret}x`)))
        }),
      )
    })

    it("a token generation starts at 0, each bump is above every earlier generation, and current reads the store", {
      timeout: 60_000,
    }, async () => {
      await run(
        Effect.gen(function* () {
          const generations = yield* TokenGenerations.TokenGenerations
          const a = `partner:${crypto.randomUUID()}`
          const b = `customer:${crypto.randomUUID()}`
          assert.strictEqual(generations.known(a), 0)
          assert.strictEqual(yield* generations.current(a), 0)
          const first = yield* generations.bump(a)
          const other = yield* generations.bump(b)
          const second = yield* generations.bump(a)
          assert.isAbove(first, 0)
          assert.isAbove(other, first)
          assert.isAbove(second, other)
          assert.strictEqual(generations.known(a), second)
          assert.strictEqual(yield* generations.current(a), second)
        }),
      )
    })

    it("a bump made by another process (straight in the table) is learnt by polling, without a read per check", {
      timeout: 60_000,
    }, async () => {
      await run(
        Effect.gen(function* () {
          const generations = yield* TokenGenerations.TokenGenerations
          const sql = yield* SqlClient
          const subject = `partner:${crypto.randomUUID()}`
          yield* sql`
            INSERT INTO token_generations (subject, generation) VALUES (${subject}, nextval('token_generation_seq'))`
          // Polls every 100 ms here: wait for it (bounded), never a timed assertion.
          for (let i = 0; i < 100 && generations.known(subject) === 0; i++) yield* Effect.sleep("50 millis")
          assert.isAbove(generations.known(subject), 0)
        }),
      )
    })
  })
}
