/**
 * The schema is ready for a database sharded by partner (issue 27 section 4,
 * docs/scaling.md "Past one PostgreSQL"):
 *
 * - the catalog: every table of a migrated database (information_schema) has
 *   a `partner_id` column, or is in `globalTables` below, each with the reason
 *   it holds no partner's data;
 * - the statement log of an acceptance-style run: the whole service
 *   in-process (`Service.makeLayer`, sandbox, PostgreSQL), driven over HTTP
 *   through the main partner operations (token, company, customer login and
 *   bank link, payment request, accept, cancel, plan, consent, reads, an
 *   Idempotency-Key). Every statement is captured by a statement transformer
 *   (`Statement.CurrentTransformer`) with the partner of the request it ran
 *   in (`Tenancy.CurrentPartner`). Each statement of a partner's request that
 *   touches a partner table filters or writes by `partner_id`; a unit's
 *   commit (`commit_unit`) files every stream, document, notification, data
 *   key and Idempotency-Key answer it carries under the request's partner.
 *   The exceptions are listed in `allowedUnfiltered`, with their reasons.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { PgDatabase } from "@partnerpay/adapters-pg"
import { Tenancy } from "@partnerpay/domain"
import { Context, Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { HttpServer, HttpServerRequest } from "effect/http"
import { SqlClient } from "effect/sql/SqlClient"
import * as Statement from "effect/sql/Statement"
import * as Config from "../src/config/Config.ts"
import * as Logging from "../src/observability/Logging.ts"
import * as Service from "../src/Service.ts"
import { request as call, type Json } from "./Requests.ts"
import { companyBody, freshDatabase, postgresAvailable } from "./support.ts"

/** Tables that hold no partner's data, and why (they stay local or become reference tables). */
const globalTables: Record<string, string> = {
  // Which migrations the database has applied: the schema's, shared by every partner.
  partnerpay_migrations: "the schema's own bookkeeping",
  // The running instances and their heartbeats: the deployment's, not a partner's.
  service_instances: "the deployment's live instances",
  // The workers' claims of their items (kind, item id, attempts, backoff): the deployment's scheduling
  // state, read across partners by one query per worker; the item itself lives in its partner's stream.
  work_claims: "the workers' scheduling state (claims, attempts, backoff)",
  // The providers' inbound notifications by their event id (replay guard): recorded before any partner
  // is known (a notification names a provider's resource; the handler finds the partner from it).
  provider_notifications: "the providers' event ids, recorded before a partner is known",
}

/**
 * Statements run in a partner's request that touch a partner table without `partner_id`, and why
 * that is right. Matched by a fragment of their text.
 */
const allowedUnfiltered: ReadonlyArray<readonly [fragment: string, reason: string]> = [
  // Housekeeping piggy-backed on a request (at most once a minute): expired keys of every partner.
  ["DELETE FROM idempotency_keys WHERE expires_at", "purges expired keys of every partner"],
  // Housekeeping piggy-backed on recording a message (at most once a minute): past the retention.
  ["DELETE FROM sent_messages WHERE sent_at <", "purges messages past their retention, of every partner"],
  // Housekeeping after a revocation: generations older than every token's lifetime, of every subject.
  ["DELETE FROM token_generations WHERE updated_at", "purges generations older than every token"],
]

/** The owner of the workers' work lists (the nil UUID, which no partner can have). */
const systemTenant = "00000000-0000-0000-0000-000000000000"

/**
 * Read-model collections a partner's unit writes (and its request reads: `partner_id IN (<partner>,
 * <system tenant>)`) under `systemTenant`, and why: the workers' work lists, read across partners
 * by one indexed query each. In a sharded deployment these documents
 * live on the system tenant's shard, so a unit writing one is a two-shard transaction
 * (docs/scaling.md, "Limits").
 */
const systemCollections: Record<string, string> = {
  payment_plans_due: "the plan scheduler's work list (plans due to collect)",
  payment_requests_autocollect: "the auto-collection scheduler's work list (requests due by autopay)",
  payment_notices: "the reminder and status-message workers' work list",
  sandbox_card_disputes: "the sandbox dispute worker's work list (card payments with the card ending in 0259)",
  card_refund_retries: "the card-refund retry worker's work list (card refunds the processor could not be asked for)",
}

const adminToken = "operator-token-0123456789abcdefghijklmnop"
const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
}, 60_000)

interface Logged {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
  /** The partner of the request the statement ran in; undefined outside a partner's request. */
  readonly partner: string | undefined
  readonly inRequest: boolean
}

