/**
 * Personal data at rest and its erasure (docs/personal-data.md), through the
 * whole service in-process (`Service.makeLayer`), on the embedded PGlite
 * database and on PostgreSQL (skipped loudly without a server, failing with
 * CI=true; see support.ts).
 *
 * A company owner and a verified customer give personal data (every POST with
 * an Idempotency-Key, so stored answers count too); the customer links a bank
 * account, registers a push token, pays a payment request (a transfer, then a
 * refund) and a plan's instalment (a transfer), and the partner has a webhook
 * with a signing secret. Every column of every table that can hold text
 * (`PersonalDataScan.ts`, generic over tables) is then scanned for the
 * people's plaintext values and the signing secret, before erasure, after it,
 * and after a projection rebuild: none is there (sealed at rest), and no log
 * line holds one; the API still answers them. After erasure (operator API)
 * the customer's old token is refused at once, the API answers "[erased]"
 * (the transfers' sender name included), and the rest of the service keeps
 * working: the company's status, logins (the erased customer's too, same
 * registration id), payment requests.
 */
import { randomUUID } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { PgDomain, PgPersonalDataVault } from "@partnerpay/adapters-pg"
import { PersonalData } from "@partnerpay/domain"
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Config from "../src/config/Config.ts"
import type * as Domain from "../src/Domain.ts"
import * as Logging from "../src/observability/Logging.ts"
import * as InProcessService from "./InProcessService.ts"
import { coverage, scan } from "./PersonalDataScan.ts"
import type { Json } from "./Requests.ts"
import * as Requests from "./Requests.ts"
import { companyBody, freshDatabase, postgresAvailable } from "./support.ts"

const adminToken = "operator-token-0123456789abcdefghijklmnop"
const clientId = "pii-client"
const clientSecret = "pii-secret-0123456789abcdef"
/** The partner's webhook signing secret: not personal data, but never in plaintext at rest either. */
const webhookSecret = "whsec_scan-signing-secret-0123456789abcdef"
const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

/** The owner: every value distinctive, so that finding it anywhere means it leaked. */
const owner = {
  name: "Zelda Quartermaine",
  emailAddress: "zelda.quartermaine@owner.example",
  contactNumber: "(415) 555-0177",
  title: "Founding Proprietor",
  documentNumber: "Q99887766",
  documentType: "Passport",
  ssn: "111-22-7531",
  dateOfBirth: "1971-03-04",
  streetNumberAndName: "77 Erasure Lane",
  zipCode: "05401",
  city: "Quietville",
  state: "VT",
}

/** What must never be found in plaintext: the owner's stored fields, the customer's phone and KYC data. */
const ownerValues = [
  owner.name,
  owner.emailAddress,
  "+14155550177",
  owner.title,
  owner.documentNumber,
  "111227531",
  "111-22-7531",
  '"7531"',
  owner.dateOfBirth,
  owner.streetNumberAndName,
  '"05401"',
  owner.city,
  '"VT"',
]
/** The company's payout account: the holder's name (a person, for a sole proprietor) and the full number. */
const payoutHolderName = "Zelda Quartermaine Provisions"
const payoutAccountNumber = "918273645501"
const erasedPhone = "+14155550142"
const otherPhone = "+14155550187"
const pushToken = "push-token-of-the-payer-7f3a9c2e"
/**
 * The sandbox KYC confirms "Sandbox Customer" (the transfers' sender name), the sandbox bank link
 * names the account "Sandbox Checking".
 */
const customerValues = [
  erasedPhone,
  '"Sandbox"',
  '"Customer"',
  "Sandbox Customer",
  "sandbox.customer@example.com",
  "1990-01-01",
  '"6789"',
  "Sandbox Checking",
  pushToken,
]

