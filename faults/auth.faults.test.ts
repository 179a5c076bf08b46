/**
 * Scenario 5, authentication and tenancy: forged, expired, `alg: none`,
 * wrong-audience, wrong-issuer and tampered tokens, and valid tokens of the
 * wrong kind (a customer on partner operations) are refused on every partner
 * operation tried (401 / 403 problem+json). A second partner enumerating the
 * first partner's ids learns nothing: each answer equals the answer for a
 * missing id (status, content type, body modulo the correlation id).
 *
 * Revocation, on two instances sharing one database: a partner's tokens
 * revoked through the operator API of instance 1 are refused by instance 1 at
 * once and by instance 2 within its poll interval (2 s; waited for, bounded);
 * tokens of an older generation stay refused after later revocations; a
 * customer logout (DELETE /Login/Session) reaches the other instance the same
 * way; a token issued in the future (iat beyond the 60 s skew) is refused; a
 * chain of renewals (GET /Auth/ExchangeToken) on the sandbox clock never
 * reaches past 24 h after the client-credentials login.
 */
import { randomUUID } from "node:crypto"
import { afterAll, assert, describe, it } from "@effect/vitest"
import {
  type Answer,
  call,
  companyBody,
  customer,
  freshDatabase,
  isProblem,
  killAll,
  partnerToken,
  serviceEnv,
  signJwt,
  sleep,
  start,
  summary,
  tally,
  tempDir,
  tokenSecret,
  tomorrow,
  verifiedCompany,
} from "./support.ts"

const adminToken = "faults-admin-token-0123456789-abcdefghijklmnop"

const partnerA = { clientId: "faults-auth-client-a", clientSecret: "faults-auth-secret-a-0123456789" }
const partnerB = { clientId: "faults-auth-client-b", clientSecret: "faults-auth-secret-b-0123456789" }

afterAll(() => killAll())

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as Record<string, unknown>

/** The body with the correlation id / instance and the requested id blanked. */
const normalized = (answer: Answer, id: string) =>
  `${answer.status} ${answer.contentType} ${answer.text.replaceAll(id, "<id>").replace(/"(instance|correlationId|requestId|traceId)":"[^"]*"/g, '"$1":"<x>"')}`