/** The public tables of the database at `url`, each with whether it has a `partner_id` column. */
const tablesOf = (url: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient
      const rows = yield* sql<{ readonly table_name: string; readonly partner: boolean }>`
        SELECT t.table_name, EXISTS (
          SELECT 1 FROM information_schema.columns c
          WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name AND c.column_name = 'partner_id'
        ) AS partner
        FROM information_schema.tables t
        WHERE t.table_schema = 'public' AND t.table_type = 'BASE TABLE'
        ORDER BY t.table_name`
      return rows.map((row) => ({ table: row.table_name, partner: row.partner }))
    }).pipe(Effect.scoped, Effect.provide(PgDatabase.layerPostgres(url, { maxConnections: 1 }))),
  )

/** The statement compares `partner_id` with a parameter, or inserts rows with a `partner_id`. */
const filtersByPartner = (text: string): boolean =>
  /\bpartner_id"?\s*(=\s*\$\d+|IN\s*\(\$\d+,\s*\$\d+\))/i.test(text) ||
  /^\s*(WITH[\s\S]*?)?INSERT INTO\s+\w+\s*\([^)]*\bpartner_id\b/i.test(text)

const touches = (text: string, tables: ReadonlyArray<string>): ReadonlyArray<string> =>
  tables.filter((table) => new RegExp(`\\b(FROM|INTO|UPDATE|JOIN)\\s+${table}\\b`, "i").test(text))

/** The service in-process on a fresh database, every statement logged; its base URL and the log. */
const start = async () => {
  const db = await freshDatabase()
  cleanups.push(db.drop)
  const log: Array<Logged> = []
  const transformer: Statement.Transformer = (self, _sql, fiber) => {
    const [text, params] = self.compile()
    log.push({
      text,
      params,
      partner: fiber.getRef(Tenancy.CurrentPartner),
      inRequest: Context.getOption(fiber.context, HttpServerRequest.HttpServerRequest)._tag === "Some",
    })
    return Effect.succeed(self)
  }
  const config = await Effect.runPromise(
    Config.fromRecord({
      DATABASE_URL: db.url,
      PORT: "0",
      PARTNERPAY_ENV: "sandbox",
      PARTNERPAY_KYB_DELAY_MS: "0",
      PARTNERPAY_SETTLEMENT_DELAY_MS: "100",
      PARTNERPAY_ADMIN_TOKEN: adminToken,
    }),
  )
  const runtime = ManagedRuntime.make(
    Service.makeLayer(config, Redacted.make("t".repeat(48))).pipe(
      Layer.provide(Logging.layer("None")),
      Layer.provide(Layer.succeed(Statement.CurrentTransformer, transformer)),
    ),
  )
  cleanups.push(() => runtime.dispose())
  const base = await runtime.runPromise(
    Effect.map(HttpServer.HttpServer, (server) => HttpServer.formatAddress(server.address)),
  )
  return { base, log, url: db.url }
}

const ok = async (base: string, method: string, path: string, token?: string, body?: unknown): Promise<Json> => {
  const answer = await call(base, method, path, { token, body })
  assert.isBelow(answer.status, 300, `${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`)
  return answer.body
}

