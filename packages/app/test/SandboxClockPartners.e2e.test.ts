/**
 * Each partner has its own sandbox time, against the real service (a child
 * process on an embedded database): partner A moves its clock 8 days ahead;
 * A's token expires and A's weekly plan collects its next instalment, while
 * partner B's token stays valid and B's plan is not collected early. The
 * offsets survive a restart on the same data directory.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { call, succeeded as ok, until, verifyAndLink } from "./Requests.ts"
import { companyBody, killAll, type RunningService, startService } from "./support.ts"

const adminToken = "sandbox-clock-admin-token-0123456789abcdef"
const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-clocks-"))
const env = {
  PORT: "0",
  PARTNERPAY_DATA_DIR: dataDir,
  PARTNERPAY_KYB_DELAY_MS: "200",
  PARTNERPAY_SETTLEMENT_DELAY_MS: "200",
  PARTNERPAY_ADMIN_TOKEN: adminToken,
}

afterAll(() => {
  killAll()
  rmSync(dataDir, { recursive: true, force: true })
})

interface Partner {
  readonly clientId: string
  readonly clientSecret: string
}

const tokenOf = async (base: string, partner: Partner): Promise<string> =>
  (await ok(base, "POST", "/auth/token", undefined, { ClientId: partner.clientId, ClientSecret: partner.clientSecret }))
    .AccessToken

/** A verified company, a customer with a linked account and a weekly plan whose first instalment is collected. */
const weeklyPlan = async (base: string, token: string, reference: string, phoneNumber: string) => {
  const { companyId } = await ok(base, "POST", "/Company/Create", token, companyBody({ companyReferenceId: reference }))
  await until(base, `/company/status?companyId=${companyId}`, token, (body) => body.Status === "Verified")
  await ok(base, "POST", "/Login/SendOtp", token, { phoneNumber })
  const login = await ok(base, "PUT", "/Login/CheckOtp", token, { phoneNumber, code: "123456" })
  const customer = login.accessToken as string
  await verifyAndLink(base, customer, { deviceId: "phone" })
  const accountId = (await ok(base, "GET", "/Account/List", customer)).accounts[0].accountId
  const startDate = (await ok(base, "GET", "/Sandbox/Clock", token)).now.slice(0, 10)
  const plan = await ok(base, "POST", "/PaymentPlan/Create", token, {
    companyId,
    payerRegistrationId: login.registrationId,
    amount: { value: 25, currencyCode: "USD" },
    frequency: "Weekly",
    recurrenceInterval: 1,
    startDate,
    numberOfPayments: 4,
  })
  await ok(base, "PUT", `/Consent/${plan.consentId}/Accept`, customer, { bankAccountId: accountId })
  await ok(base, "PUT", `/PaymentPlan/${plan.paymentPlanId}/Activate`, token)
  await until(base, `/PaymentPlan/${plan.paymentPlanId}`, token, (body) => body.collectedCount === 1)
  return { planId: plan.paymentPlanId as string, companyId, payer: login.registrationId as string, startDate }
}

/** A new payment request's `createdAt`, in epoch milliseconds: the instant the request was handled at. */
const createdAt = async (base: string, token: string, companyId: string, payer: string, dueDate: string) => {
  const created = await ok(base, "POST", "/Payment/Create", token, {
    companyId,
    payerRegistrationId: payer,
    amount: { value: 5, currencyCode: "USD" },
    description: "Clock check",
    dueDate,
  })
  return Date.parse((await ok(base, "GET", `/Payment/${created.paymentRequestId}`, token)).createdAt)
}

describe("two partners' sandbox clocks", () => {
  it("advancing moves only the caller's partner's time, and survives a restart", { timeout: 90_000 }, async () => {
    let service: RunningService = await startService(env, 60_000)
    const admin = async (name: string): Promise<Partner> => {
      const created = await ok(service.url, "POST", "/admin/partners", adminToken, { name })
      return { clientId: created.clientId, clientSecret: created.clientSecret }
    }
    const a = await admin("Partner A")
    const b = await admin("Partner B")
    const tokenA = await tokenOf(service.url, a)
    const tokenB = await tokenOf(service.url, b)
    const { planId: planA, ...a1 } = await weeklyPlan(service.url, tokenA, "clock-a", "+14155550181")
    const { planId: planB, ...b1 } = await weeklyPlan(service.url, tokenB, "clock-b", "+14155550182")

    const clockB = await ok(service.url, "GET", "/Sandbox/Clock", tokenB)
    const advanced = await ok(service.url, "POST", "/Sandbox/Clock/Advance", tokenA, { days: 8 })
    assert.strictEqual(advanced.offsetSeconds, 8 * 86_400)

    // A's token (1 hour) expired on A's time; B's is still valid and B's clock did not move.
    assert.strictEqual((await call(service.url, "GET", `/PaymentPlan/${planA}`, tokenA)).status, 401)
    const stillB = await ok(service.url, "GET", "/Sandbox/Clock", tokenB)
    assert.strictEqual(stillB.offsetSeconds, 0)
    assert.isBelow(Date.parse(stillB.now) - Date.parse(clockB.now), 60_000)

    // A's plan collects its next instalment; B's is not collected early.
    const freshA = await tokenOf(service.url, a)
    const twice = await until(service.url, `/PaymentPlan/${planA}`, freshA, (body) => body.collectedCount === 2)
    assert.strictEqual(twice.instalments.length, 2)
    // Requests are handled on their partner's time.
    const aheadA = (await createdAt(service.url, freshA, a1.companyId, a1.payer, twice.nextDueDate)) - Date.now()
    assert.isAbove(aheadA, 8 * 86_400_000 - 60_000)
    const aheadB = (await createdAt(service.url, tokenB, b1.companyId, b1.payer, b1.startDate)) - Date.now()
    assert.isBelow(Math.abs(aheadB), 60_000)
    await new Promise((resolve) => setTimeout(resolve, 2_500)) // a few scheduler rounds
    const planOfB = await ok(service.url, "GET", `/PaymentPlan/${planB}`, tokenB)
    assert.strictEqual(planOfB.collectedCount, 1)

    // A restart on the same data directory keeps each partner's time.
    assert.strictEqual(await service.stop(), 0)
    service = await startService(env, 60_000)
    const afterA = await ok(service.url, "GET", "/Sandbox/Clock", await tokenOf(service.url, a))
    const afterB = await ok(service.url, "GET", "/Sandbox/Clock", await tokenOf(service.url, b))
    assert.strictEqual(afterA.offsetSeconds, 8 * 86_400)
    assert.strictEqual(afterB.offsetSeconds, 0)
    // B's token issued before the restart is still valid on B's time.
    assert.strictEqual((await call(service.url, "GET", `/PaymentPlan/${planB}`, tokenB)).status, 200)
    await service.stop()
  })
})
