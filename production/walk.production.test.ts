/**
 * Production on real providers, without their servers: the service process
 * starts with PARTNERPAY_ENV=production on PostgreSQL, its one-time codes on
 * Twilio Verify and bank linking on Plaid (their official SDKs, pointed at
 * local fakes that check every request and answer against the providers'
 * published documents), and nothing else: no card processor, e-signature or
 * push provider (optional capabilities: the start lists them as off, and a card
 * route answers 422 FEATURE_NOT_AVAILABLE).
 *
 * The walk: an operator creates a partner; the partner's token; a company
 * registered, submitted to Dwolla by the KYB worker (Dwolla out of service at
 * the first attempt: submitted again after the backoff; a verified business
 * customer with its controller and beneficial owner; its verdict polled:
 * Dwolla asks for a document, which the partner sees as the Requirement
 * DocumentRequired and one COMPANY_VERIFICATION_ACTION_REQUIRED),
 * verified by Dwolla's signed webhook at POST /ProviderWebhooks/Dwolla (a
 * forged one refused, a repeat and a later contrary one changing nothing: one
 * COMPANY_VERIFICATION_STATUS_CHANGED); Twilio out of
 * service (503 to the partner, retry later); a customer's login code started
 * at Twilio Verify, a wrong code refused by Twilio
 * (counted), the right one approved (the customer registered); KYC on Plaid
 * Identity Verification (the KYC start's linkToken on the operator's template,
 * Pending while active, verified by Plaid's signed IDENTITY_VERIFICATION
 * webhook, a forged one refused); the bank link through Plaid (public-token exchange, accounts with
 * masks, each account's Plaid processor token made into a Dwolla funding source
 * of the payer's Dwolla customer, named by the verified identity); payments on Dwolla: a payment accepted, its debit a
 * Dwolla transfer with an Idempotency-Key from the payer's funding source to
 * the master funding source, Paid on Dwolla's transfer-completed webhook; a
 * second one failed R01 by Dwolla's transfer-failed webhook (the code asked of
 * Dwolla); Plaid's item webhooks at POST /BankLinkWebhook/UpdateItem: the bank
 * asking the customer to log in again (recorded, 200), a forged
 * one refused (nothing changes), the customer's revocation of the account
 * (signed by Plaid) unlinking it, a repeat changing nothing, an old one
 * (replayed) refused. No request violates a provider's document.
 *
 * Then a payout account: the available 12.34 paid out through Dwolla (the
 * account's funding source made on the company's customer, a transfer keyed by
 * the payout id), Paid on Dwolla's webhook.
 *
 * Then a partial refund of the paid payment (its own transfer back to the
 * payer, keyed by the refund id, Completed on Dwolla's webhook) and a late R10
 * return of it (Dwolla fails the processed transfer: Returned).
 *
 * Dwolla out of service at a debit's first transfer: tried again with the same
 * Idempotency-Key, nothing lost. Last, an SMS reminder of a request due
 * tomorrow through Twilio Messaging.
 */
import { createHash, createHmac, generateKeyPairSync, sign } from "node:crypto"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { call, companyBody, freshDatabase, tempDir, tomorrow } from "../faults/support.ts"
import * as DwollaFake from "../packages/app/test/providers/DwollaFake.ts"
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
const dwollaWebhookSecret = "a-dwolla-webhook-secret"
/** The replaced subscription's secret, still accepted during a roll. */
const previousDwollaWebhookSecret = "the-replaced-dwolla-webhook-secret"
const masterFundingSource = "b268f6b9-db3b-4ecc-83a2-8823a53ec8b7"