/** Polls `GET path` until `accept` holds for its body (one request at a time). */
const poll = async (base: string, path: string, token: string, accept: (body: Json) => boolean): Promise<Json> => {
  const deadline = Date.now() + 20_000
  for (;;) {
    const answer = await call(base, "GET", path, { token })
    if (answer.status === 200 && accept(answer.body)) return answer.body
    if (Date.now() > deadline) throw new Error(`GET ${path}: never accepted, last ${JSON.stringify(answer.body)}`)
    await new Promise((done) => setTimeout(done, 50))
  }
}
/** A partner, its token, and the main operations of a partner and its customer. */
const acceptanceRun = async (base: string, name: string, reference: string, phone: string) => {
  const created = await ok(base, "POST", "/admin/partners", adminToken, { name })
  const { AccessToken: token } = await ok(base, "POST", "/auth/token", undefined, {
    ClientId: created.clientId,
    ClientSecret: created.clientSecret,
  })
  const { companyId } = await ok(base, "POST", "/Company/Create", token, companyBody({ companyReferenceId: reference }))
  await poll(base, `/company/status?companyId=${companyId}`, token, (body) => body.Status === "Verified")
  await ok(base, "POST", "/Login/SendOtp", token, { phoneNumber: phone })
  const login = await ok(base, "PUT", "/Login/CheckOtp", token, { phoneNumber: phone, code: "123456" })
  const customerToken = login.accessToken as string
  const payer = login.registrationId as string
  const session = await ok(base, "POST", "/Verification/StartKyc", customerToken, { deviceId: "my-phone" })
  await ok(base, "GET", "/Verification/CheckVerification", customerToken)
  await ok(base, "PUT", "/Account/Link", customerToken, {
    tokenId: session.tokenId,
    publicToken: "public-sandbox-ok",
    linkAccountsMetadata: { linkSessionId: "link-1", institutionId: "ins_1", accountIds: ["acc-checking"] },
  })
  const accountId = (await ok(base, "GET", "/Account/List", customerToken)).accounts[0].accountId as string
  const dueDate = ((await ok(base, "GET", "/Sandbox/Clock", token)).now as string).slice(0, 10)
  const paymentBody = (description: string) => ({
    companyId,
    payerRegistrationId: payer,
    amount: { value: 42.5, currencyCode: "USD" },
    description,
    dueDate,
  })
  // Accepted by the customer, then paid.
  const paid = await ok(base, "POST", "/Payment/Create", token, paymentBody("Invoice 1"))
  await ok(base, "POST", `/Transaction/PaymentRequest/${paid.paymentRequestId}/Accept`, customerToken, {
    bankAccountId: accountId,
    acceptDebitAuth: false,
    transferDescription: "Invoice 1",
  })
  const settled = await poll(base, `/Payment/${paid.paymentRequestId}`, token, (body) => body.status === "Paid")
  await ok(base, "GET", `/Transaction/${settled.transferId}`, token)
  await ok(base, "POST", `/Transaction/${settled.transferId}/Refund`, token, {
    amount: { value: 10, currencyCode: "USD" },
  })
  await ok(base, "GET", `/Transaction/Report?from=${dueDate}&to=${dueDate}`, token)
  // The customer's own data and settings.
  await ok(base, "GET", "/Verification/PersonalData", customerToken)
  await ok(base, "GET", "/Customer/Notifications", customerToken)
  await ok(base, "POST", "/DebitAuth/Set", customerToken, { companyId, limit: { value: 250, currencyCode: "USD" } })
  await ok(base, "GET", "/DebitAuth/List", customerToken)
  await ok(base, "GET", `/Sandbox/Messages?registrationId=${payer}`, token)
  // The partner's webhook endpoint (a sealed secret) and its sandbox clock.
  await ok(base, "PUT", "/Webhooks/Endpoint", token, { url: "http://127.0.0.1:9/webhooks" })
  await ok(base, "GET", "/Webhooks/Endpoint", token)
  await ok(base, "GET", "/Sandbox/Clock", token)
  // Created with an Idempotency-Key (and replayed), then cancelled.
  const keyed = await call(base, "POST", "/Payment/Create", {
    token,
    body: paymentBody("Invoice 2"),
    headers: { "idempotency-key": `${reference}-invoice-2` },
  })
  assert.strictEqual(keyed.status, 200)
  const replayed = await call(base, "POST", "/Payment/Create", {
    token,
    body: paymentBody("Invoice 2"),
    headers: { "idempotency-key": `${reference}-invoice-2` },
  })
  assert.deepStrictEqual(replayed.body, keyed.body)
  await ok(base, "PUT", `/Payment/${keyed.body.paymentRequestId}/Cancel`, token)
  await ok(base, "GET", `/Payment/${keyed.body.paymentRequestId}`, token)
  await ok(base, "GET", "/Payment/History?limit=10", token)
  // A plan: consent accepted by the customer, activated by the partner.
  const plan = await ok(base, "POST", "/PaymentPlan/Create", token, {
    companyId,
    payerRegistrationId: payer,
    amount: { value: 25, currencyCode: "USD" },
    frequency: "Weekly",
    recurrenceInterval: 1,
    startDate: dueDate,
    numberOfPayments: 2,
  })
  await ok(base, "PUT", `/Consent/${plan.consentId}/Accept`, customerToken, { bankAccountId: accountId })
  await ok(base, "PUT", `/PaymentPlan/${plan.paymentPlanId}/Activate`, token)
  // The scheduler (a worker) collects today's instalment.
  await poll(base, `/PaymentPlan/${plan.paymentPlanId}`, token, (body) => body.collectedCount === 1)
  await ok(base, "GET", `/Company/${companyId}/Balance`, token)
  await ok(base, "GET", "/Events?limit=10", token)
  await ok(base, "GET", "/Webhooks/Deliveries?limit=10", token)
  // The customer logs out: its tokens are revoked.
  await ok(base, "DELETE", "/Login/Session", customerToken)
  return { partnerId: created.partnerId as string }
}

