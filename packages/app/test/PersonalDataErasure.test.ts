/**
 * Personal data at rest and its erasure (docs/personal-data.md), through the
 * whole service in-process (`Service.makeLayer`), on the embedded PGlite
 * database and on PostgreSQL (skipped loudly without a server, failing with
 * CI=true; see support.ts).
 *
 * A company owner and a verified customer give personal data (every POST with
 * an Idempotency-Key, so stored answers count too); every text and jsonb column of every table is then scanned for their plaintext values:
 * none is there (sealed at rest), the API still answers them. After erasure
 * (operator API) the API answers "[erased]", the scan still finds nothing, a
 * projection rebuild works, and the rest of the service keeps working: the
 * company's status, logins (the erased customer's too, same registration id),
 * payment requests.
 */
import { randomUUID } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { PgDomain, PgPersonalDataVault } from "@partnerpay/adapters-pg"
import { PersonalData } from "@partnerpay/domain"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { HttpServer } from "effect/http"
import { SqlClient } from "effect/sql/SqlClient"
import * as AppConfig from "../src/Config.ts"
import * as Database from "../src/Database.ts"
import * as Domain from "../src/Domain.ts"
import * as Logging from "../src/Logging.ts"
import * as Service from "../src/Service.ts"
import { companyBody, freshDatabase, postgresAvailable } from "./support.ts"

const adminToken = "operator-token-0123456789abcdefghijklmnop"
const clientId = "pii-client"
const clientSecret = "pii-secret-0123456789abcdef"
const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read field by field
type Json = any

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
const erasedPhone = "+14155550142"
const otherPhone = "+14155550187"
const customerValues = [erasedPhone, '"Sandbox"', '"Customer"', "sandbox.customer@example.com", "1990-01-01", '"6789"']

interface Running {
  readonly url: string
  readonly stop: () => Promise<void>
}

const configFor = async (database: "pglite" | "postgres") => {
  const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-pii-"))
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }))
  const record: Partial<Record<AppConfig.Variable, string>> = {
    PORT: "0",
    PARTNERPAY_DATA_DIR: dataDir,
    PARTNERPAY_KYB_DELAY_MS: "0",
    PARTNERPAY_ADMIN_TOKEN: adminToken,
    PARTNERPAY_SANDBOX_CLIENT_ID: clientId,
    PARTNERPAY_SANDBOX_CLIENT_SECRET: clientSecret,
  }
  if (database === "postgres") {
    const db = await freshDatabase()
    cleanups.push(db.drop)
    record.DATABASE_URL = db.url
  }
  return await Effect.runPromise(AppConfig.fromRecord(record))
}

/** The whole service in-process. */
const start = async (config: AppConfig.AppConfig): Promise<Running> => {
  const runtime = ManagedRuntime.make(
    Service.makeLayer(config, Redacted.make("t".repeat(48))).pipe(Layer.provide(Logging.layer("None"))),
  )
  const url = await runtime.runPromise(
    Effect.map(HttpServer.HttpServer, (server) => HttpServer.formatAddress(server.address)),
  )
  return { url, stop: () => runtime.dispose() }
}

/** Runs `effect` with the service's domain stack on its database, the service stopped (PGlite is single-process). */
const offline = <A>(config: AppConfig.AppConfig, effect: Effect.Effect<A, unknown, SqlClient | Domain.DomainPorts>) =>
  Effect.runPromise(
    effect.pipe(
      Effect.provide(Domain.layerWith(config).pipe(Layer.provideMerge(Database.layer(config.database)))),
      Effect.provide(Logging.layer("None")),
    ) as Effect.Effect<A, unknown, never>,
  )

const call = async (base: string, method: string, path: string, token?: string, body?: unknown) => {
  const headers: Record<string, string> = {}
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  if (body !== undefined) headers["content-type"] = "application/json"
  // Every POST carries an Idempotency-Key, so stored answers are scanned too.
  if (method === "POST" && !path.startsWith("/admin") && path !== "/auth/token")
    headers["idempotency-key"] = randomUUID()
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  return { status: response.status, body: (text === "" ? undefined : JSON.parse(text)) as Json }
}

