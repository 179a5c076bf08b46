/**
 * Production on real providers, without their servers: the service process
 * starts with PARTNERPAY_ENV=production on PostgreSQL, its one-time codes on
 * Twilio Verify and bank linking on Plaid (their official SDKs, pointed at
 * local fakes that check every request and answer against the providers'
 * published documents), the other ports on HTTP bridges (the fake bridge).
 *
 * The walk: an operator creates a partner; the partner's token; Twilio out of
 * service (503 to the partner, retry later); a customer's login code started
 * at Twilio Verify, a wrong code refused by Twilio
 * (counted), the right one approved (the customer registered); KYC on the
 * bridge; the bank link through Plaid (public-token exchange, accounts with
 * masks); Plaid's item webhooks at POST /BankLinkWebhook/UpdateItem: the bank
 * asking the customer to log in again (recorded, 200), a forged
 * one refused (nothing changes), the customer's revocation of the account
 * (signed by Plaid) unlinking it, a repeat changing nothing, an old one
 * (replayed) refused. No request violates a provider's document.
 *
 * Not walked yet (docs/providers.md, "Not done yet"): KYB, payments and
 * payouts on Dwolla, the SMS reminder (it needs a verified company: nothing
 * verifies companies in production before Dwolla).
 */
import { createHash, generateKeyPairSync, sign } from "node:crypto"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { call, freshDatabase, tempDir } from "../faults/support.ts"
import * as FakeProvider from "../packages/app/test/providers/FakeProvider.ts"
import { Contract, documentsPresent, type Fake, startFake } from "../packages/app/test/providers/OpenApiContract.ts"
import { killAll, startService } from "../packages/app/test/support.ts"