/** A Dwolla webhook about `resourceId`, as Dwolla sends it, and its `X-Request-Signature-SHA-256`. */
const dwollaEvent = (id: string, topic: string, resourceId: string, secret = dwollaWebhookSecret) => {
  const body = JSON.stringify({
    _links: {
      self: { href: `https://api-sandbox.dwolla.com/events/${id}` },
      resource: { href: `https://api-sandbox.dwolla.com/customers/${resourceId}` },
    },
    id,
    resourceId,
    topic,
    timestamp: new Date().toISOString(),
    created: new Date().toISOString(),
  })
  return { body, signature: createHmac("sha256", secret).update(body).digest("hex") }
}

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
  it.live(
    "Dwolla verifies a company; Twilio and Plaid a customer; Dwolla moves payments, R01, a refund, R10, a payout",
    () =>
      Effect.gen(function* () {
        const verify = new Contract("Twilio Verify", "twilio-verify-v2.json")
        const twilioApi = new Contract("Twilio API", "twilio-api-v2010.json")
        const messagingServiceSid = "MGaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        const messagesPath = "/2010-04-01/Accounts/ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/Messages.json"
        const plaid = new Contract("Plaid", "plaid-2020-09-14.yml")
        const checkPath = `/v2/Services/${serviceSid}/VerificationCheck`
        const twilio: Fake = yield* Effect.promise(() =>
          startFake((path) => (path.startsWith("/v2/") ? verify : twilioApi), {
            "/Messages.json": { status: 201, body: twilioApi.example("POST", messagesPath, 201) },
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
            "/processor/token/create": { status: 200, body: example("/processor/token/create") },
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
        const dwolla = yield* Effect.promise(() => DwollaFake.start())
        cleanups.push(
          () => twilio.close(),
          () => plaidFake.close(),
          () => dwolla.close(),
        )
        const database = freshDatabase("production")
        const data = tempDir("production")
        cleanups.push(database.drop, data.remove)

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
              PARTNERPAY_PROVIDER_SMS: "twilio",
              PARTNERPAY_TWILIO_MESSAGING_SERVICE_SID: messagingServiceSid,
              PARTNERPAY_REMINDER_DAYS: "1",
              PARTNERPAY_PROVIDER_BANK_LINKING: "plaid",
              PARTNERPAY_PLAID_CLIENT_ID: "a-plaid-client-id",
              PARTNERPAY_PLAID_SECRET: "a-plaid-secret",
              PARTNERPAY_PLAID_ENV: "sandbox",
              PARTNERPAY_PLAID_BASE_URL: plaidFake.url,
              PARTNERPAY_PLAID_WEBHOOK_URL: "https://partnerpay.example.com/BankLinkWebhook/UpdateItem",
              PARTNERPAY_PROVIDER_KYC: "plaid",
              PARTNERPAY_PLAID_IDV_TEMPLATE_ID: "idvtmp_4FrXJvfQU3zGUR",
              PARTNERPAY_PROVIDER_KYB: "dwolla",
              PARTNERPAY_DWOLLA_KEY: "a-dwolla-key",
              PARTNERPAY_DWOLLA_SECRET: "a-dwolla-secret",
              PARTNERPAY_DWOLLA_ENVIRONMENT: "sandbox",
              PARTNERPAY_DWOLLA_BASE_URL: dwolla.url,
              PARTNERPAY_DWOLLA_WEBHOOK_SECRET: dwollaWebhookSecret,
              PARTNERPAY_DWOLLA_WEBHOOK_SECRET_PREVIOUS: previousDwollaWebhookSecret,
              PARTNERPAY_DWOLLA_BUSINESS_CLASSIFICATION: "9ed3f670-7d6f-11e3-b1ce-5404a6144203",
              PARTNERPAY_PROVIDER_MONEY_MOVEMENT: "dwolla",
              PARTNERPAY_DWOLLA_MASTER_FUNDING_SOURCE: masterFundingSource,
              PARTNERPAY_MONEY_MOVEMENT_POLL_MS: "200",
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

        // Started on Twilio, Plaid and Dwolla alone: the optional capabilities without a provider are
        // listed at the start, and a card route answers 422 FEATURE_NOT_AVAILABLE naming the capability.
        // Log lines reach stdout in batches: wait for it.
        let off: string | undefined
        for (let wait = 0; wait < 100 && off === undefined; wait++) {
          off = service.output.find((line) => line.includes("optional capabilities off"))
          if (off === undefined) yield* Effect.sleep("50 millis")
        }
        if (off === undefined) return assert.fail(`no capability listed as off:\n${service.output.join("\n")}`)
        for (const key of ["CARD_PROCESSOR", "E_SIGNATURE", "PUSH", "EMAIL"])
          assert.include(off, `[PARTNERPAY_PROVIDER_${key}]`, service.output.join("\n"))
        const cardless = yield* Effect.promise(() =>
          call(base, "POST", "/cardpayment", {
            token: partnerToken,
            body: {
              merchantId: "3f1c2b1e-8a3d-4c2e-9f5a-2b7d1e0c4a6f",
              amount: { value: 12.34, currencyCode: "USD" },
              last4: "4242",
              brand: "visa",
              externalReference: "walk-terminal-1",
            },
          }),
        )
        assert.strictEqual(cardless.status, 422, cardless.text)
        assert.strictEqual((cardless.body as { code: string }).code, "FEATURE_NOT_AVAILABLE")
        assert.include((cardless.body as { detail: string }).detail, "card processor")

        // KYB on Dwolla: the company is submitted by the KYB worker as a verified business customer (its
        // verdict polled: "document", not final), then verified by Dwolla's signed webhook; a forged webhook
        // changes nothing, a repeat neither, and a later contrary one cannot undo the verdict.
        // Dwolla out of service at the first submission: retried after the backoff (kept in the database).
        dwolla.answer(
          "POST /customers",
          { status: 503, contentType: DwollaFake.hal, body: { code: "ServerError", message: "down" } },
          {
            status: 201,
            contentType: DwollaFake.hal,
            headers: { location: `${dwolla.url}/customers/${DwollaFake.customerId}` },
          },
        )
        const registered = yield* Effect.promise(() =>
          call(base, "POST", "/Company/Create", {
            token: partnerToken,
            body: companyBody({ companyReferenceId: "walk-kyb" }),
          }),
        )
        assert.strictEqual(registered.status, 200, registered.text)
        const companyId = (registered.body as { companyId: string }).companyId
        const statusOf = () =>
          Effect.promise(() =>
            call(base, "GET", `/company/status?companyId=${companyId}`, { token: partnerToken }),
          ).pipe(Effect.map((answer) => (answer.body as { Status: string }).Status))
        const polled = `GET /customers/${DwollaFake.customerId}`
        for (let attempt = 0; attempt < 400; attempt++) {
          if (dwolla.requests.some((request) => `${request.method} ${request.path}` === polled)) break
          yield* Effect.sleep("50 millis")
        }
        assert.deepStrictEqual(
          dwolla.requests.map((request) => `${request.method} ${request.path}`),
          [
            "POST /token",
            "GET /customers",
            "POST /customers",
            "GET /customers",
            "POST /customers",
            `GET /customers/${DwollaFake.customerId}/beneficial-owners`,
            `POST /customers/${DwollaFake.customerId}/beneficial-owners`,
            `POST /customers/${DwollaFake.customerId}/beneficial-ownership`,
            polled,
          ],
        )
        assert.strictEqual(JSON.parse(dwolla.requests[4]?.body ?? "{}").correlationId, companyId)
        assert.strictEqual(yield* statusOf(), "Unverified")
        // Dwolla's "document" (polled) is a requirement the partner sees: the company stays Unverified.
        let requirement: string | undefined
        for (let attempt = 0; attempt < 100 && requirement === undefined; attempt++) {
          const answer = yield* Effect.promise(() =>
            call(base, "GET", `/company/status?companyId=${companyId}`, { token: partnerToken }),
          )
          requirement = (answer.body as { Requirement?: string }).Requirement
          if (requirement === undefined) yield* Effect.sleep("50 millis")
        }
        assert.strictEqual(requirement, "DocumentRequired")
        const dwollaWebhook = (event: { body: string; signature: string }) =>
          Effect.promise(() =>
            call(base, "POST", "/ProviderWebhooks/Dwolla", {
              rawBody: event.body,
              headers: { "content-type": "application/json", "x-request-signature-sha-256": event.signature },
            }),
          )
        const verified = dwollaEvent("3b5d2a4e-0f6b-4d11-9a51-6c1f0e7d2a01", "customer_verified", DwollaFake.customerId)
        const forgedKyb = yield* dwollaWebhook({
          ...verified,
          signature: dwollaEvent("x", "customer_verified", DwollaFake.customerId, "not-the-secret").signature,
        })
        assert.strictEqual(forgedKyb.status, 401, forgedKyb.text)
        assert.strictEqual(yield* statusOf(), "Unverified")
        const genuineKyb = yield* dwollaWebhook(verified)
        assert.strictEqual(genuineKyb.status, 200, genuineKyb.text)
        assert.strictEqual(yield* statusOf(), "Verified")
        // The repeat comes from the replaced subscription (a secret roll): accepted, and it changes nothing.
        const repeatedKyb = yield* dwollaWebhook({
          ...verified,
          signature: createHmac("sha256", previousDwollaWebhookSecret).update(verified.body).digest("hex"),
        })
        assert.strictEqual(repeatedKyb.status, 200, repeatedKyb.text)
        const contrary = yield* dwollaWebhook(
          dwollaEvent("5c7e9a1b-2d3f-4a5b-8c6d-7e8f9a0b1c2d", "customer_suspended", DwollaFake.customerId),
        )
        assert.strictEqual(contrary.status, 200, contrary.text)
        assert.strictEqual(yield* statusOf(), "Verified")
        const events = yield* Effect.promise(() => call(base, "GET", "/Events", { token: partnerToken }))
        const changes = (events.body as { data: Array<{ type?: string; data: { CompanyId?: string } }> }).data.filter(
          (event) =>
            event.data.CompanyId === companyId && JSON.stringify(event).includes("COMPANY_VERIFICATION_STATUS_CHANGED"),
        )
        assert.strictEqual(changes.length, 1, events.text)
        const asked = (events.body as { data: Array<{ data: { CompanyId?: string } }> }).data.filter(
          (event) =>
            event.data.CompanyId === companyId &&
            JSON.stringify(event).includes("COMPANY_VERIFICATION_ACTION_REQUIRED"),
        )
        assert.strictEqual(asked.length, 1, events.text)

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

        // KYC on Plaid Identity Verification: the KYC start's linkToken opens the operator's template; the
        // customer's poll finds it still active (Pending); Plaid's signed IDENTITY_VERIFICATION webhook names
        // the verification, whose customer (client user id) gets the verdict a poll would: Verified, with the
        // confirmed person (the SSN's last four digits only). A forged one changes nothing.
        const { registrationId } = right.body as { registrationId: string }
        const idv = example("/identity_verification/get") as Record<string, unknown>
        const idvUser = idv.user as Record<string, unknown>
        const verification = (status: string) => ({
          ...idv,
          id: "idv_52xR9LKo77r1Np",
          client_user_id: registrationId,
          status,
          user: {
            ...idvUser,
            name: { given_name: "Ada", family_name: "Lovelace" },
            email_address: "ada@example.com",
            phone_number: phoneNumber,
            date_of_birth: "1990-01-01",
          },
        })
        const listedIdv = (status: string) => ({
          identity_verifications: [verification(status)],
          next_cursor: null,
          request_id: "saKrIBuEB9qJZng",
        })
        plaidFake.answer("/identity_verification/list", { status: 200, body: listedIdv("active") })
        plaidFake.answer("/identity_verification/get", { status: 200, body: verification("success") })
        plaidFake.answer("/link/token/create", {
          status: 200,
          body: { ...(example("/link/token/create") as object), expiration: "2099-01-01T00:00:00Z" },
        })
        const kyc = yield* Effect.promise(() =>
          call(base, "POST", "/Verification/StartKyc", { token: customerToken, body: { deviceId: "device-1" } }),
        )
        assert.strictEqual(kyc.status, 200, kyc.text)
        const { tokenId } = kyc.body as { tokenId: string }
        const idvLinkToken = JSON.parse(plaidFake.requests.at(-1)?.body ?? "{}")
        assert.deepStrictEqual(idvLinkToken.products, ["identity_verification"])
        assert.deepStrictEqual(idvLinkToken.identity_verification, { template_id: "idvtmp_4FrXJvfQU3zGUR" })
        assert.strictEqual(idvLinkToken.user.client_user_id, registrationId)
        const kycStatus = () =>
          Effect.promise(() => call(base, "GET", "/Verification/CheckVerification", { token: customerToken })).pipe(
            Effect.map((checked) => (checked.body as { status?: string }).status),
          )
        assert.strictEqual(yield* kycStatus(), "Pending")
        plaidFake.answer("/identity_verification/list", { status: 200, body: listedIdv("success") })
        const idvUpdated = JSON.stringify({
          webhook_type: "IDENTITY_VERIFICATION",
          webhook_code: "STATUS_UPDATED",
          identity_verification_id: "idv_52xR9LKo77r1Np",
          environment: "production",
        })
        const deliverToPlaidHook = (body: string, verificationJwt: string) =>
          Effect.promise(() =>
            call(base, "POST", "/BankLinkWebhook/UpdateItem", {
              rawBody: body,
              headers: { "content-type": "application/json", "plaid-verification": verificationJwt },
            }),
          )
        const forgedIdv = yield* deliverToPlaidHook(idvUpdated, plaidJwt(idvUpdated, otherKeys.privateKey))
        assert.strictEqual(forgedIdv.status, 401, forgedIdv.text)
        const personalBefore = yield* Effect.promise(() =>
          call(base, "GET", "/Verification/PersonalData", { token: customerToken }),
        )
        assert.strictEqual(personalBefore.status, 404, personalBefore.text)
        const idvWebhook = yield* deliverToPlaidHook(idvUpdated, plaidJwt(idvUpdated))
        assert.strictEqual(idvWebhook.status, 200, idvWebhook.text)
        const personal = yield* Effect.promise(() =>
          call(base, "GET", "/Verification/PersonalData", { token: customerToken }),
        )
        assert.strictEqual(personal.status, 200, personal.text)
        assert.include(personal.text, "Lovelace")
        assert.include(personal.text, "6789")
        assert.notInclude(personal.text, "123456789")
        assert.strictEqual(yield* kycStatus(), "Verified")
        const beforeLink = plaidFake.requests.length

        // The bank link through Plaid: the public token exchanged, the chosen account with its mask.
        const accounts = (example("/accounts/get") as { accounts: Array<{ account_id: string; mask: string }> })
          .accounts
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
          plaidFake.requests.slice(beforeLink).map((request) => request.path),
          ["/item/public_token/exchange", "/accounts/get", "/processor/token/create"],
        )

        // Payments on Dwolla: the payer's funding source was made when the account was linked (the Plaid

        // processor token, on the payer's unverified Dwolla customer named by KYC).
        const bankAccountId = (listed.body as { accounts: Array<{ accountId: string }> }).accounts[0]?.accountId ?? ""
        const payerCustomer = dwolla.requests.find(
          (request) => request.path === "/customers" && request.body.includes('"unverified"'),
        )
        assert.deepStrictEqual(JSON.parse(payerCustomer?.body ?? "{}"), {
          type: "unverified",
          firstName: "Ada",
          lastName: "Lovelace",
          email: "ada@example.com",
          correlationId: registrationId,
        })
        const pay = Effect.fn(function* (description: string) {
          const created = yield* Effect.promise(() =>
            call(base, "POST", "/Payment/Create", {
              token: partnerToken,
              body: {
                companyId,
                payerRegistrationId: registrationId,
                amount: { value: 12.34, currencyCode: "USD" },
                description,
                dueDate: tomorrow(),
              },
            }),
          )
          assert.strictEqual(created.status, 200, created.text)
          const paymentRequestId = (created.body as { paymentRequestId: string }).paymentRequestId
          const accepted = yield* Effect.promise(() =>
            call(base, "POST", `/Transaction/PaymentRequest/${paymentRequestId}/Accept`, {
              token: customerToken,
              body: { bankAccountId, acceptDebitAuth: false, transferDescription: "" },
            }),
          )
          assert.strictEqual(accepted.status, 200, accepted.text)
          const transfers = () => dwolla.requests.filter((request) => request.path === "/transfers")
          const before = transfers().length
          for (let attempt = 0; attempt < 200 && transfers().length === before; attempt++) {
            yield* Effect.sleep("50 millis")
          }
          const transfer = transfers()[before]
          assert.isDefined(transfer, "the originator made no Dwolla transfer")
          assert.match(String(transfer?.headers["idempotency-key"]), /^[0-9a-f-]{36}$/)
          const body = JSON.parse(transfer?.body ?? "{}")
          assert.deepStrictEqual(body.amount, { value: "12.34", currency: "USD" })
          assert.strictEqual(body._links.source.href, `${dwolla.url}/funding-sources/${DwollaFake.fundingSourceId}`)
          assert.strictEqual(body._links.destination.href, `${dwolla.url}/funding-sources/${masterFundingSource}`)
          return { paymentRequestId, correlationId: String(body.correlationId) }
        })
        const paymentOf = (paymentRequestId: string) =>
          Effect.promise(() => call(base, "GET", `/Payment/${paymentRequestId}`, { token: partnerToken }))
        /** Dwolla's answer to `GET /transfers/{id}`: still pending, with our movement id as correlation id. */
        const pendingTransfer = (id: string, correlationId?: string) =>
          dwolla.answer(`/transfers/${id}`, {
            status: 200,
            contentType: DwollaFake.hal,
            body: {
              _links: { self: { href: `${dwolla.url}/transfers/${id}` } },
              id,
              status: "pending",
              amount: { value: "12.34", currency: "USD" },
              created: "2026-11-26T10:00:00.000Z",
              ...(correlationId === undefined ? {} : { correlationId }),
            },
          })

        // A payment: the Dwolla transfer completes (Dwolla's webhook, which may come before the originator
        // recorded the transfer's reference: the correlation id names it): Paid.
        // Dwolla out of service at the first attempt of its transfer: the originator tries again on a later
        // round with the same Idempotency-Key (nothing lost, nothing doubled).
        dwolla.answer(
          "/transfers",
          { status: 503, contentType: DwollaFake.hal, body: { code: "ServerError", message: "down" } },
          {
            status: 201,
            contentType: DwollaFake.hal,
            headers: { location: `${dwolla.url}/transfers/${DwollaFake.transferId}` },
          },
        )
        const transferAttempts = () => dwolla.requests.filter((request) => request.path === "/transfers")
        const attemptsBefore = transferAttempts().length
        const paid = yield* pay("Invoice 1")
        for (let attempt = 0; attempt < 400 && transferAttempts().length < attemptsBefore + 2; attempt++) {
          yield* Effect.sleep("50 millis")
        }
        const [refusedAttempt, retriedAttempt] = transferAttempts().slice(attemptsBefore)
        assert.isDefined(retriedAttempt, "the transfer was not tried again after Dwolla's outage")
        assert.strictEqual(retriedAttempt?.headers["idempotency-key"], refusedAttempt?.headers["idempotency-key"])
        assert.strictEqual(retriedAttempt?.body, refusedAttempt?.body)
        pendingTransfer(DwollaFake.transferId, paid.correlationId)
        const completed = yield* dwollaWebhook(
          dwollaEvent("7a1c2e3f-4b5d-4e6f-8a9b-0c1d2e3f4a5b", "customer_transfer_completed", DwollaFake.transferId),
        )
        assert.strictEqual(completed.status, 200, completed.text)
        assert.include((yield* paymentOf(paid.paymentRequestId)).text, '"Paid"')

        // A second payment whose transfer fails R01 (insufficient funds): Failed with the code.
        const secondTransfer = "2f8e4c6a-1b3d-4f5e-9a7b-8c6d4e2f0a1b"
        dwolla.answer("/transfers", {
          status: 201,
          contentType: DwollaFake.hal,
          headers: { location: `${dwolla.url}/transfers/${secondTransfer}` },
        })
        dwolla.answer("/failure", {
          status: 200,
          contentType: DwollaFake.hal,
          body: { code: "R01", description: "Insufficient Funds" },
        })
        pendingTransfer(secondTransfer)
        const returned = yield* pay("Invoice 2")
        pendingTransfer(secondTransfer, returned.correlationId)
        const failed = yield* dwollaWebhook(
          dwollaEvent("9c8b7a6f-5e4d-4c3b-8a2f-1e0d9c8b7a6f", "customer_transfer_failed", secondTransfer),
        )
        assert.strictEqual(failed.status, 200, failed.text)
        const failedPayment = (yield* paymentOf(returned.paymentRequestId)).text
        assert.include(failedPayment, '"Failed"')
        assert.include(failedPayment, "R01")

        // A payout: with a payout account, the payout worker pays the available 12.34 out: the account's
        // funding source made on the company's Dwolla customer, a transfer from the master funding source
        // keyed by the payout id; Dwolla's transfer-completed webhook: Paid.
        const payoutTransfer = "3c9d5e7f-0a1b-4c2d-8e3f-4a5b6c7d8e9f"
        dwolla.answer("/transfers", {
          status: 201,
          contentType: DwollaFake.hal,
          headers: { location: `${dwolla.url}/transfers/${payoutTransfer}` },
        })
        pendingTransfer(payoutTransfer)
        const transfersBefore = dwolla.requests.filter((request) => request.path === "/transfers").length
        const account = yield* Effect.promise(() =>
          call(base, "PUT", `/Company/${companyId}/PayoutAccount`, {
            token: partnerToken,
            body: {
              accountHolderName: "Walk Plumbing LLC",
              routingNumber: "011000015",
              accountNumber: "123456789",
              accountType: "Checking",
            },
          }),
        )
        assert.strictEqual(account.status, 200, account.text)
        const payoutTransfers = () => dwolla.requests.filter((request) => request.path === "/transfers")
        for (let attempt = 0; attempt < 200 && payoutTransfers().length === transfersBefore; attempt++) {
          yield* Effect.sleep("50 millis")
        }
        const fundingSource = dwolla.requests.find(
          (request) =>
            request.path === `/customers/${DwollaFake.customerId}/funding-sources` &&
            request.body.includes("routingNumber"),
        )
        assert.deepStrictEqual(
          [
            JSON.parse(fundingSource?.body ?? "{}").routingNumber,
            JSON.parse(fundingSource?.body ?? "{}").bankAccountType,
          ],
          ["011000015", "checking"],
        )
        const payout = payoutTransfers()[transfersBefore]
        const payoutBody = JSON.parse(payout?.body ?? "{}")
        assert.deepStrictEqual(payoutBody._links, {
          source: { href: `${dwolla.url}/funding-sources/${masterFundingSource}` },
          destination: { href: `${dwolla.url}/funding-sources/${DwollaFake.fundingSourceId}` },
        })
        assert.deepStrictEqual(payoutBody.amount, { value: "12.34", currency: "USD" })
        assert.strictEqual(payout?.headers["idempotency-key"], payoutBody.correlationId)
        pendingTransfer(payoutTransfer, payoutBody.correlationId)
        const payoutCompleted = yield* dwollaWebhook(
          dwollaEvent("4d6f8a0c-2e4a-4c6e-9a0c-2e4a6c8e0a2c", "customer_transfer_completed", payoutTransfer),
        )
        assert.strictEqual(payoutCompleted.status, 200, payoutCompleted.text)
        const payouts = yield* Effect.promise(() =>
          call(base, "GET", `/Payouts?companyId=${companyId}`, { token: partnerToken }),
        )
        const paidOut = (payouts.body as { data: Array<{ payoutId: string; status: string }> }).data
        assert.deepStrictEqual(
          paidOut.map((entry) => [entry.payoutId, entry.status]),
          [[payoutBody.correlationId, "Paid"]],
          payouts.text,
        )

        // A refund of the paid payment: its own Dwolla transfer, from the master funding source back to the
        // payer, keyed by the refund id; Completed on Dwolla's webhook.
        const refundTransfer = "5e7a9c1e-3b5d-4f7a-9c1e-3b5d7f9a1c3e"
        dwolla.answer("/transfers", {
          status: 201,
          contentType: DwollaFake.hal,
          headers: { location: `${dwolla.url}/transfers/${refundTransfer}` },
        })
        pendingTransfer(refundTransfer)
        const beforeRefund = payoutTransfers().length
        const refund = yield* Effect.promise(() =>
          call(base, "POST", `/Transaction/${paid.correlationId}/Refund`, {
            token: partnerToken,
            body: { amount: { value: 5, currencyCode: "USD" }, reason: "a broken part" },
          }),
        )
        assert.strictEqual(refund.status, 200, refund.text)
        const { refundId } = refund.body as { refundId: string }
        for (let attempt = 0; attempt < 200 && payoutTransfers().length === beforeRefund; attempt++) {
          yield* Effect.sleep("50 millis")
        }
        const refundRequest = payoutTransfers()[beforeRefund]
        const refundBody = JSON.parse(refundRequest?.body ?? "{}")
        assert.strictEqual(refundRequest?.headers["idempotency-key"], refundId)
        assert.deepStrictEqual(refundBody._links, {
          source: { href: `${dwolla.url}/funding-sources/${masterFundingSource}` },
          destination: { href: `${dwolla.url}/funding-sources/${DwollaFake.fundingSourceId}` },
        })
        assert.deepStrictEqual(refundBody.amount, { value: "5.00", currency: "USD" })
        pendingTransfer(refundTransfer, refundId)
        const refunded = yield* dwollaWebhook(
          dwollaEvent("6f8b0d2f-4c6e-4a8b-8d0f-4c6e8a0b2d4f", "customer_transfer_completed", refundTransfer),
        )
        assert.strictEqual(refunded.status, 200, refunded.text)
        // The payment request shows the completed refund's amount.
        assert.include((yield* paymentOf(paid.paymentRequestId)).text, '"refundedAmount":{"value":5,')

        // A late return (R10, after settlement) of the paid payment: Dwolla fails the processed transfer.
        dwolla.answer("/failure", {
          status: 200,
          contentType: DwollaFake.hal,
          body: { code: "R10", description: "Customer Advises Not Authorized" },
        })
        const lateReturn = yield* dwollaWebhook(
          dwollaEvent("8a0c2e4a-6c8e-4a0c-9e2a-6c8e0a2c4e6a", "customer_transfer_failed", DwollaFake.transferId),
        )
        assert.strictEqual(lateReturn.status, 200, lateReturn.text)
        const returnedTransfer = yield* Effect.promise(() =>
          call(base, "GET", `/Transaction/${paid.correlationId}`, { token: partnerToken }),
        )
        assert.include(returnedTransfer.text, '"Returned"')
        assert.include(returnedTransfer.text, "R10")

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

        // An SMS reminder through Twilio Messaging: a payment request due tomorrow (PARTNERPAY_REMINDER_DAYS=1)
        // is announced to its payer by the payment notifier, from the operator's Messaging service.
        const reminded = yield* Effect.promise(() =>
          call(base, "POST", "/Payment/Create", {
            token: partnerToken,
            body: {
              companyId,
              payerRegistrationId: registrationId,
              amount: { value: 5, currencyCode: "USD" },
              description: "Invoice 4",
              dueDate: tomorrow(),
            },
          }),
        )
        assert.strictEqual(reminded.status, 200, reminded.text)
        const remindedId = (reminded.body as { paymentRequestId: string }).paymentRequestId
        const reminder = () =>
          twilio.requests.find(
            (request) =>
              request.path.endsWith("/Messages.json") && request.body.includes(encodeURIComponent(remindedId)),
          )
        for (let attempt = 0; attempt < 200 && reminder() === undefined; attempt++) yield* Effect.sleep("50 millis")
        const sms = Object.fromEntries(new URLSearchParams(reminder()?.body ?? ""))
        assert.deepStrictEqual(sms, {
          To: phoneNumber,
          Body: `A payment is due in a few days (payment request ${remindedId}). Open the app to pay.`,
          MessagingServiceSid: messagingServiceSid,
        })

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
        assert.deepStrictEqual([...twilio.violations, ...plaidFake.violations, ...dwolla.violations], [])
        assert.notInclude(service.output.join("\n"), "a-dwolla-secret")
        assert.notInclude(service.output.join("\n"), dwollaWebhookSecret)
        assert.notInclude(service.output.join("\n"), previousDwollaWebhookSecret)
        assert.notInclude(service.output.join("\n"), "a-twilio-auth-token")
        assert.notInclude(service.output.join("\n"), "a-plaid-secret")
      }).pipe(Effect.scoped),
  )
})
