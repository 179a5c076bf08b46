/**
 * The Twilio adapters (Verify for one-time codes, Messaging for SMS) driven
 * through the official `twilio` SDK against a local fake of Twilio: every
 * request is checked against Twilio's published documents (Verify v2, REST
 * API 2010-04-01) and so is every answer of the fake.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import type { Ids } from "@partnerpay/domain"
import { Effect, Redacted } from "effect"
import * as TwilioMessaging from "../../src/providers/TwilioMessaging.ts"
import * as TwilioVerify from "../../src/providers/TwilioVerify.ts"
import { Contract, type Fake, startFake } from "./OpenApiContract.ts"

const serviceSid = "VAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
const messagingSid = "MGaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
const accountSid = "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

describe("Twilio, on its published contract", () => {
  const verify = new Contract("Twilio Verify", "twilio-verify-v2.json")
  const api = new Contract("Twilio API", "twilio-api-v2010.json")
  const fakes: Array<Fake> = []
  afterAll(() => Promise.all(fakes.map((fake) => fake.close())))

  const contractOf = (path: string) => (path.startsWith("/v2/") ? verify : api) as Contract
  const verificationPath = `/v2/Services/${serviceSid}/Verifications`
  const checkPath = `/v2/Services/${serviceSid}/VerificationCheck`
  const messagesPath = `/2010-04-01/Accounts/${accountSid}/Messages.json`

  /** A fake Twilio answering with the documents' own examples, and the adapters' settings pointing at it. */
  const start = Effect.fn(function* () {
    const v = verify as Contract
    const a = api as Contract
    const fake = yield* Effect.promise(() =>
      startFake(contractOf, {
        "/Verifications": { status: 201, body: v.example("POST", verificationPath, 201) },
        "/VerificationCheck": { status: 200, body: v.example("POST", checkPath, 200) },
        "/Messages.json": { status: 201, body: a.example("POST", messagesPath, 201) },
      }),
    )
    fakes.push(fake)
    const config = {
      accountSid,
      authToken: Redacted.make("an-auth-token"),
      verifyServiceSid: serviceSid,
      messagingServiceSid: messagingSid,
      baseUrl: fake.url,
      timeoutMillis: 2000,
    }
    return { fake, config }
  })

  const twilioError = (status: number, code: number) => ({
    status,
    body: { code, message: "refused", more_info: `https://www.twilio.com/docs/errors/${code}`, status },
  })

  it("the contract itself refuses a request the document does not allow (the check is not vacuous)", () => {
    const basic = `Basic ${Buffer.from("ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:a-twilio-auth-token").toString("base64")}`
    const request = (path: string, body: string, authorization: string | null = basic) => ({
      method: "POST",
      path,
      query: new URLSearchParams(),
      headers: authorization === null ? {} : { authorization },
      contentType: "application/x-www-form-urlencoded",
      body,
    })
    const v = verify as Contract
    assert.deepStrictEqual(v.checkRequest(request(verificationPath, "To=%2B15017122661&Channel=sms")), [])
    assert.isNotEmpty(v.checkRequest(request(verificationPath, "To=%2B15017122661")))
    // Twilio's auth (HTTP basic: the account SID and the auth token) is part of the contract.
    assert.isNotEmpty(v.checkRequest(request(verificationPath, "To=%2B15017122661&Channel=sms", null)))
    assert.isNotEmpty(v.checkRequest(request(verificationPath, "To=%2B15017122661&Channel=sms", "Bearer x")))
    // A field the document does not name is flagged (a misspelling would otherwise be ignored by Twilio).
    assert.deepStrictEqual(v.checkRequest(request(verificationPath, "To=%2B15017122661&Channel=sms&channel=sms")), [
      "POST /v2/Services/{ServiceSid}/Verifications: body/channel is not in the document",
    ])
    assert.isNotEmpty(v.checkRequest(request(`/v2/Services/${serviceSid}/Nowhere`, "To=x")))
    assert.isNotEmpty(v.checkAnswer("POST", verificationPath, 201, { sid: 42 }))
  })

  it.live("a one-time code is a Verify verification of the number by SMS, the code left to Twilio", () =>
    Effect.gen(function* () {
      const { fake, config } = yield* start()
      yield* TwilioVerify.make(config).send({ phoneNumber: "+15017122661", code: "provider-owned" })
      const [request] = fake.requests
      assert.strictEqual(request?.path, verificationPath)
      assert.deepStrictEqual(Object.fromEntries(new URLSearchParams(request?.body)), {
        To: "+15017122661",
        Channel: "sms",
      })
      assert.match(String(request?.headers.authorization), /^Basic /)
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("a typed code is approved when Twilio's check answers approved, rejected otherwise", () =>
    Effect.gen(function* () {
      const { fake, config } = yield* start()
      const v = verify as Contract
      const approved = { ...(v.example("POST", checkPath, 200) as object), status: "approved", valid: true }
      const pending = { ...(v.example("POST", checkPath, 200) as object), status: "pending", valid: false }
      fake.answer("/VerificationCheck", { status: 200, body: approved }, { status: 200, body: pending })
      const sender = TwilioVerify.make(config)
      const verdicts = [
        yield* sender.verify!({ phoneNumber: "+15017122661", code: "123456" }),
        yield* sender.verify!({ phoneNumber: "+15017122661", code: "654321" }),
      ]
      assert.deepStrictEqual(verdicts, ["Approved", "Rejected"])
      assert.deepStrictEqual(Object.fromEntries(new URLSearchParams(fake.requests[0]?.body)), {
        To: "+15017122661",
        Code: "123456",
      })
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("no pending verification (expired, used) is a rejected code; an outage is ProviderUnavailable", () =>
    Effect.gen(function* () {
      const { fake, config } = yield* start()
      fake.answer("/VerificationCheck", twilioError(404, 20404), { status: 503, body: { message: "down" } })
      const sender = TwilioVerify.make(config)
      assert.strictEqual(yield* sender.verify!({ phoneNumber: "+15017122661", code: "123456" }), "Rejected")
      const outage = yield* Effect.flip(sender.verify!({ phoneNumber: "+15017122661", code: "123456" }))
      assert.strictEqual(outage._tag, "ProviderUnavailable")
      assert.include(outage.message, "Twilio answered 503")
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("a number Twilio cannot text (invalid, landline, too many codes) is OtpDeliveryFailed", () =>
    Effect.gen(function* () {
      const { fake, config } = yield* start()
      fake.answer("/Verifications", twilioError(400, 60200), twilioError(429, 60203))
      const sender = TwilioVerify.make(config)
      for (const _ of [1, 2]) {
        const refused = yield* Effect.flip(sender.send({ phoneNumber: "+15017122661", code: "provider-owned" }))
        assert.strictEqual(refused._tag, "OtpDeliveryFailed")
      }
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("a timeout is ProviderUnavailable, and the credentials never appear in its reason", () =>
    Effect.gen(function* () {
      const { fake, config } = yield* start()
      fake.answer("/Verifications", { hang: true })
      const outage = yield* Effect.flip(
        TwilioVerify.make({ ...config, timeoutMillis: 200 }).send({ phoneNumber: "+15017122661", code: "x" }),
      )
      assert.strictEqual(outage._tag, "ProviderUnavailable")
      assert.notInclude(outage.message, "an-auth-token")
      assert.notInclude(outage.message, "+15017122661")
    }),
  )

  it.live("a reminder is an SMS from the operator's Messaging service, worded for its template", () =>
    Effect.gen(function* () {
      const { fake, config } = yield* start()
      yield* TwilioMessaging.make(config).send({
        partnerId: "00000000-0000-4000-8000-000000000001" as Ids.PartnerId,
        to: "+15017122661",
        template: "PaymentDueSoon",
      })
      const [request] = fake.requests
      assert.strictEqual(request?.path, messagesPath)
      const form = Object.fromEntries(new URLSearchParams(request?.body))
      assert.strictEqual(form.To, "+15017122661")
      assert.strictEqual(form.MessagingServiceSid, messagingSid)
      assert.include(form.Body, "due in a few days")
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("a recipient who answered STOP is MessageUndeliverable; a 5xx is ProviderUnavailable", () =>
    Effect.gen(function* () {
      const { fake, config } = yield* start()
      fake.answer("/Messages.json", twilioError(400, 21610), { status: 500, body: { message: "down" } })
      const sender = TwilioMessaging.make(config)
      const message = {
        partnerId: "00000000-0000-4000-8000-000000000001" as Ids.PartnerId,
        to: "+15017122661",
        template: "PaymentPaid" as const,
      }
      assert.strictEqual((yield* Effect.flip(sender.send(message)))._tag, "MessageUndeliverable")
      assert.strictEqual((yield* Effect.flip(sender.send(message)))._tag, "ProviderUnavailable")
      assert.deepStrictEqual(fake.violations, [])
    }),
  )
})
