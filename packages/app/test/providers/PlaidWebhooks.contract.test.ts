/**
 * Plaid's item webhooks verified as Plaid documents it, against a local fake
 * of Plaid serving the verification key (its requests and answers checked
 * against Plaid's document): a webhook signed by Plaid's key over this very
 * body, within 5 minutes, is decoded; a forged, altered or replayed one is
 * refused; the key is fetched once and cached; Plaid is asked for a key only
 * for a well-formed ES256 token, a key id it does not know is not asked again
 * for a while (negative cache), and lookups are bounded per minute.
 */
import { createHash, generateKeyPairSync, type KeyObject, sign } from "node:crypto"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import type * as PlaidBankLinker from "../../src/providers/PlaidBankLinker.ts"
import * as PlaidWebhooks from "../../src/providers/PlaidWebhooks.ts"
import { Contract, documentsPresent, type Fake, startFake } from "./OpenApiContract.ts"

const present = documentsPresent()

const kid = "bfbd5111-8e33-4643-8ced-b2e642a72f3c"
const now = Date.parse("2026-03-02T10:00:00Z")

const plaidKeys = generateKeyPairSync("ec", { namedCurve: "P-256" })
const otherKeys = generateKeyPairSync("ec", { namedCurve: "P-256" })

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

/** The `Plaid-Verification` JWT of `body`, as Plaid makes it (ES256 over header.claims). */
const jwtOf = (
  body: string,
  options: { key?: KeyObject; iat?: number; hashOf?: string; kid?: string; alg?: string } = {},
) => {
  const header = base64url({ alg: options.alg ?? "ES256", kid: options.kid ?? kid, typ: "JWT" })
  const claims = base64url({
    iat: options.iat ?? Math.floor(now / 1000),
    request_body_sha256: createHash("sha256")
      .update(options.hashOf ?? body)
      .digest("hex"),
  })
  const signature = sign("sha256", Buffer.from(`${header}.${claims}`), {
    key: options.key ?? plaidKeys.privateKey,
    dsaEncoding: "ieee-p1363",
  })
  return `${header}.${claims}.${signature.toString("base64url")}`
}

const loginRequired = JSON.stringify({
  webhook_type: "ITEM",
  webhook_code: "ERROR",
  item_id: "wz666MBjYWTp2PDzzggYhM6oWWmBb",
  error: { error_code: "ITEM_LOGIN_REQUIRED", error_type: "ITEM_ERROR" },
  environment: "production",
})