const configFor = async (database: "pglite" | "postgres") => {
  const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-pii-"))
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }))
  const record: Partial<Record<Config.Variable, string>> = {
    PORT: "0",
    PARTNERPAY_DATA_DIR: dataDir,
    PARTNERPAY_KYB_DELAY_MS: "0",
    PARTNERPAY_SETTLEMENT_DELAY_MS: "0",
    PARTNERPAY_ADMIN_TOKEN: adminToken,
    PARTNERPAY_SANDBOX_CLIENT_ID: clientId,
    PARTNERPAY_SANDBOX_CLIENT_SECRET: clientSecret,
    // Nothing listens there: deliveries are retried, the rows stay queued (a queued webhook is scanned too).
    PARTNERPAY_SANDBOX_WEBHOOK_URL: "http://127.0.0.1:9/partnerpay-scan",
    PARTNERPAY_SANDBOX_WEBHOOK_SECRET: webhookSecret,
  }
  if (database === "postgres") {
    const db = await freshDatabase()
    cleanups.push(db.drop)
    record.DATABASE_URL = db.url
  }
  return await Effect.runPromise(Config.fromRecord(record))
}

/** Every log line the service writes in a scenario (every level), scanned like the tables. */
const logLines: Array<string> = []
const logging = Logging.layer("All", (line) => {
  logLines.push(line)
})

const start = (config: Config.AppConfig) => InProcessService.run(config, logging)

/** Runs `effect` on the service's database, the service stopped (PGlite is single-process). */
const offline = <A>(config: Config.AppConfig, effect: Effect.Effect<A, unknown, SqlClient | Domain.DomainPorts>) =>
  InProcessService.offline(config, logging, effect)

/** Every POST carries an Idempotency-Key, so stored answers are scanned too. */
const idempotencyKey = (method: string, path: string): Record<string, string> =>
  method === "POST" && !path.startsWith("/admin") && path !== "/auth/token" ? { "idempotency-key": randomUUID() } : {}

const call = (base: string, method: string, path: string, token?: string, body?: unknown) =>
  Requests.call(base, method, path, token, body, idempotencyKey(method, path))

const ok = (base: string, method: string, path: string, token?: string, body?: unknown) =>
  Requests.succeeded(base, method, path, token, body, idempotencyKey(method, path))

/** Polls a GET until `accept` holds for its answer. */
const until = async (base: string, path: string, token: string, accept: (body: Json) => boolean): Promise<Json> => {
  for (let attempt = 0; attempt < 400; attempt++) {
    const answer = await call(base, "GET", path, token)
    if (answer.status === 200 && accept(answer.body)) return answer.body
    await new Promise((done) => setTimeout(done, 50))
  }
  throw new Error(`GET ${path}: condition not met`)
}

