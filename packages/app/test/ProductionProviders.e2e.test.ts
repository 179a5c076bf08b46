/**
 * The real service process in production: it refuses to start without a
 * provider for every required port; on Twilio, Plaid and Dwolla alone it
 * starts, names the optional capabilities that are off and answers a card
 * route 422 FEATURE_NOT_AVAILABLE; and with bridges it sends one-time codes through
 * the operator's provider (signed), runs the money-movement workers (on the
 * MONEY_MOVEMENT bridge), and answers a provider's malformed answer with a
 * 503 problem+json.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ProviderPorts from "../src/providers/ProviderPorts.ts"
import * as FakeProvider from "./providers/FakeProvider.ts"
import { appDir, killAll, startService } from "./support.ts"

const directories: Array<string> = []
afterAll(() => {
  killAll()
  for (const directory of directories) rmSync(directory, { recursive: true, force: true })
})

const freshDataDir = () => {
  const directory = mkdtempSync(join(tmpdir(), "partnerpay-production-"))
  directories.push(directory)
  return directory
}

const adminToken = "an-operator-token-of-at-least-32-characters"
const production = {
  PORT: "0",
  PARTNERPAY_ENV: "production",
  PARTNERPAY_TOKEN_SECRET: "a-token-secret-of-at-least-32-bytes-long",
  PARTNERPAY_SECRET_PEPPER: "a-client-secret-pepper-of-at-least-32-bytes",
  PARTNERPAY_DATA_KEY: "d".repeat(64),
  PARTNERPAY_OTP_SECRET: "an-otp-secret-of-at-least-32-characters",
  PARTNERPAY_CHAT_SECRET: "a-chat-secret-of-at-least-32-characters",
  PARTNERPAY_ADMIN_TOKEN: adminToken,
}

const request = (url: string, method: string, token: string | undefined, body?: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method,
      headers: {
        "content-type": "application/json",
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await response.text()
    return {
      status: response.status,
      contentType: response.headers.get("content-type") ?? "",
      body: text === "" ? undefined : JSON.parse(text),
    }
  })

describe("production without a provider for every port", () => {
  it("refuses to start, naming each missing port in one error", { timeout: 60_000 }, () => {
    const started = spawnSync(process.execPath, ["src/main.ts"], {
      cwd: appDir,
      env: {
        PATH: process.env.PATH ?? "",
        ...production,
        PARTNERPAY_DATA_DIR: freshDataDir(),
        PARTNERPAY_PROVIDER_OTP_URL: "https://sms.example.com",
        PARTNERPAY_PROVIDER_OTP_SECRET: "an-otp-bridge-secret-of-32-characters",
      },
      encoding: "utf8",
      timeout: 30_000,
    })
    assert.strictEqual(started.status, 1)
    const missing = ProviderPorts.ports.filter(({ key, required }) => required && key !== "OTP")
    for (const { key, port } of missing) {
      assert.include(started.stderr, `PARTNERPAY_PROVIDER_${key}_URL: is required when PARTNERPAY_ENV=production`)
      assert.include(started.stderr, `${port} has no production provider`)
    }
    assert.notInclude(started.stderr, "PARTNERPAY_PROVIDER_OTP_URL")
    assert.notInclude(started.stderr, "    at ") // one clear error, no stack
  })
})

describe("production on Twilio, Plaid and Dwolla only (no card processor, e-signature or push provider)", () => {
  it.live(
    "starts, lists the capabilities that are off, and a card route answers 422 FEATURE_NOT_AVAILABLE",
    () =>
      Effect.gen(function* () {
        // Nothing is called at the start: the vendors' addresses are never reached by this test.
        const unreachable = "http://127.0.0.1:9"
        const service = yield* Effect.promise(() =>
          startService({
            ...production,
            PARTNERPAY_DATA_DIR: freshDataDir(),
            PARTNERPAY_PROVIDER_OTP: "twilio",
            PARTNERPAY_TWILIO_ACCOUNT_SID: "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            PARTNERPAY_TWILIO_AUTH_TOKEN: "a-twilio-auth-token",
            PARTNERPAY_TWILIO_VERIFY_SERVICE_SID: "VAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            PARTNERPAY_TWILIO_BASE_URL: unreachable,
            PARTNERPAY_PROVIDER_BANK_LINKING: "plaid",
            PARTNERPAY_PROVIDER_KYC: "plaid",
            PARTNERPAY_PLAID_CLIENT_ID: "a-plaid-client-id",
            PARTNERPAY_PLAID_SECRET: "a-plaid-secret",
            PARTNERPAY_PLAID_ENV: "sandbox",
            PARTNERPAY_PLAID_BASE_URL: unreachable,
            PARTNERPAY_PLAID_IDV_TEMPLATE_ID: "idvtmp_4FrXJvfQU3zGUR",
            PARTNERPAY_PROVIDER_KYB: "dwolla",
            PARTNERPAY_PROVIDER_MONEY_MOVEMENT: "dwolla",
            PARTNERPAY_DWOLLA_KEY: "a-dwolla-key",
            PARTNERPAY_DWOLLA_SECRET: "a-dwolla-secret",
            PARTNERPAY_DWOLLA_ENVIRONMENT: "sandbox",
            PARTNERPAY_DWOLLA_BASE_URL: unreachable,
            PARTNERPAY_DWOLLA_WEBHOOK_SECRET: "a-dwolla-webhook-secret",
            PARTNERPAY_DWOLLA_BUSINESS_CLASSIFICATION: "9ed3f670-7d6f-11e3-b1ce-5404a6144203",
            PARTNERPAY_DWOLLA_MASTER_FUNDING_SOURCE: "b268f6b9-db3b-4ecc-83a2-8823a53ec8b7",
          }),
        )
        yield* Effect.addFinalizer(() => Effect.promise(() => service.stop()))

        let off: string | undefined
        for (let wait = 0; wait < 50 && off === undefined; wait++) {
          off = service.output.find((line) => line.includes("optional capabilities off"))
          if (off === undefined) yield* Effect.sleep("100 millis")
        }
        if (off === undefined) return assert.fail(`no capability listed as off:\n${service.output.join("\n")}`)
        for (const key of ["CARD_PROCESSOR", "E_SIGNATURE", "PUSH", "EMAIL", "SMS"])
          assert.include(off, `PARTNERPAY_PROVIDER_${key}]`)
        for (const key of ["OTP", "KYC", "BANK_LINKING", "MONEY_MOVEMENT", "KYB"])
          assert.notInclude(off, `PARTNERPAY_PROVIDER_${key}]`)

        const partner = yield* request(`${service.url}/admin/partners`, "POST", adminToken, { name: "Acme" })
        assert.strictEqual(partner.status, 201)
        const token = yield* request(`${service.url}/auth/token`, "POST", undefined, {
          ClientId: partner.body.clientId,
          ClientSecret: partner.body.clientSecret,
        })
        assert.strictEqual(token.status, 200)
        const card = yield* request(`${service.url}/cardpayment`, "POST", token.body.AccessToken, {
          merchantId: "3f1c2b1e-8a3d-4c2e-9f5a-2b7d1e0c4a6f",
          amount: { value: 12.34, currencyCode: "USD" },
          last4: "4242",
          brand: "visa",
          externalReference: "terminal-1",
        })
        assert.strictEqual(card.status, 422, JSON.stringify(card.body))
        assert.include(card.contentType, "application/problem+json")
        assert.strictEqual(card.body.code, "FEATURE_NOT_AVAILABLE")
        assert.include(card.body.detail, "card processor")
        // Nothing was recorded: the same payment is refused again the same way.
        const again = yield* request(`${service.url}/cardpayment`, "POST", token.body.AccessToken, {
          merchantId: "3f1c2b1e-8a3d-4c2e-9f5a-2b7d1e0c4a6f",
          amount: { value: 12.34, currencyCode: "USD" },
          last4: "4242",
          brand: "visa",
          externalReference: "terminal-1",
        })
        assert.strictEqual(again.body.code, "FEATURE_NOT_AVAILABLE")
      }),
    { timeout: 90_000 },
  )
})

describe("production with a bridge for every port", () => {
  it.live(
    "a one-time code goes to the operator's provider, and a malformed provider answer is a 503 problem",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.start()
        const bridges = Object.fromEntries(
          ProviderPorts.ports.flatMap(({ key }) => [
            [`PARTNERPAY_PROVIDER_${key}_URL`, fake.url],
            [`PARTNERPAY_PROVIDER_${key}_SECRET`, "fake-provider-secret-of-32-characters-or-more"],
            [`PARTNERPAY_PROVIDER_${key}_RETRIES`, "0"],
          ]),
        )
        const service = yield* Effect.promise(() =>
          startService({ ...production, ...bridges, PARTNERPAY_DATA_DIR: freshDataDir() }),
        )
        yield* Effect.addFinalizer(() => Effect.promise(() => service.stop()))

        // Money moves in production too: the money-movement workers run (on the operator's bridge).
        for (const name of ["money-movement-originator", "money-movement-outcomes"]) {
          let started: string | undefined
          for (let wait = 0; wait < 50 && started === undefined; wait++) {
            started = service.output.find((line) => line.includes("worker started") && line.includes(name))
            if (started === undefined) yield* Effect.sleep("100 millis")
          }
          assert.isDefined(started, `${name} did not start`)
        }

        const partner = yield* request(`${service.url}/admin/partners`, "POST", adminToken, { name: "Acme" })
        assert.strictEqual(partner.status, 201)
        const token = yield* request(`${service.url}/auth/token`, "POST", undefined, {
          ClientId: partner.body.clientId,
          ClientSecret: partner.body.clientSecret,
        })
        const partnerToken = token.body.AccessToken as string

        // The code is sent through the OTP bridge, signed; it is random (not the sandbox's 123456).
        fake.script("send", [{ status: 200, body: {} }])
        const phoneNumber = "+15557654321"
        const sent = yield* request(`${service.url}/Login/SendOtp`, "POST", partnerToken, { phoneNumber })
        assert.strictEqual(sent.status, 200, JSON.stringify(sent.body))
        const delivery = fake.received().find((received) => received.operation === "send")
        if (delivery === undefined) return assert.fail("no code was sent to the OTP bridge")
        assert.isTrue(delivery.signed)
        const { code, phoneNumber: to } = delivery.body as { code: string; phoneNumber: string }
        assert.match(code, /^\d{6}$/)
        assert.strictEqual(to, phoneNumber)
        const checked = yield* request(`${service.url}/Login/CheckOtp`, "PUT", partnerToken, { phoneNumber, code })
        assert.strictEqual(checked.status, 200, JSON.stringify(checked.body))
        const customerToken = checked.body.accessToken as string

        // The KYC bridge answers nonsense: the customer gets a 503 problem, not a 500.
        fake.script("start", [{ status: 200, body: { linkToken: 42, expiration: "soon" } }])
        const started = yield* request(`${service.url}/Verification/StartKyc`, "POST", customerToken, {
          deviceId: "device-1",
        })
        assert.strictEqual(started.status, 503)
        assert.include(started.contentType, "application/problem+json")
        assert.strictEqual(started.body.code, "PROVIDER_UNAVAILABLE")
        // Log lines reach stdout in batches: wait for the warning.
        let warning: string | undefined
        for (let wait = 0; wait < 50 && warning === undefined; wait++) {
          warning = service.output.find((line) => line.includes("provider call failed"))
          if (warning === undefined) yield* Effect.sleep("100 millis")
        }
        assert.include(
          warning ?? service.output.join("\n"),
          "start: malformed answer 200 (field linkToken: wrong type)",
        )
      }),
    { timeout: 90_000 },
  )
})