const ok = async (base: string, method: string, path: string, token?: string, body?: unknown): Promise<Json> => {
  const answer = await call(base, method, path, token, body)
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`)
  return answer.body
}

/** Every (table, column) of type text, varchar, json or jsonb, and the values of `needles` found in them. */
const scan = (needles: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient
    const columns = yield* sql<{ table_name: string; column_name: string }>`
      SELECT c.table_name, c.column_name FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
        AND c.data_type IN ('text', 'character varying', 'json', 'jsonb', 'ARRAY')`
    const found: Array<string> = []
    for (const { table_name, column_name } of columns) {
      for (const needle of needles) {
        const rows = yield* sql<{ n: number | string }>`
          SELECT count(*) AS n FROM ${sql(table_name)}
          WHERE strpos(${sql(column_name)}::text, ${needle}) > 0`
        if (Number(rows[0]?.n ?? 0) > 0) found.push(`${needle} in ${table_name}.${column_name}`)
      }
    }
    return { columns: columns.length, found }
  })

const scenario = async (database: "pglite" | "postgres") => {
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
  await ok(url, "POST", "/Verification/StartKyc", customer.customerToken, { deviceId: "pii-phone" })
  const verification = await ok(url, "GET", "/Verification/CheckVerification", customer.customerToken)
  assert.strictEqual(verification.status, "Verified")
  const other = await login(otherPhone)
  const personal = await ok(url, "GET", "/Verification/PersonalData", customer.customerToken)
  assert.include(JSON.stringify(personal), "sandbox.customer@example.com")

  // Erasure by the operator.
  const erasedCustomer = await ok(url, "POST", `/admin/customers/${customer.registrationId}/erase`, adminToken)
  assert.deepStrictEqual(erasedCustomer, { registrationId: customer.registrationId, erased: true, keysDeleted: 2 })
  const erasedOwner = await ok(url, "POST", `/admin/companies/${companyId}/erase-owner`, adminToken)
  assert.deepStrictEqual(erasedOwner, { companyId, ownerErased: true, keysDeleted: 1 })
  assert.strictEqual((await call(url, "POST", "/admin/customers/unknown-id/erase", adminToken)).status, 404)
  assert.strictEqual(
    (await call(url, "POST", `/admin/companies/${customer.registrationId}/erase-owner`, adminToken)).status,
    404,
  )
  assert.strictEqual((await call(url, "POST", `/admin/companies/${companyId}/erase-owner`)).status, 401)

  // Every read shows the erased fields as "[erased]".
  const erasedView = await ok(url, "GET", "/Verification/PersonalData", customer.customerToken)
  const texts = Object.values(erasedView).filter((value) => typeof value === "string")
  assert.isAbove(texts.length, 3)
  for (const value of texts) assert.strictEqual(value, "[erased]")

  // The rest keeps working: company status, logins (the erased customer keeps their id), payment requests.
  assert.strictEqual((await ok(url, "GET", `/company/status?companyId=${companyId}`, partner)).CompanyId, companyId)
  assert.strictEqual((await login(erasedPhone)).registrationId, customer.registrationId)
  assert.strictEqual((await login(otherPhone)).registrationId, other.registrationId)
  await service.stop()

  // Offline: nothing of anyone's personal data in plaintext in any table (sealed at rest: the other customer's
  // phone and the employee too; erased: the owner and the customer), before and after a projection rebuild.
  const needles = [...ownerValues, ...customerValues, otherPhone, "bob@acme.example.com"]
  const before = await offline(config, scan(needles))
  assert.isAbove(before.columns, 10)
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
  for (let attempt = 0; attempt < 100; attempt++) {
    const current = await ok(url, "GET", `/company/status?companyId=${companyId}`, partner)
    if (current.Status === "Verified") break
    await new Promise((done) => setTimeout(done, 50))
  }
  const request = await ok(url, "POST", "/Payment/Create", partner, {
    companyId,
    payerRegistrationId: customer.registrationId,
    amount: { value: 12.5, currencyCode: "USD" },
    description: "After erasure",
    dueDate: new Date().toISOString().slice(0, 10),
  })
  assert.strictEqual(request.status, "Pending")
  await service.stop()
}

describe("personal data at rest and its erasure", () => {
  it("on PGlite: sealed at rest, erased by key, the rest of the service unaffected", { timeout: 120_000 }, () =>
    scenario("pglite"),
  )
  it.skipIf(!postgresAvailable)(
    "on PostgreSQL: sealed at rest, erased by key, the rest of the service unaffected",
    { timeout: 120_000 },
    () => scenario("postgres"),
  )
})
