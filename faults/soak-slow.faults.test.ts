/**
 * A bounded soak (20 s) on PostgreSQL with slow and failing message providers
 * (issue 34): payment requests due today are created for three payers (each
 * one a due-today reminder), the payers accept them (each accepted request
 * settles 1.5 s later: a Paid status message), while unrelated reads run. One
 * payer's phone ends in 0999 (the simulated SMS provider answers after 10 s),
 * one has a push token containing `unavailable` (its push provider is down:
 * its notices fail and are retried with backoff). Every request answers below
 * 500 within 2 s, and `pg_stat_activity`, sampled every 250 ms, never shows a
 * session of the service's database idle in a transaction for more than 1 s.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import {
  call,
  companyBody,
  customer,
  freshDatabase,
  killAll,
  partnerToken,
  serviceEnv,
  sleep,
  start,
  summary,
  tally,
  tempDir,
  verifiedCompany,
  watchIdleInTransaction,
} from "./support.ts"

const clientId = "faults-soak-slow-client"
const clientSecret = "faults-soak-slow-secret-0123456789"
const soakMillis = 20_000
const boundMillis = 2000

afterAll(() => killAll())

interface Outcome {
  readonly what: string
  readonly status: number
  readonly millis: number
}

describe("soak with slow and failing message providers", () => {
  it("payments, reminders, status messages and accepts for 20 s: every answer within 2 s, nothing idle in a transaction", async () => {
    const data = tempDir("soak-slow")
    const db = freshDatabase("soakslow")
    try {
      const service = await start(
        serviceEnv({
          clientId,
          clientSecret,
          dataDir: data.dir,
          databaseUrl: db.url,
          kybDelayMs: 300,
          extra: { PARTNERPAY_SETTLEMENT_DELAY_MS: "1500" },
        }),
      )
      const base = service.url
      const partner = await partnerToken(service, clientId, clientSecret)
      const company = await verifiedCompany(base, partner, companyBody({ companyReferenceId: "soak-slow-1" }))
      const companyId = (company.body as { companyId: string }).companyId
      const payers = await Promise.all(
        ["+14155551001", "+14155550999", "+14155551002"].map((phone) => customer(base, partner, phone)),
      )
      const failing = payers[2]!
      // Status messages go by push (the default switches): one payer's push service works, another's is down.
      const expireAt = { value: new Date(Date.now() + 30 * 86_400_000).toISOString() }
      for (const [payer, device] of [
        [payers[0]!, "device-ok"],
        [failing, "device-unavailable"],
      ] as const) {
        const token = await call(base, "POST", "/Customer/NotificationToken", {
          token: payer.token,
          body: { token: device, expireAt },
        })
        assert.strictEqual(token.status, 200, token.text)
      }

      const outcomes: Array<Outcome> = []
      const timed = async (what: string, run: () => ReturnType<typeof call>) => {
        const started = performance.now()
        const answer = await run().catch(() => undefined)
        const outcome = { what, status: answer?.status ?? 0, millis: Math.round(performance.now() - started) }
        outcomes.push(outcome)
        return answer
      }
      const today = new Date().toISOString().slice(0, 10)
      const watch = watchIdleInTransaction(db.url, db.name)
      const stopAt = Date.now() + soakMillis
      let created = 0
      let accepted = 0
      const payerLoop = async (index: number) => {
        const payer = payers[index]!
        for (let n = 0; Date.now() < stopAt; n++) {
          const request = await timed("create", () =>
            call(base, "POST", "/Payment/Create", {
              token: partner,
              body: {
                companyId,
                payerRegistrationId: payer.registrationId,
                amount: { value: 10 + n, currencyCode: "USD" },
                description: `soak ${index}-${n}`,
                dueDate: today,
              },
              timeoutMs: 20_000,
            }),
          )
          if (request?.status !== 200) continue
          created++
          const id = (request.body as { paymentRequestId: string }).paymentRequestId
          // Every other request is accepted at once (it settles: a Paid message); the others stay due (reminders).
          if (n % 2 === 0) {
            const answer = await timed("accept", () =>
              call(base, "POST", `/Transaction/PaymentRequest/${id}/Accept`, {
                token: payer.token,
                body: { bankAccountId: payer.bankAccountId, acceptDebitAuth: false, transferDescription: "" },
                timeoutMs: 20_000,
              }),
            )
            if (answer?.status === 200) accepted++
          }
          await sleep(400)
        }
      }
      const readerLoop = async () => {
        while (Date.now() < stopAt) {
          await timed("read", () =>
            call(base, "GET", `/company/status?companyId=${companyId}`, { token: partner, timeoutMs: 20_000 }),
          )
          await sleep(100)
        }
      }
      await Promise.all([payerLoop(0), payerLoop(1), payerLoop(2), readerLoop(), readerLoop()])
      const idle = await watch.stop()
      // The normal payer's reminders and Paid messages went out meanwhile (the last settlements: a few seconds more).
      let templates: Array<string> = []
      for (let i = 0; i < 50; i++) {
        const messages = await call(
          base,
          "GET",
          `/Sandbox/Messages?registrationId=${payers[0]!.registrationId}&limit=100`,
          {
            token: partner,
          },
        )
        templates = (messages.body as { data: Array<{ template: string }> }).data.map((m) => m.template)
        if (templates.includes("PaymentPaid")) break
        await sleep(200)
      }
      const byTemplate = [...new Set(templates)]
        .map((t) => `${t}:${templates.filter((x) => x === t).length}`)
        .join(", ")
      const late = outcomes.filter((o) => o.status === 0 || o.status >= 500 || o.millis > boundMillis)
      const slowest = outcomes.reduce((max, o) => (o.millis > max.millis ? o : max), outcomes[0]!)
      summary(
        "soak/slow",
        `${outcomes.length} requests (${tally(outcomes.map((o) => o.status))}), ${created} created, ${accepted} accepted, ` +
          `slowest ${slowest.millis} ms (${slowest.what}); longest idle in transaction ${idle} ms; ` +
          `normal payer's messages ${byTemplate}`,
      )
      assert.deepStrictEqual(late, [], "every request answered below 500 within 2 s")
      assert.isAtMost(idle, 1000, "no session idle in a transaction for more than 1 s")
      assert.include(templates, "PaymentDueToday")
      assert.include(templates, "PaymentPaid")
      assert.isAbove(accepted, 0)
      await service.stop()
    } finally {
      db.drop()
      data.remove()
    }
  })
})
