/**
 * The authorization evidence as a legal record (docs/personal-data.md, "Authorization evidence"),
 * through the whole service in-process, on PGlite and on PostgreSQL (skipped loudly without a
 * server, failing with CI=true; see support.ts).
 *
 * A payer accepts a payment request through a proxy (PARTNERPAY_TRUST_PROXY=1: the evidence records
 * the forwarded address) with a distinctive User-Agent, then designates the account for autopay,
 * sets a debit authorization (with an Idempotency-Key: its stored answer is scanned too) and gives a
 * recurring charity gift the same way. The address and agent are answered on GET /Payment/{id},
 * GET /Account/Default and GET /Charity/Gifts/{id}, and never stored in plaintext (every text column
 * of every table scanned); the customer's erasure keeps them readable (a legal record); once the
 * partner's sandbox time is two years past, the purge worker destroys their key: they read
 * "[erased]" (acceptedAt and the text stay), no evidence key is left, and the database still holds
 * neither in plaintext.
 */
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Config from "../src/config/Config.ts"
import type * as Domain from "../src/Domain.ts"
import * as Logging from "../src/observability/Logging.ts"
import * as InProcessService from "./InProcessService.ts"
import { scan } from "./PersonalDataScan.ts"
import type { Json } from "./Requests.ts"
import * as Requests from "./Requests.ts"
import { companyBody, freshDatabase, postgresAvailable } from "./support.ts"

const adminToken = "operator-token-0123456789abcdefghijklmnop"
const clientId = "evidence-client"
const clientSecret = "evidence-secret-0123456789abcdef"
/** The payer's address as the proxy forwards it, and their app's User-Agent: distinctive, to be found if leaked. */
const payerAddress = "198.51.100.187"
const payerAgent = "EvidenceRetentionApp/9.1 (Zq7; legal-record)"
const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const configFor = async (database: "pglite" | "postgres") => {
  const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-evidence-"))
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }))
  const record: Partial<Record<Config.Variable, string>> = {
    PORT: "0",
    PARTNERPAY_DATA_DIR: dataDir,
    PARTNERPAY_KYB_DELAY_MS: "0",
    PARTNERPAY_SETTLEMENT_DELAY_MS: "0",
    PARTNERPAY_ADMIN_TOKEN: adminToken,
    PARTNERPAY_SANDBOX_CLIENT_ID: clientId,
    PARTNERPAY_SANDBOX_CLIENT_SECRET: clientSecret,
    PARTNERPAY_TRUST_PROXY: "1",
  }
  if (database === "postgres") {
    const db = await freshDatabase()
    cleanups.push(db.drop)
    record.DATABASE_URL = db.url
  }
  return await Effect.runPromise(Config.fromRecord(record))
}

const logging = Logging.layer("Warn", () => {})

const start = (config: Config.AppConfig) => InProcessService.run(config, logging)

/** Runs `effect` on the service's database, the service stopped (PGlite is single-process). */
const offline = <A>(config: Config.AppConfig, effect: Effect.Effect<A, unknown, SqlClient | Domain.DomainPorts>) =>
  InProcessService.offline(config, logging, effect)

const evidenceKeys = Effect.gen(function* () {
  const sql = yield* SqlClient
  return yield* sql<{ subject: string }>`
    SELECT subject FROM personal_data_keys WHERE subject LIKE 'authorization-evidence:%'`
})

