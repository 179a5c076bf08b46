/**
 * One debit authorization per (partner, payer, company) and one card payment
 * per (partner, merchant, external reference), enforced by the event store:
 * 20 identical requests sent at once through HTTP to a service on PostgreSQL
 * leave exactly one resource, and every answer is 200 for that resource or a
 * 409 problem. And refunds of one transfer asked at once: the transfer's
 * stream version guards their sum, so they never hold more than its amount.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { CrossCutting, CustomerIdentityPorts, HealthCheck, Server, Tokens } from "@partnerpay/adapters-http"
import { PgDatabase } from "@partnerpay/adapters-pg"
import { CalendarDate, CardCharger, CustomerProviderSandboxes, Ids, Payments, Transfers } from "@partnerpay/domain"
import { Fixtures } from "@partnerpay/domain/testing"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Domain from "../src/Domain.ts"
import * as WebhookTarget from "../src/workers/WebhookTarget.ts"
import { freshDatabase, postgresAvailable } from "./support.ts"

const partnerId = Ids.PartnerId.make("0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b")
const payer = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-00000000c0de")
const companyId = Ids.CompanyId.make("c0000000-0000-4000-8000-0000000000c1")
const concurrency = 20

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

/** The HTTP routes on a fresh PostgreSQL database, with a partner and a customer token. */
const startServer = async () => {
  const db = await freshDatabase()
  cleanups.push(db.drop)
  const tokens = Tokens.Tokens.layer({ secret: Redacted.make("concurrent-creation-secret-0123456789abcdef") })
  const domain = ManagedRuntime.make(
    Layer.mergeAll(tokens).pipe(
      Layer.provideMerge(Domain.layer),
      Layer.provideMerge(PgDatabase.layerPostgres(db.url, { maxConnections: 8 })),
    ),
  )
  cleanups.push(() => domain.dispose())
  const context = await domain.context()
  const web = Server.toWebHandler(
    Layer.mergeAll(
      Layer.succeedContext(context),
      Transfers.eSignatureSandbox,
      CardCharger.CardCharger.layerSandbox,
      CustomerProviderSandboxes.layerCardProcessorSandbox,
      CustomerIdentityPorts.layerSandbox,
      CrossCutting.layerLimits({ rateLimiting: false }),
      WebhookTarget.layerTargets,
      Layer.succeed(HealthCheck.HealthCheck, HealthCheck.HealthCheck.of({ check: Effect.void })),
    ),
  )
  cleanups.push(web.dispose)
  // Every port is provided above; the handler's optional per-request context is not used.
  const handler = web.handler as unknown as (request: Request) => Promise<Response>
  const issue = (caller: Parameters<Tokens.Tokens["Service"]["issue"]>[0]) =>
    domain.runPromise(Effect.flatMap(Tokens.Tokens, (service) => service.issue(caller))).then((t) => t.accessToken)
  await domain.runPromise(
    Effect.gen(function* () {
      yield* Fixtures.registerVerifiedCompany(partnerId, companyId, "Acme Coffee", { locations: 0 })
      yield* Fixtures.registerCustomer(partnerId, payer)
    }),
  )
  return {
    domain,
    partner: await issue({ _tag: "Partner", partnerId }),
    customer: await issue({ _tag: "Customer", partnerId, registrationId: payer }),
    post: async (path: string, token: string, body: unknown) => {
      const response = await handler(
        new Request(`http://partnerpay.test${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify(body),
        }),
      )
      return { status: response.status, json: (await response.json()) as Record<string, unknown> }
    },
  }
}

/**
 * The streams holding an event of type `eventType`, read from the events table itself: the global
 * log's readers stop below the oldest transaction running anywhere on the server (other suites share it).
 */
const created = (eventType: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient
    const rows = yield* sql<{ stream_id: string }>`SELECT stream_id FROM events WHERE event_type = ${eventType}`
    return rows.map((row) => row.stream_id)
  })

describe("concurrent identical creations on PostgreSQL", () => {
  it.skipIf(!postgresAvailable)(
    `${concurrency} identical POST /DebitAuth/Set leave one authorization; each answer is it or a 409`,
    async () => {
      const server = await startServer()
      const body = { companyId, limit: { value: 250.5, currencyCode: "USD" } }
      const answers = await Promise.all(
        Array.from({ length: concurrency }, () => server.post("/DebitAuth/Set", server.customer, body)),
      )
      const streams = await server.domain.runPromise(created("DebitAuthSet"))
      assert.strictEqual(streams.length, 1, JSON.stringify(answers))
      const ids = new Set(answers.filter((a) => a.status === 200).map((a) => a.json.debitAuthId))
      assert.strictEqual(ids.size, 1, JSON.stringify(answers))
      assert.isTrue(streams[0]!.endsWith(String([...ids][0])))
      for (const answer of answers) {
        assert.include([200, 409], answer.status, JSON.stringify(answer.json))
        if (answer.status === 409) assert.isString(answer.json.code)
      }
    },
    60_000,
  )

  it.skipIf(!postgresAvailable)(
    `${concurrency} identical POST /cardpayment leave one card payment; each answer is it or a 409`,
    async () => {
      const server = await startServer()
      const body = {
        merchantId: "9a9a9a9a-0000-4000-8000-000000000001",
        amount: { value: 12.5, currencyCode: "USD" },
        last4: "4242",
        brand: "visa",
        externalReference: "terminal-7:txn-0001",
      }
      const answers = await Promise.all(
        Array.from({ length: concurrency }, () => server.post("/cardpayment", server.partner, body)),
      )
      const streams = await server.domain.runPromise(created("CardPaymentRegistered"))
      assert.strictEqual(streams.length, 1, JSON.stringify(answers))
      const ids = new Set(answers.filter((a) => a.status === 200).map((a) => a.json.cardPaymentId))
      assert.strictEqual(ids.size, 1, JSON.stringify(answers))
      assert.isTrue(streams[0]!.endsWith(String([...ids][0])))
      for (const answer of answers) {
        assert.include([200, 409], answer.status, JSON.stringify(answer.json))
        if (answer.status === 409) assert.isString(answer.json.code)
      }
    },
    60_000,
  )
})

describe("concurrent refunds of one transfer on PostgreSQL", () => {
  it.skipIf(!postgresAvailable)(
    `${concurrency} POST /Transaction/{id}/Refund at once never hold more than the amount; each answer is a Pending refund, a 422 or a 409`,
    async () => {
      const server = await startServer()
      const refundingPayer = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-00000000f00d")
      const account = Ids.BankAccountId.make("ba000000-0000-4000-8000-00000000f001")
      const transferId = await server.domain.runPromise(
        Effect.gen(function* () {
          yield* Fixtures.registerVerifiedCustomer(partnerId, refundingPayer, account, "+14155550177")
          const request = yield* Payments.create({
            partnerId,
            companyId,
            payerRegistrationId: refundingPayer,
            amount: { value: 100, currencyCode: "USD" },
            description: "Invoice 3001",
            dueDate: CalendarDate.fromEpochMillis(Date.now()),
          })
          yield* Payments.accept({
            partnerId,
            paymentRequestId: request.paymentRequestId,
            registrationId: refundingPayer,
            bankAccountId: account,
            acceptDebitAuth: false,
            transferDescription: "",
          })
          const transfer = (yield* Payments.get(partnerId, request.paymentRequestId)).transferId as Ids.TransferId
          yield* Payments.settleTransfer(transfer)
          return transfer
        }),
      )
      // Each asks for 30 of the 100: at most three can be held at once.
      const answers = await Promise.all(
        Array.from({ length: concurrency }, () =>
          server.post(`/Transaction/${transferId}/Refund`, server.partner, {
            amount: { value: 30, currencyCode: "USD" },
          }),
        ),
      )
      const accepted = answers.filter((answer) => answer.status === 200)
      for (const answer of answers) {
        assert.include([200, 409, 422], answer.status, JSON.stringify(answer.json))
        if (answer.status === 200) assert.strictEqual(answer.json.status, "Pending")
        if (answer.status === 422) assert.strictEqual(answer.json.code, "REFUND_EXCEEDS_TRANSFER")
      }
      assert.isAtLeast(accepted.length, 1)
      assert.isAtMost(accepted.length, 3)
      const held = await server.domain.runPromise(
        Effect.map(Transfers.get({ _tag: "Partner", partnerId }, transferId), (doc) =>
          (doc.refunds ?? []).reduce((sum, refund) => sum + refund.amount.minorUnits, 0),
        ),
      )
      assert.strictEqual(held, accepted.length * 3000)
      assert.isAtMost(held, 10_000)
    },
    60_000,
  )
})