describe("auth", () => {
  it("bad tokens and wrong callers are refused; another partner's ids look missing", async () => {
    const db = freshDatabase("auth")
    const dataA = tempDir("auth-a")
    const dataB = tempDir("auth-b")
    try {
      // Partner B exists once its own sandbox instance has started on the database.
      const b = await start(serviceEnv({ ...partnerB, dataDir: dataB.dir, databaseUrl: db.url }))
      await b.stop("SIGTERM")
      const service = await start(serviceEnv({ ...partnerA, dataDir: dataA.dir, databaseUrl: db.url, kybDelayMs: 200 }))
      const base = service.url
      const tokenA = await partnerToken(service, partnerA.clientId, partnerA.clientSecret)
      const tokenB = await partnerToken(service, partnerB.clientId, partnerB.clientSecret)
      const claims = claimsOf(tokenA)
      assert.notStrictEqual(claims.sub, claimsOf(tokenB).sub)

      // Partner A's resources.
      const company = await verifiedCompany(base, tokenA, companyBody({ companyReferenceId: "auth-1" }))
      assert.strictEqual(company.status, 200, company.text)
      const companyId = (company.body as { companyId: string }).companyId
      const payer = await customer(base, tokenA, "+14155552001")
      const payment = await call(base, "POST", "/Payment/Create", {
        token: tokenA,
        body: {
          companyId,
          payerRegistrationId: payer.registrationId,
          amount: { value: 5, currencyCode: "USD" },
          description: "auth",
          dueDate: tomorrow(),
        },
      })
      assert.strictEqual(payment.status, 200, payment.text)
      const paymentId = (payment.body as { paymentRequestId: string }).paymentRequestId
      const plan = await call(base, "POST", "/PaymentPlan/Create", {
        token: tokenA,
        body: {
          companyId,
          payerRegistrationId: payer.registrationId,
          amount: { value: 5, currencyCode: "USD" },
          frequency: "Weekly",
          recurrenceInterval: 1,
          startDate: tomorrow(),
          numberOfPayments: 2,
        },
      })
      assert.strictEqual(plan.status, 200, plan.text)
      const { paymentPlanId, consentId } = plan.body as { paymentPlanId: string; consentId: string }

      const now = Math.floor(Date.now() / 1000)
      const base_ = {
        iss: "partnerpay",
        aud: "partnerpay",
        sub: claims.sub,
        scope: "partner",
        iat: now,
        exp: now + 600,
        jti: randomUUID(),
      }
      const [head, payload] = tokenA.split(".")
      const tamperedPayload = Buffer.from(JSON.stringify({ ...claimsOf(tokenA), sub: claimsOf(tokenB).sub })).toString(
        "base64url",
      )
      const badTokens: Record<string, string> = {
        forged: signJwt(base_, "not-the-secret-but-32-bytes-long-xxxxxxxx"),
        expired: signJwt({ ...base_, iat: now - 7200, exp: now - 3600 }, tokenSecret),
        "alg none": signJwt(base_, tokenSecret, "none"),
        "alg HS512 header": signJwt(base_, tokenSecret, "HS512"),
        "wrong audience": signJwt({ ...base_, aud: "someone-else" }, tokenSecret),
        "wrong issuer": signJwt({ ...base_, iss: "evil" }, tokenSecret),
        "no exp": signJwt({ ...base_, exp: undefined }, tokenSecret),
        "unknown scope": signJwt({ ...base_, scope: "admin" }, tokenSecret),
        "tampered sub": `${head}.${tamperedPayload}.${tokenA.split(".")[2]}`,
        "signature stripped": `${head}.${payload}.`,
        garbage: "not-a-jwt",
        empty: "",
      }
      const operations: Array<[string, string, unknown?]> = [
        ["GET", `/company/status?companyId=${companyId}`],
        ["POST", "/Company/Create", companyBody({ companyReferenceId: "auth-bad" })],
        ["GET", `/Payment/${paymentId}`],
        ["PUT", `/Payment/${paymentId}/Cancel`],
        ["GET", "/Payment/History"],
        ["GET", `/PaymentPlan/${paymentPlanId}`],
        ["PUT", `/PaymentPlan/${paymentPlanId}/Cancel`],
        ["POST", "/Login/SendOtp", { phoneNumber: "+14155552999" }],
        ["GET", "/HealthCheck/Get"],
      ]
      const refusals: Array<number> = []
      const accepted: Array<string> = []
      const notProblem: Array<string> = []
      // Requests without a valid token share one per-IP bucket (10/s, burst 20): pace them, and
      // on a 429 wait the Retry-After it gives and ask again (bounded), to see the real answer.
      let rateLimited = 0
      const paced = async (method: string, path: string, token: string, body: unknown) => {
        for (let attempt = 0; ; attempt++) {
          await sleep(100)
          const answer = await call(base, method, path, { token, body })
          if (answer.status !== 429 || attempt === 5) return answer
          rateLimited++
          await sleep(1000 * Number(answer.headers.get("retry-after") ?? "1"))
        }
      }
      for (const [label, token] of Object.entries(badTokens)) {
        for (const [method, path, body] of operations) {
          const answer = await paced(method, path, token, body)
          refusals.push(answer.status)
          if (answer.status !== 401) accepted.push(`${label} ${method} ${path}: ${answer.status}`)
          if (!isProblem(answer)) notProblem.push(`${label} ${method} ${path}`)
        }
      }
      // A customer token on partner operations: 403.
      for (const [method, path, body] of operations.filter(([, path]) => path !== "/HealthCheck/Get")) {
        const answer = await call(base, method, path, { token: payer.token, body })
        refusals.push(answer.status)
        if (answer.status !== 403) accepted.push(`customer ${method} ${path}: ${answer.status}`)
        if (!isProblem(answer)) notProblem.push(`customer ${method} ${path}`)
      }
      // A customer token forged for another partner (right secret, the real registration id, partner B).
      const crossCustomer = signJwt(
        { ...claimsOf(payer.token), pid: claimsOf(tokenB).sub, jti: randomUUID() },
        tokenSecret,
      )

      // Enumeration: partner B (and a customer) asking for A's ids vs missing ids.
      const probes: Array<[string, string, (id: string) => string, string]> = [
        [tokenB, "GET", (id) => `/company/status?companyId=${id}`, companyId],
        [tokenB, "GET", (id) => `/Payment/${id}`, paymentId],
        [tokenB, "PUT", (id) => `/Payment/${id}/Cancel`, paymentId],
        [tokenB, "GET", (id) => `/PaymentPlan/${id}`, paymentPlanId],
        [tokenB, "PUT", (id) => `/PaymentPlan/${id}/Activate`, paymentPlanId],
        [tokenB, "PUT", (id) => `/PaymentPlan/${id}/Cancel`, paymentPlanId],
        [crossCustomer, "GET", (id) => `/Consent/${id}`, consentId],
        [crossCustomer, "PUT", (id) => `/Consent/${id}/Decline`, consentId],
      ]
      const leaks: Array<string> = []
      const enumerationStatuses: Array<number> = []
      for (const [token, method, path, realId] of probes) {
        const missingId = randomUUID()
        const real = await call(base, method, path(realId), { token })
        const missing = await call(base, method, path(missingId), { token })
        enumerationStatuses.push(real.status)
        if (normalized(real, realId) !== normalized(missing, missingId))
          leaks.push(
            `${method} ${path("<id>")}: other partner's ${normalized(real, realId)} vs missing ${normalized(missing, missingId)}`,
          )
        if (real.status !== 404) leaks.push(`${method} ${path("<id>")}: ${real.status}`)
      }
      // The resources are untouched by the refused calls.
      const after = await call(base, "GET", `/Payment/${paymentId}`, { token: tokenA })
      const planAfter = await call(base, "GET", `/PaymentPlan/${paymentPlanId}`, { token: tokenA })
      const untouched =
        (after.body as { status: string }).status === "Pending" &&
        (planAfter.body as { status: string }).status === "Draft"

      summary(
        "auth",
        `${refusals.length} requests with ${Object.keys(badTokens).length} kinds of bad token and a customer token on ${operations.length} partner operations: ${refusals.length - accepted.length} refused as expected [${tally(refusals)}], ${accepted.length} wrong, ${notProblem.length} not problem+json, ${rateLimited} 429s (per-IP limit, retried); enumeration ${probes.length} probes of another partner's/payer's ids [${tally(enumerationStatuses)}], ${leaks.length} distinguishable from a missing id; resources untouched: ${untouched}`,
      )
      for (const line of [...accepted, ...notProblem, ...leaks]) console.log(`[faults] auth VIOLATION: ${line}`)
      assert.deepStrictEqual(accepted, [])
      assert.deepStrictEqual(notProblem, [])
      assert.deepStrictEqual(leaks, [])
      assert.isTrue(untouched)
    } finally {
      killAll()
      db.drop()
      dataA.remove()
      dataB.remove()
    }
  })

  it("revoked, stale-generation, future-issued and renewed-past-24-h tokens are refused, on every instance", async () => {
    const db = freshDatabase("revocation")
    const data1 = tempDir("revocation-1")
    const data2 = tempDir("revocation-2")
    try {
      const env = (dataDir: string) =>
        serviceEnv({
          ...partnerA,
          dataDir,
          databaseUrl: db.url,
          extra: {
            PARTNERPAY_ADMIN_TOKEN: adminToken,
            // Refused tokens count against the per-IP bucket; this scenario asks about them in loops.
            PARTNERPAY_RATE_LIMITING: "off",
          },
        })
      const one = await start(env(data1.dir))
      const two = await start(env(data2.dir))
      const login = () => partnerToken(one, partnerA.clientId, partnerA.clientSecret)
      /** 200 when the token is accepted (the authenticated health check), 401 when refused. */
      const status = async (base: string, token: string) =>
        (await call(base, "GET", "/HealthCheck/Get", { token })).status
      const violations: Array<string> = []
      const expect = (label: string, actual: number, expected: number) => {
        if (actual !== expected) violations.push(`${label}: ${actual}, expected ${expected}`)
      }
      /** Asks until the answer is `expected` (bounded); how long it took, in ms. */
      const until = async (label: string, ask: () => Promise<number>, expected: number, limitMs = 10_000) => {
        const started = Date.now()
        for (;;) {
          const actual = await ask()
          if (actual === expected) return Date.now() - started
          if (Date.now() - started > limitMs) {
            violations.push(`${label}: still ${actual} after ${limitMs} ms, expected ${expected}`)
            return limitMs
          }
          await sleep(100)
        }
      }

      // Revoked: through instance 1's operator API.
      const first = await login()
      const partnerId = String(claimsOf(first).sub)
      expect("fresh token on instance 1", await status(one.url, first), 200)
      expect("fresh token on instance 2", await status(two.url, first), 200)
      const revoke = await call(one.url, "POST", `/admin/partners/${partnerId}/revoke-tokens`, { token: adminToken })
      expect("revoke-tokens", revoke.status, 200)
      expect("revoked token on instance 1 (at once)", await status(one.url, first), 401)
      const propagationMs = await until("revoked token on instance 2", () => status(two.url, first), 401)
      expect(
        "renewal of a revoked token on instance 2",
        (await call(two.url, "GET", "/Auth/ExchangeToken", { token: first })).status,
        401,
      )

      // Stale generation: a token of generation g survives nothing after g + 1.
      const second = await login()
      const secondGeneration = Number(claimsOf(second).gen)
      expect("token after the revocation", await status(two.url, second), 200)
      if (!(secondGeneration > Number(claimsOf(first).gen ?? 0))) violations.push("generation did not grow")
      await call(one.url, "POST", `/admin/partners/${partnerId}/revoke-tokens`, { token: adminToken })
      await until("second-generation token on instance 2", () => status(two.url, second), 401)
      expect("first-generation token after two revocations", await status(two.url, first), 401)
      const now = Math.floor(Date.now() / 1000)
      const crafted = (claims: Record<string, unknown>) =>
        signJwt(
          { iss: "partnerpay", aud: "partnerpay", sub: partnerId, scope: "partner", jti: randomUUID(), ...claims },
          tokenSecret,
        )
      const staleCrafted = crafted({ gen: secondGeneration, auth_time: now, iat: now, exp: now + 600 })
      expect("well-signed token of a stale generation", await status(one.url, staleCrafted), 401)
      const currentGeneration = Number(claimsOf(await login()).gen)
      const currentCrafted = crafted({ gen: currentGeneration, auth_time: now, iat: now, exp: now + 600 })
      expect("control: the same token at the current generation", await status(one.url, currentCrafted), 200)

      // Customer logout everywhere, through instance 1; instance 2 follows.
      const partner = await login()
      const payer = await customer(one.url, partner, "+14155552301")
      const customerStatus = async (base: string) =>
        (await call(base, "GET", "/Account/List", { token: payer.token })).status
      expect("customer token before logout", await customerStatus(two.url), 200)
      const logout = await call(one.url, "DELETE", "/Login/Session", { token: payer.token })
      expect("DELETE /Login/Session", logout.status, 204)
      expect("customer token after logout on instance 1", await customerStatus(one.url), 401)
      await until("customer token after logout on instance 2", () => customerStatus(two.url), 401)
      expect("partner token after the customer's logout", await status(two.url, partner), 200)

      // Issued in the future.
      const future = crafted({ gen: currentGeneration, auth_time: now + 3600, iat: now + 3600, exp: now + 7200 })
      expect("token issued an hour ahead", await status(one.url, future), 401)
      const skewed = crafted({ gen: currentGeneration, auth_time: now + 10, iat: now + 10, exp: now + 600 })
      expect("control: token issued 10 s ahead (within the skew)", await status(one.url, skewed), 200)

      // Renewal chain on instance 1's sandbox clock: every 50 minutes for a day.
      let token = await login()
      const authTime = Number(claimsOf(token).auth_time)
      let renewals = 0
      let lastExp = 0
      for (;;) {
        const advanced = await call(one.url, "POST", "/Sandbox/Clock/Advance", { token, body: { seconds: 3000 } })
        if (advanced.status !== 200) {
          violations.push(`clock advance: ${advanced.status} ${advanced.text}`)
          break
        }
        const renewed = await call(one.url, "GET", "/Auth/ExchangeToken", { token })
        if (renewed.status !== 200) break
        token = (renewed.body as { accessToken: string }).accessToken
        renewals++
        lastExp = Number(claimsOf(token).exp)
        if (Number(claimsOf(token).auth_time) !== authTime) violations.push("renewal changed auth_time")
        if (lastExp > authTime + 24 * 3600)
          violations.push(`renewed token valid until ${lastExp - authTime} s after login`)
        if (renewals > 40) break
      }
      if (renewals !== 28) violations.push(`renewals before the 24 h cap: ${renewals}, expected 28 (every 50 min)`)
      expect("last renewed token once past 24 h", await status(one.url, token), 401)

      summary(
        "auth",
        `revocation on 2 instances: revoked token refused by the revoking instance at once, by the other after ${propagationMs} ms (bound: poll 2 s); stale generation, logout everywhere, future iat refused; ${renewals} renewals every 50 min (sandbox clock) ended ${lastExp - authTime} s after login (cap 86400); ${violations.length} violations`,
      )
      for (const line of violations) console.log(`[faults] auth VIOLATION: ${line}`)
      assert.deepStrictEqual(violations, [])
    } finally {
      killAll()
      db.drop()
      data1.remove()
      data2.remove()
    }
  })
})