const present = documentsPresent()
const cleanups: Array<() => void | Promise<void>> = []
afterAll(async () => {
  killAll()
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const adminToken = "an-operator-token-of-at-least-32-characters"
const serviceSid = "VAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
const bridgeSecret = "fake-provider-secret-of-32-characters-or-more"

/** Plaid's webhook signing key (the fake serves its public half at /webhook_verification_key/get). */
const plaidKeys = generateKeyPairSync("ec", { namedCurve: "P-256" })
const otherKeys = generateKeyPairSync("ec", { namedCurve: "P-256" })
const kid = "bfbd5111-8e33-4643-8ced-b2e642a72f3c"

/** The `Plaid-Verification` JWT of `body`, as Plaid makes it. */
const plaidJwt = (body: string, key = plaidKeys.privateKey, iat = Math.floor(Date.now() / 1000)) => {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
  const signed = `${part({ alg: "ES256", kid, typ: "JWT" })}.${part({
    iat,
    request_body_sha256: createHash("sha256").update(body).digest("hex"),
  })}`
  return `${signed}.${sign("sha256", Buffer.from(signed), { key, dsaEncoding: "ieee-p1363" }).toString("base64url")}`
}

describe.skipIf(!present)("production on real providers (fakes checked with the providers' documents)", () => {
  it.live("a customer logs in through Twilio Verify, links a bank account through Plaid, and Plaid revokes it", () =>
    Effect.gen(function* () {
      const verify = new Contract("Twilio Verify", "twilio-verify-v2.json")
      const plaid = new Contract("Plaid", "plaid-2020-09-14.yml")
      const checkPath = `/v2/Services/${serviceSid}/VerificationCheck`
      const twilio: Fake = yield* Effect.promise(() =>
        startFake(() => verify, {
          "/Verifications": {
            status: 201,
            body: verify.example("POST", `/v2/Services/${serviceSid}/Verifications`, 201),
          },
          "/VerificationCheck": { status: 200, body: verify.example("POST", checkPath, 200) },
        }),
      )
      const example = (path: string) => plaid.example("POST", path, 200)
      const plaidFake: Fake = yield* Effect.promise(() =>
        startFake(() => plaid, {
          "/link/token/create": { status: 200, body: example("/link/token/create") },
          "/item/public_token/exchange": { status: 200, body: example("/item/public_token/exchange") },
          "/accounts/get": { status: 200, body: example("/accounts/get") },
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
                x: plaidKeys.publicKey.export({ format: "jwk" }).x,
                y: plaidKeys.publicKey.export({ format: "jwk" }).y,
              },
              request_id: "RZ6Omi1bzzwDaLo",
            },
          },
        }),
      )
      cleanups.push(
        () => twilio.close(),
        () => plaidFake.close(),
      )
      const bridge = yield* FakeProvider.start()
      const database = freshDatabase("production")
      const data = tempDir("production")
      cleanups.push(database.drop, data.remove)

      const bridged = ["KYC", "MONEY_MOVEMENT", "CARD_PROCESSOR", "E_SIGNATURE"].flatMap((key) => [
        [`PARTNERPAY_PROVIDER_${key}_URL`, bridge.url],
        [`PARTNERPAY_PROVIDER_${key}_SECRET`, bridgeSecret],
        [`PARTNERPAY_PROVIDER_${key}_RETRIES`, "0"],
      ])
      const service = yield* Effect.promise(() =>
        startService(
          {
            PORT: "0",
            PARTNERPAY_ENV: "production",
            DATABASE_URL: database.url,
            PARTNERPAY_DATA_DIR: data.dir,
            PARTNERPAY_TOKEN_SECRET: "a-token-secret-of-at-least-32-bytes-long",
            PARTNERPAY_SECRET_PEPPER: "a-client-secret-pepper-of-at-least-32-bytes",
            PARTNERPAY_DATA_KEY: "d".repeat(64),
            PARTNERPAY_OTP_SECRET: "an-otp-secret-of-at-least-32-characters",
            PARTNERPAY_CHAT_SECRET: "a-chat-secret-of-at-least-32-characters",
            PARTNERPAY_ADMIN_TOKEN: adminToken,
            PARTNERPAY_PROVIDER_OTP: "twilio",
            PARTNERPAY_TWILIO_ACCOUNT_SID: "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            PARTNERPAY_TWILIO_AUTH_TOKEN: "a-twilio-auth-token",
            PARTNERPAY_TWILIO_VERIFY_SERVICE_SID: serviceSid,
            PARTNERPAY_TWILIO_BASE_URL: twilio.url,
            PARTNERPAY_PROVIDER_BANK_LINKING: "plaid",
            PARTNERPAY_PLAID_CLIENT_ID: "a-plaid-client-id",
            PARTNERPAY_PLAID_SECRET: "a-plaid-secret",
            PARTNERPAY_PLAID_ENV: "sandbox",
            PARTNERPAY_PLAID_BASE_URL: plaidFake.url,
            PARTNERPAY_PLAID_WEBHOOK_URL: "https://partnerpay.example.com/BankLinkWebhook/UpdateItem",
            ...Object.fromEntries(bridged),
          },
          60_000,
        ),
      )
      cleanups.push(() => service.stop().then(() => undefined))
      const base = service.url

      const partner = yield* Effect.promise(() =>
        call(base, "POST", "/admin/partners", { token: adminToken, body: { name: "Acme" } }),
      )
      assert.strictEqual(partner.status, 201, partner.text)
      const { clientId, clientSecret } = partner.body as { clientId: string; clientSecret: string }
      const token = yield* Effect.promise(() =>
        call(base, "POST", "/auth/token", { body: { ClientId: clientId, ClientSecret: clientSecret } }),
      )
      const partnerToken = (token.body as { AccessToken: string }).AccessToken

      // Twilio out of service: the partner is answered 503 (retry later), nothing is sent.
      const phoneNumber = "+15017122661"
      twilio.answer("/Verifications", { status: 503, body: { code: 20500, message: "down", status: 503 } })
      const outage = yield* Effect.promise(() =>
        call(base, "POST", "/Login/SendOtp", { token: partnerToken, body: { phoneNumber } }),
      )
      assert.strictEqual(outage.status, 503, outage.text)
      assert.strictEqual((outage.body as { code: string }).code, "PROVIDER_UNAVAILABLE")
      twilio.answer("/Verifications", {
        status: 201,
        body: verify.example("POST", `/v2/Services/${serviceSid}/Verifications`, 201),
      })

      // The login code: Twilio Verify makes and sends it.
      const sent = yield* Effect.promise(() =>
        call(base, "POST", "/Login/SendOtp", { token: partnerToken, body: { phoneNumber } }),
      )
      assert.strictEqual(sent.status, 200, sent.text)
      assert.deepStrictEqual(Object.fromEntries(new URLSearchParams(twilio.requests[1]?.body)), {
        To: phoneNumber,
        Channel: "sms",
      })
      const checkAnswer = verify.example("POST", checkPath, 200) as object
      twilio.answer(
        "/VerificationCheck",
        { status: 200, body: { ...checkAnswer, status: "pending", valid: false } },
        { status: 200, body: { ...checkAnswer, status: "approved", valid: true } },
      )
      const wrong = yield* Effect.promise(() =>
        call(base, "PUT", "/Login/CheckOtp", { token: partnerToken, body: { phoneNumber, code: "000000" } }),
      )
      assert.strictEqual(wrong.status, 422, wrong.text)
      assert.strictEqual((wrong.body as { code: string }).code, "OTP_INVALID")
      const right = yield* Effect.promise(() =>
        call(base, "PUT", "/Login/CheckOtp", { token: partnerToken, body: { phoneNumber, code: "424242" } }),
      )
      assert.strictEqual(right.status, 200, right.text)
      const customerToken = (right.body as { accessToken: string }).accessToken

      // KYC on the operator's bridge.
      bridge.script("start", [{ status: 200, body: { linkToken: "kyc-link", expiration: "2099-01-01T00:00:00.000Z" } }])
      bridge.script("check", [
        {
          status: 200,
          body: { status: "Verified", referenceId: "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f", redirectUrl: "" },
        },
      ])
      bridge.script("personal-data", [
        {
          status: 200,
          body: {
            firstName: "Ada",
            lastName: "Lovelace",
            birthDate: "1990-01-01",
            ssnLastFourDigits: "1234",
            emailAddress: "ada@example.com",
            phoneNumber,
          },
        },
      ])
      const kyc = yield* Effect.promise(() =>
        call(base, "POST", "/Verification/StartKyc", { token: customerToken, body: { deviceId: "device-1" } }),
      )
      assert.strictEqual(kyc.status, 200, kyc.text)
      const { tokenId } = kyc.body as { tokenId: string }
      let status: string | undefined
      for (let attempt = 0; attempt < 20 && status !== "Verified"; attempt++) {
        const checked = yield* Effect.promise(() =>
          call(base, "GET", "/Verification/CheckVerification", { token: customerToken }),
        )
        status = (checked.body as { status?: string }).status
        if (status !== "Verified") yield* Effect.sleep("100 millis")
      }
      assert.strictEqual(status, "Verified")

      // The bank link through Plaid: the public token exchanged, the chosen account with its mask.
      const accounts = (example("/accounts/get") as { accounts: Array<{ account_id: string; mask: string }> }).accounts
      const chosen = accounts[0]
      const linked = yield* Effect.promise(() =>
        call(base, "PUT", "/Account/Link", {
          token: customerToken,
          body: {
            tokenId,
            publicToken: "public-sandbox-token",
            linkAccountsMetadata: {
              linkSessionId: "session-1",
              institutionId: "ins_109508",
              accountIds: [chosen?.account_id],
            },
          },
        }),
      )
      assert.strictEqual(linked.status, 200, linked.text)
      assert.isTrue((linked.body as { isOk: boolean }).isOk, linked.text)
      const listed = yield* Effect.promise(() => call(base, "GET", "/Account/List", { token: customerToken }))
      assert.include(listed.text, String(chosen?.mask))
      assert.deepStrictEqual(
        plaidFake.requests.map((request) => request.path),
        ["/item/public_token/exchange", "/accounts/get"],
      )

      // Plaid's item webhooks: a forged one is refused and changes nothing; the customer revoking the
      // account (signed by Plaid) unlinks it, once; a replay of an old one is refused.
      const itemId = (example("/accounts/get") as { item: { item_id: string } }).item.item_id
      const revoked = JSON.stringify({
        webhook_type: "ITEM",
        webhook_code: "USER_ACCOUNT_REVOKED",
        item_id: itemId,
        account_id: chosen?.account_id,
        environment: "production",
      })
      const deliver = (body: string, verification: string) =>
        Effect.promise(() =>
          call(base, "POST", "/BankLinkWebhook/UpdateItem", {
            rawBody: body,
            headers: { "content-type": "application/json", "plaid-verification": verification },
          }),
        )
      const loginRequired = JSON.stringify({
        webhook_type: "ITEM",
        webhook_code: "ERROR",
        item_id: itemId,
        error: { error_type: "ITEM_ERROR", error_code: "ITEM_LOGIN_REQUIRED" },
        environment: "production",
      })
      const relink = yield* deliver(loginRequired, plaidJwt(loginRequired))
      assert.strictEqual(relink.status, 200, relink.text)
      const forged = yield* deliver(revoked, plaidJwt(revoked, otherKeys.privateKey))
      assert.strictEqual(forged.status, 401, forged.text)
      const stillLinked = yield* Effect.promise(() => call(base, "GET", "/Account/List", { token: customerToken }))
      assert.include(stillLinked.text, String(chosen?.mask))
      const genuine = yield* deliver(revoked, plaidJwt(revoked))
      assert.strictEqual(genuine.status, 200, genuine.text)
      const again = yield* deliver(revoked, plaidJwt(revoked))
      assert.strictEqual(again.status, 200, again.text)
      const replayed = yield* deliver(
        revoked,
        plaidJwt(revoked, plaidKeys.privateKey, Math.floor(Date.now() / 1000) - 600),
      )
      assert.strictEqual(replayed.status, 401, replayed.text)
      const unlinked = yield* Effect.promise(() => call(base, "GET", "/Account/List", { token: customerToken }))
      assert.notInclude(unlinked.text, String(chosen?.mask))

      // Every outbound call shows in /metrics by provider, operation and outcome.
      const metrics = yield* Effect.promise(() => fetch(`${base}/metrics`).then((response) => response.text()))
      for (const series of [
        /partnerpay_provider_calls_total\{[^}]*provider="Twilio Verify"[^}]*outcome="unavailable"[^}]*\} 1/,
        /partnerpay_provider_calls_total\{[^}]*operation="check verification"[^}]*outcome="ok"[^}]*\} 2/,
        /partnerpay_provider_calls_total\{[^}]*provider="Plaid"[^}]*operation="accounts"[^}]*outcome="ok"[^}]*\} 1/,
      ]) {
        assert.match(metrics, series)
      }

      // No request of the walk, and no answer of the fakes, violates a provider's document.
      assert.deepStrictEqual([...twilio.violations, ...plaidFake.violations], [])
      assert.notInclude(service.output.join("\n"), "a-twilio-auth-token")
      assert.notInclude(service.output.join("\n"), "a-plaid-secret")
    }).pipe(Effect.scoped),
  )
})