const scenario = async (database: "pglite" | "postgres") => {
  const config = await configFor(database)
  let service = await start(config)
  let url = service.url
  const ok = (method: string, path: string, token?: string, body?: unknown, headers?: Record<string, string>) =>
    Requests.succeeded(url, method, path, token, body, headers)
  const until = async (path: string, token: string, accept: (body: Json) => boolean): Promise<Json> => {
    for (let attempt = 0; attempt < 400; attempt++) {
      const answer = await Requests.call(url, "GET", path, token)
      if (answer.status === 200 && accept(answer.body)) return answer.body
      await new Promise((done) => setTimeout(done, 50))
    }
    throw new Error(`GET ${path}: condition not met`)
  }
  const token = async () =>
    (await ok("POST", "/auth/token", undefined, { ClientId: clientId, ClientSecret: clientSecret }))
      .AccessToken as string
  let partner = await token()

  const company = await ok("POST", "/Company/Create", partner, companyBody({ companyReferenceId: "evidence-001" }))
  const companyId = company.companyId as string
  await ok("POST", "/Login/SendOtp", partner, { phoneNumber: "+14155550163" })
  const login = await ok("PUT", "/Login/CheckOtp", partner, { phoneNumber: "+14155550163", code: "123456" })
  const customer = login.accessToken as string
  const session = await ok("POST", "/Verification/StartKyc", customer, { deviceId: "evidence-phone" })
  const kyc = await ok("GET", "/Verification/CheckVerification", customer)
  assert.strictEqual(kyc.status, "Verified")
  await ok("PUT", "/Account/Link", customer, {
    tokenId: session.tokenId,
    publicToken: "public-sandbox-ok",
    linkAccountsMetadata: { linkSessionId: "link-1", institutionId: "ins_1", accountIds: ["acc-checking"] },
  })
  const account = (await ok("GET", "/Account/List", customer)).accounts[0]
  await until(`/company/status?companyId=${companyId}`, partner, (body) => body.Status === "Verified")
  const today = ((await ok("GET", "/Sandbox/Clock", partner)).now as string).slice(0, 10)
  const request = await ok("POST", "/Payment/Create", partner, {
    companyId,
    payerRegistrationId: login.registrationId,
    amount: { value: 30, currencyCode: "USD" },
    description: "Evidence kept two years",
    dueDate: today,
  })
  const payment = `/Payment/${request.paymentRequestId}`
  await ok(
    "POST",
    `/Transaction/PaymentRequest/${request.paymentRequestId}/Accept`,
    customer,
    { bankAccountId: account.accountId, acceptDebitAuth: false, transferDescription: "Invoice" },
    { "x-forwarded-for": payerAddress, "user-agent": payerAgent },
  )
  const payer = { "x-forwarded-for": payerAddress, "user-agent": payerAgent }
  const accepted = (await ok("GET", payment, partner)).authorization
  assert.deepInclude(accepted, { ipAddress: payerAddress, userAgent: payerAgent })
  assert.strictEqual(accepted.textVersion, "payment-acceptance/2026-11-28")
  // The autopay designation and a recurring gift record theirs too.
  await ok("PUT", "/Account/Default", customer, { bankAccountId: account.accountId }, payer)
  const autopay = (await ok("GET", "/Account/Default", customer)).authorization
  assert.deepInclude(autopay, { ipAddress: payerAddress, userAgent: payerAgent, textVersion: "autopay/2026-11-28" })
  const gift = await ok(
    "POST",
    "/Transaction/Charity/CreateAnonymous",
    customer,
    {
      verificationId: kyc.referenceId,
      amount: { value: 20, currencyCode: "USD" },
      companyId,
      isRecurring: true,
      payerCoversFee: false,
    },
    payer,
  )
  // A debit authorization set with an Idempotency-Key: its stored answer is scanned too.
  await ok(
    "POST",
    "/DebitAuth/Set",
    customer,
    { companyId, limit: { value: 100, currencyCode: "USD" } },
    { ...payer, "idempotency-key": randomUUID() },
  )
  const giftPath = `/Charity/Gifts/${gift.charityTransactionId}`
  const given = (await ok("GET", giftPath, partner)).authorization
  assert.deepInclude(given, {
    ipAddress: payerAddress,
    userAgent: payerAgent,
    textVersion: "recurring-charity-gift/2026-11-28",
  })

  // Erasure keeps the evidence: a legal record.
  const erased = await ok("POST", `/admin/customers/${login.registrationId}/erase`, adminToken)
  assert.isAtLeast(erased.keysDeleted, 2)
  assert.deepStrictEqual((await ok("GET", payment, partner)).authorization, accepted)
  assert.deepStrictEqual((await ok("GET", giftPath, partner)).authorization, given)
  await service.stop()

  const needles = [payerAddress, payerAgent]
  assert.deepStrictEqual((await offline(config, scan(needles))).found, [])
  assert.strictEqual((await offline(config, evidenceKeys)).length, 1)

  // Two years and a day later on the partner's time: the purge worker destroys the evidence key.
  service = await start(config)
  url = service.url
  partner = await token()
  await ok("POST", "/Sandbox/Clock/Advance", partner, { days: 400 })
  partner = await token()
  assert.deepStrictEqual((await ok("GET", payment, partner)).authorization, accepted)
  await ok("POST", "/Sandbox/Clock/Advance", partner, { days: 400 })
  partner = await token()
  const purged = await until(payment, partner, (body) => body.authorization?.ipAddress === "[erased]")
  assert.deepStrictEqual(purged.authorization, { ...accepted, ipAddress: "[erased]", userAgent: "[erased]" })
  assert.deepStrictEqual((await ok("GET", giftPath, partner)).authorization, {
    ...given,
    ipAddress: "[erased]",
    userAgent: "[erased]",
  })
  await service.stop()

  assert.deepStrictEqual(await offline(config, evidenceKeys), [])
  assert.deepStrictEqual((await offline(config, scan(needles))).found, [])
}

describe("authorization evidence, a legal record", () => {
  it("on PGlite: kept through erasure, purged two years after acceptance", { timeout: 240_000 }, () =>
    scenario("pglite"),
  )
  it.skipIf(!postgresAvailable)(
    "on PostgreSQL: kept through erasure, purged two years after acceptance",
    { timeout: 240_000 },
    () => scenario("postgres"),
  )
})
