/**
 * KYC on Plaid Identity Verification driven through the official `plaid` SDK against a local fake of Plaid:
 * every request is checked against Plaid's published document (API 2020-09-14), and so is every answer of
 * the fake (the document's own examples, a status changed where a rule needs another).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import type { Ids } from "@partnerpay/domain"
import { DateTime, Effect, Redacted } from "effect"
import * as PlaidKyc from "../../src/providers/PlaidKyc.ts"
import { Contract, type Fake, startFake } from "./OpenApiContract.ts"

const registrationId = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f" as Ids.RegistrationId

describe("KYC on Plaid Identity Verification, on Plaid's published contract", () => {
  const plaid = new Contract("Plaid", "plaid-2020-09-14.yml")
  const fakes: Array<Fake> = []
  afterAll(() => Promise.all(fakes.map((fake) => fake.close())))

  const example = (path: string) => (plaid as Contract).example("POST", path, 200) as Record<string, unknown>

  /** The list example with its one verification in `status`, created at `createdAt`. */
  const listed = (...verifications: ReadonlyArray<{ id: string; status: string; createdAt: string }>) => {
    const list = example("/identity_verification/list")
    const [one] = list.identity_verifications as Array<Record<string, unknown>>
    return {
      ...list,
      identity_verifications: verifications.map(({ id, status, createdAt }) => ({
        ...one,
        id,
        status,
        created_at: createdAt,
      })),
    }
  }

  const start = Effect.fn(function* () {
    const fake = yield* Effect.promise(() =>
      startFake(() => plaid as Contract, {
        "/link/token/create": { status: 200, body: example("/link/token/create") },
        "/identity_verification/list": { status: 200, body: example("/identity_verification/list") },
        "/identity_verification/get": { status: 200, body: example("/identity_verification/get") },
      }),
    )
    fakes.push(fake)
    const config: PlaidKyc.PlaidKycConfig = {
      clientId: "a-client-id",
      secret: Redacted.make("a-plaid-secret"),
      environment: "sandbox",
      baseUrl: fake.url,
      webhookUrl: "https://partnerpay.example.com/BankLinkWebhook/UpdateItem",
      clientName: "partnerpay",
      identityVerificationTemplateId: "idvtmp_4FrXJvfQU3zGUR",
      timeoutMillis: 5000,
    }
    return { fake, config, kyc: PlaidKyc.make(config) }
  })

  it.live("the KYC start's linkToken opens Plaid Link on the operator's Identity Verification template", () =>
    Effect.gen(function* () {
      const { fake, config, kyc } = yield* start()
      const session = yield* kyc.start({
        registrationId,
        tokenId: "a-token-id",
        deviceId: "a-device",
        phoneNumber: "+12345678909",
      })
      assert.strictEqual(session.linkToken, "link-sandbox-af1a0311-da53-4636-b754-dd15cc058176")
      assert.strictEqual(DateTime.formatIso(session.expiration), "2020-03-27T12:56:34.000Z")
      const body = JSON.parse(fake.requests[0]?.body ?? "{}")
      assert.deepStrictEqual(body.products, ["identity_verification"])
      assert.deepStrictEqual(body.identity_verification, { template_id: config.identityVerificationTemplateId })
      assert.deepStrictEqual(body.user, { client_user_id: registrationId, phone_number: "+12345678909" })
      assert.strictEqual(body.webhook, config.webhookUrl)
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("the verdict is the customer's newest verification: success Verified, failed Rejected, others Pending", () =>
    Effect.gen(function* () {
      const { fake, kyc } = yield* start()
      fake.answer(
        "/identity_verification/list",
        {
          status: 200,
          body: listed(
            { id: "idv_old", status: "failed", createdAt: "2020-07-24T03:26:02Z" },
            { id: "idv_new", status: "success", createdAt: "2020-07-25T03:26:02Z" },
          ),
        },
        { status: 200, body: listed({ id: "idv_a", status: "failed", createdAt: "2020-07-24T03:26:02Z" }) },
        { status: 200, body: listed({ id: "idv_b", status: "pending_review", createdAt: "2020-07-24T03:26:02Z" }) },
        { status: 200, body: listed({ id: "idv_c", status: "expired", createdAt: "2020-07-24T03:26:02Z" }) },
        { status: 200, body: listed() },
      )
      const request = { registrationId, tokenId: "a-token-id" }
      const verdicts = [
        yield* kyc.check(request),
        yield* kyc.check(request),
        yield* kyc.check(request),
        yield* kyc.check(request),
      ]
      assert.deepStrictEqual(
        verdicts.map(({ status, referenceId }) => [status, referenceId]),
        [
          ["Verified", PlaidKyc.referenceOf("idv_new")],
          ["Rejected", PlaidKyc.referenceOf("idv_a")],
          ["Pending", PlaidKyc.referenceOf("idv_b")],
          ["Pending", PlaidKyc.referenceOf("idv_c")],
        ],
      )
      for (const { referenceId } of verdicts) {
        assert.match(referenceId, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      }
      const none = yield* Effect.flip(kyc.check(request))
      assert.strictEqual(none._tag, "KycSessionNotFound")
      const body = JSON.parse(fake.requests[0]?.body ?? "{}")
      assert.deepStrictEqual(body, { template_id: "idvtmp_4FrXJvfQU3zGUR", client_user_id: registrationId })
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live(
    "the confirmed person of a checked verification leaves the adapter with the SSN's last four digits only",
    () =>
      Effect.gen(function* () {
        const { fake, kyc } = yield* start()
        const unknown = yield* Effect.flip(kyc.personalData(PlaidKyc.referenceOf("idv_52xR9LKo77r1Np")))
        assert.strictEqual(unknown._tag, "KycSessionNotFound")
        const { referenceId } = yield* kyc.check({ registrationId, tokenId: "a-token-id" })
        const person = yield* kyc.personalData(referenceId)
        assert.deepStrictEqual(person, {
          profileName: "",
          firstName: "Leslie",
          lastName: "Knope",
          birthDate: "1990-05-29",
          ssnLastFourDigits: "6789",
          emailAddress: "user@example.com",
          phoneNumber: "+12345678909",
        } as unknown as typeof person)
        assert.notInclude(Object.values(person), "123456789")
        assert.deepStrictEqual(JSON.parse(fake.requests.at(-1)?.body ?? "{}"), {
          identity_verification_id: "idv_52xR9LKo77r1Np",
        })
        assert.deepStrictEqual(fake.violations, [])
      }),
  )

  it.live("Plaid's outage or an answer lacking the person is ProviderUnavailable, never the secret", () =>
    Effect.gen(function* () {
      const { fake, kyc } = yield* start()
      const failure = {
        status: 500,
        body: {
          error_type: "API_ERROR",
          error_code: "INTERNAL_SERVER_ERROR",
          error_message: "an internal error",
          display_message: null,
          request_id: "req",
        },
      }
      fake.answer("/identity_verification/list", failure)
      fake.answer("/link/token/create", failure)
      const outage = yield* Effect.flip(kyc.check({ registrationId, tokenId: "a-token-id" }))
      assert.strictEqual(outage._tag, "ProviderUnavailable")
      assert.notInclude(outage.message, "a-plaid-secret")
      const startOutage = yield* Effect.flip(
        kyc.start({ registrationId, tokenId: "t", deviceId: "d", phoneNumber: "+12345678909" }),
      )
      assert.strictEqual(startOutage._tag, "ProviderUnavailable")
      const verification = example("/identity_verification/get")
      const user = verification.user as Record<string, unknown>
      fake.answer("/identity_verification/get", {
        status: 200,
        body: { ...verification, user: { ...user, id_number: null } },
      })
      const incomplete = yield* Effect.flip(kyc.personalData("idv_52xR9LKo77r1Np"))
      assert.strictEqual(incomplete._tag, "ProviderUnavailable")
      assert.deepStrictEqual(fake.violations, [])
    }),
  )
})