const scenario = async (database: "pglite" | "postgres") => {
  logLines.length = 0
  const config = await configFor(database)
  let service = await start(config)
  let url = service.url
  const token = async () =>
    (await ok(url, "POST", "/auth/token", undefined, { ClientId: clientId, ClientSecret: clientSecret }))
      .AccessToken as string
  let partner = await token()
  const login = async (phoneNumber: string) => {
    await ok(url, "POST", "/Login/SendOtp", partner, { phoneNumber })
    const answer = await ok(url, "PUT", "/Login/CheckOtp", partner, { phoneNumber, code: "123456" })
    return { customerToken: answer.accessToken as string, registrationId: answer.registrationId as string }
  }

  // A sole proprietor: the tax id is the owner's SSN.
  const company = await ok(
    url,
    "POST",
    "/Company/Create",
    partner,
    companyBody({
      companyReferenceId: "pii-001",
      companyType: "SoleProprietorship",
      taxIdType: "SSN",
      taxId: owner.ssn,
      owner,
    }),
  )
  const companyId = company.companyId as string
  const customer = await login(erasedPhone)
  const session = await ok(url, "POST", "/Verification/StartKyc", customer.customerToken, { deviceId: "pii-phone" })
  const verification = await ok(url, "GET", "/Verification/CheckVerification", customer.customerToken)
  assert.strictEqual(verification.status, "Verified")
  const other = await login(otherPhone)
  const personal = await ok(url, "GET", "/Verification/PersonalData", customer.customerToken)
  assert.include(JSON.stringify(personal), "sandbox.customer@example.com")

  // The payer links an account, registers a push token, pays a request (then refunded in part) and a plan's instalment.
  await ok(url, "PUT", "/Account/Link", customer.customerToken, {
    tokenId: session.tokenId,
    publicToken: "public-sandbox-ok",
    linkAccountsMetadata: { linkSessionId: "link-1", institutionId: "ins_1", accountIds: ["acc-checking"] },
  })
  const account = (await ok(url, "GET", "/Account/List", customer.customerToken)).accounts[0]
  assert.strictEqual(account.name, "Sandbox Checking")
  await ok(url, "POST", "/Customer/NotificationToken", customer.customerToken, {
    token: pushToken,
    expireAt: { value: new Date(Date.now() + 30 * 86_400_000).toISOString() },
  })
  await until(url, `/company/status?companyId=${companyId}`, partner, (body) => body.Status === "Verified")
  // The company's payout account: its holder's name and full number are sealed, the number shown masked only.
  const payoutAccount = await ok(url, "PUT", `/Company/${companyId}/PayoutAccount`, partner, {
    accountHolderName: payoutHolderName,
    routingNumber: "011000015",
    accountNumber: payoutAccountNumber,
    accountType: "Checking",
  })
  assert.strictEqual(payoutAccount.accountNumberMasked, "****5501")
  const today = ((await ok(url, "GET", "/Sandbox/Clock", partner)).now as string).slice(0, 10)
  const request = await ok(url, "POST", "/Payment/Create", partner, {
    companyId,
    payerRegistrationId: customer.registrationId,
    amount: { value: 40, currencyCode: "USD" },
    description: "Before erasure",
    dueDate: today,
  })
  await ok(url, "POST", `/Transaction/PaymentRequest/${request.paymentRequestId}/Accept`, customer.customerToken, {
    bankAccountId: account.accountId,
    acceptDebitAuth: false,
    transferDescription: "Invoice",
  })
  const paid = await until(url, `/Payment/${request.paymentRequestId}`, partner, (body) => body.status === "Paid")
  const requestTransfer = paid.transferId as string
  await ok(url, "POST", `/Transaction/${requestTransfer}/Refund`, partner, {
    amount: { value: 5, currencyCode: "USD" },
    reason: "Partial refund",
  })
  const plan = await ok(url, "POST", "/PaymentPlan/Create", partner, {
    companyId,
    payerRegistrationId: customer.registrationId,
    amount: { value: 25, currencyCode: "USD" },
    frequency: "Weekly",
    recurrenceInterval: 1,
    startDate: today,
    numberOfPayments: 2,
  })
  await ok(url, "PUT", `/Consent/${plan.consentId}/Accept`, customer.customerToken, {
    bankAccountId: account.accountId,
  })
  await ok(url, "PUT", `/PaymentPlan/${plan.paymentPlanId}/Activate`, partner)
  const collected = await until(url, `/PaymentPlan/${plan.paymentPlanId}`, partner, (body) => body.settledCount === 1)
  const instalmentTransfer = collected.instalments[0].transferId as string
  const transfers = [requestTransfer, instalmentTransfer]
  for (const transferId of transfers) {
    assert.strictEqual((await ok(url, "GET", `/Transaction/${transferId}`, partner)).senderName, "Sandbox Customer")
  }
  const report = await ok(url, "GET", `/Transaction/Report?from=${today}&to=${today}`, partner)
  assert.sameMembers(
    report.items.map((item: Json) => item.senderName),
    ["Sandbox Customer", "Sandbox Customer"],
  )
  // The status messages of the paid request went out (push to the token): wait for them, so the erasure below
  // finds the message log's key whatever the notifier's timing.
  await until(url, `/Sandbox/Messages?registrationId=${customer.registrationId}`, partner, (body) =>
    body.data.some((message: Json) => message.channel === "push" && message.to === pushToken),
  )
  assert.strictEqual((await ok(url, "GET", "/Webhooks/Endpoint", partner)).signingSecret, webhookSecret)
  await service.stop()

  // Before erasure: nobody's personal data in plaintext anywhere, the transfers, the instalment and the webhooks
  // (queued: nothing listens at the webhook URL) scanned with the rest.
  const needles = [
    ...ownerValues,
    ...customerValues,
    otherPhone,
    "bob@acme.example.com",
    webhookSecret,
    payoutHolderName,
    payoutAccountNumber,
  ]
  const sealed = await offline(config, scan(needles))
  assert.isAbove(sealed.columns.length, 10)
  assert.deepStrictEqual(sealed.found, [])
  const covered = await offline(config, coverage)
  for (const collection of ["transfers", "payment_plans", "customers", "payment_requests"])
    assert.isAbove(covered.documents[collection] ?? 0, 0, `${collection} documents were scanned`)
  for (const webhook of ["PAYMENT_REQUEST_STATUS_CHANGED", "PAYMENT_PLAN_INSTALMENT_STATUS_CHANGED"])
    assert.isAbove(covered.webhooks[webhook] ?? 0, 0, `${webhook} webhooks were scanned`)

  service = await start(config)
  url = service.url
  partner = await token()
  assert.strictEqual((await call(url, "GET", "/Account/List", customer.customerToken)).status, 200)

  // Erasure by the operator; the customer's tokens die with it.
  const erasedCustomer = await ok(url, "POST", `/admin/customers/${customer.registrationId}/erase`, adminToken)
  assert.deepStrictEqual(erasedCustomer, {
    registrationId: customer.registrationId,
    erased: true,
    keysDeleted: 3,
    tokensRevoked: true,
  })
  assert.strictEqual((await call(url, "GET", "/Account/List", customer.customerToken)).status, 401)
  assert.strictEqual((await call(url, "GET", "/Verification/PersonalData", customer.customerToken)).status, 401)
  const erasedOwner = await ok(url, "POST", `/admin/companies/${companyId}/erase-owner`, adminToken)
  assert.deepStrictEqual(erasedOwner, { companyId, ownerErased: true, keysDeleted: 1 })
  assert.strictEqual((await call(url, "POST", "/admin/customers/unknown-id/erase", adminToken)).status, 404)
  assert.strictEqual(
    (await call(url, "POST", `/admin/companies/${customer.registrationId}/erase-owner`, adminToken)).status,
    404,
  )
  assert.strictEqual((await call(url, "POST", `/admin/companies/${companyId}/erase-owner`)).status, 401)

  // Every read shows the erased fields as "[erased]": the customer's own data and the transfers they paid.
  const relogged = await login(erasedPhone)
  assert.strictEqual(relogged.registrationId, customer.registrationId)
  const erasedView = await ok(url, "GET", "/Verification/PersonalData", relogged.customerToken)
  const texts = Object.values(erasedView).filter((value) => typeof value === "string")
  assert.isAbove(texts.length, 3)
  for (const value of texts) assert.strictEqual(value, "[erased]")
  const erasedTransfers = async () => {
    for (const transferId of transfers) {
      const transfer = await ok(url, "GET", `/Transaction/${transferId}`, partner)
      assert.strictEqual(transfer.senderName, "[erased]", transferId)
    }
    const erasedReport = await ok(url, "GET", `/Transaction/Report?from=${today}&to=${today}`, partner)
    assert.deepStrictEqual(
      erasedReport.items.map((item: Json) => item.senderName),
      ["[erased]", "[erased]"],
    )
  }
  await erasedTransfers()
  assert.deepStrictEqual(
    (await ok(url, "GET", "/Account/List", relogged.customerToken)).accounts.map((listed: Json) => listed.name),
    ["[erased]"],
  )

  // The rest keeps working: company status, logins (the erased customer keeps their id), payment requests.
  assert.strictEqual((await ok(url, "GET", `/company/status?companyId=${companyId}`, partner)).CompanyId, companyId)
  assert.strictEqual((await login(otherPhone)).registrationId, other.registrationId)
  await service.stop()

  // Offline: nothing of anyone's personal data in plaintext in any table (sealed at rest: the other customer's
  // phone and the employee too; erased: the owner and the customer), before and after a projection rebuild.
  const before = await offline(config, scan(needles))
  assert.deepStrictEqual(before.found, [])
  const replayed = await offline(config, PgDomain.rebuildProjections())
  assert.isAbove(replayed, 5)
  assert.deepStrictEqual((await offline(config, scan(needles))).found, [])
  const subjects = await offline(
    config,
    Effect.gen(function* () {
      const sql = yield* SqlClient
      const stored = yield* sql<{ n: number | string }>`SELECT count(*) AS n FROM idempotency_keys`
      assert.isAbove(Number(stored[0]?.n), 3, "stored Idempotency-Key answers were scanned")
      return yield* sql<{ subject: string }>`SELECT subject FROM personal_data_keys`
    }),
  ).then((rows) => rows.map((row) => row.subject))
  // Challenge streams are keyed by the phone's HMAC with the key derived from this service's master key.
  const master = PgPersonalDataVault.parseMasterKey(readFileSync(join(config.dataDir, "data-key"), "utf8"))
  const phoneIndex = PersonalData.makePhoneIndexWith(PgPersonalDataVault.phoneIndexSecret(master))
  const challenges = await offline(
    config,
    Effect.gen(function* () {
      const sql = yield* SqlClient
      return yield* sql<{ stream_id: string }>`
        SELECT stream_id FROM streams WHERE stream_id LIKE 'LoginChallenge-%' ORDER BY stream_id`
    }),
  ).then((rows) => rows.map((row) => row.stream_id))
  const partnerOf = challenges[0]!.slice("LoginChallenge-".length).split(":")[0]
  const expected = await Effect.runPromise(
    Effect.forEach([erasedPhone, otherPhone], (phone) =>
      Effect.map(phoneIndex.of(phone), (hash) => `LoginChallenge-${partnerOf}:${hash}`),
    ),
  )
  assert.deepStrictEqual(challenges, [...expected].sort())
  assert.notInclude(subjects, `customer:${customer.registrationId}`)
  assert.notInclude(subjects, `company-owner:${companyId}`)
  assert.include(subjects, `customer:${other.registrationId}`)
  assert.include(subjects, `company-employees:${companyId}`)

  // After the rebuild and a restart: still erased, everything else still answers.
  service = await start(config)
  url = service.url
  partner = await token()
  const again = await login(erasedPhone)
  assert.strictEqual(again.registrationId, customer.registrationId)
  assert.deepStrictEqual(await ok(url, "GET", "/Verification/PersonalData", again.customerToken), erasedView)
  assert.strictEqual((await login(otherPhone)).registrationId, other.registrationId)
  await erasedTransfers()
  assert.strictEqual((await ok(url, "GET", "/Webhooks/Endpoint", partner)).signingSecret, webhookSecret)
  const after = await ok(url, "POST", "/Payment/Create", partner, {
    companyId,
    payerRegistrationId: customer.registrationId,
    amount: { value: 12.5, currencyCode: "USD" },
    description: "After erasure",
    dueDate: today,
  })
  assert.strictEqual(after.status, "Pending")
  await service.stop()

  // No log line of the whole scenario held a personal value or the signing secret.
  assert.isAbove(logLines.length, 10)
  const logged = needles.filter((needle) => logLines.some((line) => line.includes(needle)))
  assert.deepStrictEqual(logged, [])
}

describe("personal data at rest and its erasure", () => {
  it("on PGlite: sealed at rest, erased by key, the rest of the service unaffected", { timeout: 240_000 }, () =>
    scenario("pglite"),
  )
  it.skipIf(!postgresAvailable)(
    "on PostgreSQL: sealed at rest, erased by key, the rest of the service unaffected",
    { timeout: 240_000 },
    () => scenario("postgres"),
  )
})