describe.skipIf(!present)("Plaid item webhooks, verified", () => {
  const plaid = present ? new Contract("Plaid", "plaid-2020-09-14.yml") : undefined
  const fakes: Array<Fake> = []
  afterAll(() => Promise.all(fakes.map((fake) => fake.close())))

  const start = Effect.fn(function* () {
    const jwk = plaidKeys.publicKey.export({ format: "jwk" })
    const fake = yield* Effect.promise(() =>
      startFake(() => plaid as Contract, {
        "/webhook_verification_key/get": {
          status: 200,
          body: {
            key: {
              alg: "ES256",
              created_at: 1560466150,
              crv: "P-256",
              expired_at: null,
              kid,
              kty: "EC",
              use: "sig",
              x: jwk.x,
              y: jwk.y,
            },
            request_id: "RZ6Omi1bzzwDaLo",
          },
        },
        "/identity_verification/get": {
          status: 200,
          body: (plaid as Contract).example("POST", "/identity_verification/get", 200),
        },
      }),
    )
    fakes.push(fake)
    const config: PlaidBankLinker.PlaidConfig = {
      clientId: "a-client-id",
      secret: Redacted.make("a-plaid-secret"),
      environment: "sandbox",
      baseUrl: fake.url,
      clientName: "partnerpay",
      timeoutMillis: 5000,
    }
    return { fake, verifier: PlaidWebhooks.makeVerifier(config, () => now) }
  })

  it.live("a webhook Plaid signed over this body is decoded, and asks the customer to re-link", () =>
    Effect.gen(function* () {
      const { fake, verifier } = yield* start()
      const webhook = yield* verifier.verify(loginRequired, jwtOf(loginRequired))
      assert.deepInclude(webhook, {
        webhookType: "ITEM",
        webhookCode: "ERROR",
        itemId: "wz666MBjYWTp2PDzzggYhM6oWWmBb",
        errorCode: "ITEM_LOGIN_REQUIRED",
        action: "Relink",
      })
      assert.deepStrictEqual(JSON.parse(fake.requests[0]?.body ?? "{}"), { key_id: kid })
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("the key is fetched once and cached for the next webhooks", () =>
    Effect.gen(function* () {
      const { fake, verifier } = yield* start()
      const revoked = JSON.stringify({
        webhook_type: "ITEM",
        webhook_code: "USER_ACCOUNT_REVOKED",
        item_id: "wz666MBjYWTp2PDzzggYhM6oWWmBb",
        account_id: "BxBXxLj1m4HMXBm9WZJyUg9XLd4rKEhw8Pb1J",
        environment: "production",
      })
      yield* verifier.verify(loginRequired, jwtOf(loginRequired))
      const second = yield* verifier.verify(revoked, jwtOf(revoked))
      assert.deepInclude(second, { action: "RemoveAccount", accountId: "BxBXxLj1m4HMXBm9WZJyUg9XLd4rKEhw8Pb1J" })
      assert.strictEqual(fake.requests.length, 1)
    }),
  )

  it.live("a forged webhook (signed by another key, or without the header) is refused", () =>
    Effect.gen(function* () {
      const { verifier } = yield* start()
      const forged = yield* Effect.flip(
        verifier.verify(loginRequired, jwtOf(loginRequired, { key: otherKeys.privateKey })),
      )
      assert.deepInclude(forged, { _tag: "PlaidWebhookRefused", reason: "the signature does not verify" })
      const bare = yield* Effect.flip(verifier.verify(loginRequired, undefined))
      assert.strictEqual(bare._tag, "PlaidWebhookRefused")
      const garbage = yield* Effect.flip(verifier.verify(loginRequired, "not.a.jwt"))
      assert.strictEqual(garbage._tag, "PlaidWebhookRefused")
    }),
  )

  it.live("an altered body is refused: the signature covers the hash of the body Plaid sent", () =>
    Effect.gen(function* () {
      const { verifier } = yield* start()
      const altered = loginRequired.replace("ITEM_LOGIN_REQUIRED", "INSTITUTION_DOWN")
      const refused = yield* Effect.flip(verifier.verify(altered, jwtOf(loginRequired)))
      assert.deepInclude(refused, { reason: "the body is not the one Plaid signed" })
    }),
  )

  it.live("a replayed webhook, signed more than 5 minutes ago, is refused", () =>
    Effect.gen(function* () {
      const { verifier } = yield* start()
      const old = jwtOf(loginRequired, { iat: Math.floor(now / 1000) - PlaidWebhooks.maxAgeSeconds - 1 })
      const refused = yield* Effect.flip(verifier.verify(loginRequired, old))
      assert.strictEqual(refused._tag, "PlaidWebhookRefused")
    }),
  )

  it.live(
    "an identity verification's status update names its customer (the client user id): the verdict is asked",
    () =>
      Effect.gen(function* () {
        const { fake, verifier } = yield* start()
        const updated = JSON.stringify({
          webhook_type: "IDENTITY_VERIFICATION",
          webhook_code: "STATUS_UPDATED",
          identity_verification_id: "idv_52xR9LKo77r1Np",
          environment: "production",
        })
        const webhook = yield* verifier.verify(updated, jwtOf(updated))
        assert.deepInclude(webhook, { action: "CheckIdentity", itemId: "idv_52xR9LKo77r1Np" })
        const customer = yield* verifier.customerOf(webhook.itemId)
        assert.strictEqual(customer, "your-db-id-3b24110")
        assert.deepStrictEqual(JSON.parse(fake.requests.at(-1)?.body ?? "{}"), {
          identity_verification_id: "idv_52xR9LKo77r1Np",
        })
        const nameless = JSON.stringify({ webhook_type: "IDENTITY_VERIFICATION", webhook_code: "STATUS_UPDATED" })
        const refused = yield* Effect.flip(verifier.verify(nameless, jwtOf(nameless)))
        assert.strictEqual(refused._tag, "PlaidWebhookRefused")
        assert.deepStrictEqual(fake.violations, [])
      }),
  )

  const unknownKey = {
    status: 400,
    body: {
      error_type: "INVALID_INPUT",
      error_code: "INVALID_WEBHOOK_VERIFICATION_KEY_ID",
      error_message: "invalid key_id provided",
      display_message: null,
      request_id: "m8MDnv9okwxFNBV",
    },
  }

  it.live("only a well-formed ES256 token makes the service ask Plaid for a key", () =>
    Effect.gen(function* () {
      const { fake, verifier } = yield* start()
      const valid = jwtOf(loginRequired)
      const [head, claims] = valid.split(".")
      const malformed = [
        jwtOf(loginRequired, { alg: "HS256" }),
        jwtOf(loginRequired, { kid: "../../etc/passwd" }),
        jwtOf(loginRequired, { kid: "k".repeat(129) }),
        `${head}.${claims}.${Buffer.alloc(63).toString("base64url")}`,
        jwtOf(loginRequired, { iat: Math.floor(now / 1000) - PlaidWebhooks.maxAgeSeconds - 1 }),
        jwtOf(loginRequired, { hashOf: "another body" }),
      ]
      for (const token of malformed) {
        const refused = yield* Effect.flip(verifier.verify(loginRequired, token))
        assert.strictEqual(refused._tag, "PlaidWebhookRefused", token)
      }
      assert.strictEqual(fake.requests.length, 0)
    }),
  )

  it.live("a key id Plaid does not know is asked once: the next tokens naming it are refused from the cache", () =>
    Effect.gen(function* () {
      const { fake, verifier } = yield* start()
      fake.answer("/webhook_verification_key/get", unknownKey)
      const stranger = jwtOf(loginRequired, { kid: "00000000-dead-beef-0000-000000000000" })
      for (let i = 0; i < 5; i++) {
        const refused = yield* Effect.flip(verifier.verify(loginRequired, stranger))
        assert.deepInclude(refused, { reason: "Plaid does not know the key that signed it" })
      }
      assert.strictEqual(fake.requests.length, 1)
    }),
  )

  it.live("key lookups are bounded: 30 tokens naming 30 key ids ask Plaid at most 10 times a minute", () =>
    Effect.gen(function* () {
      const { fake, verifier } = yield* start()
      fake.answer("/webhook_verification_key/get", unknownKey)
      const outcomes: Array<string> = []
      for (let i = 0; i < 30; i++) {
        const token = jwtOf(loginRequired, { kid: `random-kid-${i}` })
        outcomes.push((yield* Effect.flip(verifier.verify(loginRequired, token)))._tag)
      }
      assert.strictEqual(fake.requests.length, PlaidWebhooks.keyFetchesPerMinute)
      assert.deepStrictEqual(
        outcomes.slice(PlaidWebhooks.keyFetchesPerMinute),
        new Array(30 - PlaidWebhooks.keyFetchesPerMinute).fill("ProviderUnavailable"),
      )
    }),
  )
})