/**
 * The partner ids a `commit_unit` argument files its rows under (streams, documents, notifications,
 * keys), but the work-list documents of `systemCollections`.
 */
const unitPartners = (param: unknown): ReadonlyArray<string> => {
  const unit = JSON.parse(String(param)) as {
    readonly streams?: ReadonlyArray<{ readonly partner: string }>
    readonly documents?: ReadonlyArray<{
      readonly collection: string
      readonly partnerId?: string
      readonly delete?: boolean
    }>
    readonly outbox?: ReadonlyArray<{ readonly partnerId: string }>
    readonly dataKeys?: ReadonlyArray<{ readonly partnerId: string }>
    readonly idempotency?: { readonly partnerId: string }
  }
  return [
    ...(unit.streams ?? []).map((stream) => stream.partner),
    ...(unit.documents ?? []).flatMap((doc) =>
      doc.delete === true || (systemCollections[doc.collection] !== undefined && doc.partnerId === systemTenant)
        ? []
        : [doc.partnerId ?? ""],
    ),
    ...(unit.outbox ?? []).map((row) => row.partnerId),
    ...(unit.dataKeys ?? []).map((key) => key.partnerId),
    ...(unit.idempotency === undefined ? [] : [unit.idempotency.partnerId]),
  ]
}

describe.skipIf(!postgresAvailable)("a database sharded by partner", () => {
  it("has partner_id on every table but the listed global ones, and a partner's requests filter by it", {
    timeout: 120_000,
  }, async () => {
    const { base, log, url } = await start()

    // (a) The catalog: each table is global (listed, with its reason) or has partner_id.
    const tables = await tablesOf(url)
    assert.isAbove(tables.length, 10)
    const missing = tables.filter((row) => !row.partner && globalTables[row.table] === undefined)
    assert.deepStrictEqual(missing, [], "tables without partner_id that are not listed as global")
    for (const global of Object.keys(globalTables)) {
      assert.isTrue(
        tables.some((row) => row.table === global),
        `${global} is listed as global but is not a table`,
      )
    }
    const partnerTables = tables.filter((row) => row.partner).map((row) => row.table)

    // (b) The statement log of two partners' main operations.
    const a = await acceptanceRun(base, "Partner A", "scope-a", "+14155550131")
    const b = await acceptanceRun(base, "Partner B", "scope-b", "+14155550132")

    const ofRequests = log.filter((entry) => entry.inRequest && entry.partner !== undefined)
    assert.isAbove(ofRequests.length, 50)
    assert.deepStrictEqual(
      [...new Set(ofRequests.map((entry) => entry.partner))].sort(),
      [a.partnerId, b.partnerId].sort(),
    )
    const unfiltered = new Set<string>()
    let commits = 0
    for (const entry of ofRequests) {
      if (/^\s*SELECT commit_unit\(/i.test(entry.text)) {
        commits++
        const filed = unitPartners(entry.params[0])
        assert.deepStrictEqual(
          filed.filter((partner) => partner !== entry.partner),
          [],
          `a unit of ${entry.partner}'s request files rows under another partner`,
        )
        continue
      }
      if (touches(entry.text, partnerTables).length === 0) continue
      if (filtersByPartner(entry.text)) continue
      if (allowedUnfiltered.some(([fragment]) => entry.text.includes(fragment))) continue
      unfiltered.add(entry.text.replace(/\s+/g, " ").trim())
    }
    assert.isAbove(commits, 10)
    assert.deepStrictEqual([...unfiltered], [], "statements of a partner's request that do not filter by partner_id")

    // The rows the run wrote are filed under their partner: none of either partner's streams under ''.
    const unfiled = await Effect.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient
        return yield* sql<{ readonly table: string; readonly count: number }>`
          SELECT 'streams' AS table, count(*)::int AS count FROM streams WHERE partner_id = ''
          UNION ALL SELECT 'events', count(*)::int FROM events WHERE partner_id = ''
          UNION ALL SELECT 'personal_data_keys', count(*)::int FROM personal_data_keys WHERE partner_id = ''
          UNION ALL SELECT 'idempotency_keys', count(*)::int FROM idempotency_keys WHERE partner_id = ''`
      }).pipe(Effect.scoped, Effect.provide(PgDatabase.layerPostgres(url, { maxConnections: 1 }))),
    )
    assert.deepStrictEqual(
      unfiled.filter((row) => row.count > 0),
      [],
    )
  })
})
