/**
 * Issue 34's hang, reproduced on PostgreSQL and on PGlite: a payer whose phone
 * number ends in 0999 (sandbox magic: the simulated SMS provider answers after
 * 10 s) has a request due today, so the payment notifier is sending its
 * due-today reminder through the slow provider for 10 s. Meanwhile the same
 * payer accepts another request and commits on its own customer stream (a push
 * token), and unrelated requests (company status, payment reads, token
 * requests) run for 12 s.
 *
 * Before issue 34 the notifier sent inside its transaction: on PGlite (one
 * session) every request waited for the provider, and on PostgreSQL the
 * sender wrote through the request pool while request statements waited on
 * the worker's transaction (the audit's hang). Now: every unrelated request
 * answers within 2 s, the Accept and the payer's own commit succeed within 2 s, and the reminder's
 * sending is shown to overlap the Accept (the message is recorded when the
 * slow provider answers: after the Accept, less than 10 s after it began). On
 * PostgreSQL, `pg_stat_activity` is sampled every 250 ms: no session of the
 * service's database is ever idle in a transaction for more than 1 s.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import {
  call,
  companyBody,
  customer,
  freshDatabase,
  killAll,
  partnerToken,
  type RunningService,
  serviceEnv,
  sleep,
  start,
  summary,
  tempDir,
  tomorrow,
  verifiedCompany,
  watchIdleInTransaction,
} from "./support.ts"

const clientId = "faults-slow-providers-client"
const clientSecret = "faults-slow-providers-secret-0123456789"
/** Sandbox magic: the simulated SMS provider answers this number after 10 s. */
const slowPhone = "+14155550999"
const boundMillis = 2000

afterAll(() => killAll())

interface Timed {
  readonly what: string
  readonly status: number
  readonly millis: number
}

const timed = async (what: string, run: () => ReturnType<typeof call>): Promise<Timed> => {
  const started = performance.now()
  try {
    const answer = await run()
    return { what, status: answer.status, millis: Math.round(performance.now() - started) }
  } catch {
    return { what, status: 0, millis: Math.round(performance.now() - started) }
  }
}

/** The scenario on a started service; answers what the assertions need. */
const scenario = async (service: RunningService) => {
  const base = service.url
  const partner = await partnerToken(service, clientId, clientSecret)
  const company = await verifiedCompany(base, partner, companyBody({ companyReferenceId: "slow-1" }))
  const companyId = (company.body as { companyId: string }).companyId
  // The slow payer's login code goes through the same slow SMS provider (10 s).
  const otpStarted = performance.now()
  const payer = await customer(base, partner, slowPhone)
  const loginMillis = performance.now() - otpStarted
  const create = async (description: string, dueDate: string) => {
    const created = await call(base, "POST", "/Payment/Create", {
      token: partner,
      body: {
        companyId,
        payerRegistrationId: payer.registrationId,
        amount: { value: 21.5, currencyCode: "USD" },
        description,
        dueDate,
      },
    })
    assert.strictEqual(created.status, 200, created.text)
    return (created.body as { paymentRequestId: string }).paymentRequestId
  }
  const toAccept = await create("to accept", tomorrow())
  // Due today: the notifier (polling every second) starts sending its reminder through the slow provider.
  const dueToday = await create("due today", new Date().toISOString().slice(0, 10))

  const unrelated: Array<Timed> = []
  const stopAt = Date.now() + 12_000
  const requests = [
    [
      "company status",
      () => call(base, "GET", `/company/status?companyId=${companyId}`, { token: partner, timeoutMs: 20_000 }),
    ],
    ["payment read", () => call(base, "GET", `/Payment/${toAccept}`, { token: partner, timeoutMs: 20_000 })],
    [
      "token",
      () =>
        call(base, "POST", "/auth/token", {
          body: { ClientId: clientId, ClientSecret: clientSecret },
          timeoutMs: 20_000,
        }),
    ],
  ] as const
  const loop = async (worker: number) => {
    const [what, run] = requests[worker]!
    while (Date.now() < stopAt) {
      unrelated.push(await timed(what, run))
      // Token requests are anonymous (10 per second per address): well under it.
      await sleep(what === "token" ? 300 : 100)
    }
  }
  const loops = Promise.all([0, 1, 2].map(loop))
  // The reminder is being sent (it began within about a second of the request's creation).
  await sleep(2500)
  const acceptStarted = Date.now()
  const accept = await timed("accept", () =>
    call(base, "POST", `/Transaction/PaymentRequest/${toAccept}/Accept`, {
      token: payer.token,
      body: { bankAccountId: payer.bankAccountId, acceptDebitAuth: false, transferDescription: "" },
      timeoutMs: 20_000,
    }),
  )
  const acceptAnswered = Date.now()
  // A commit on the same customer's own stream meanwhile (the audit: a request committing on that customer).
  const ownCommit = await timed("push token", () =>
    call(base, "POST", "/Customer/NotificationToken", {
      token: payer.token,
      body: { token: "device-slow-payer", expireAt: { value: new Date(Date.now() + 30 * 86_400_000).toISOString() } },
      timeoutMs: 20_000,
    }),
  )
  await loops
  // The reminder, recorded when the slow provider answered.
  let sentAt: number | undefined
  for (let i = 0; i < 100 && sentAt === undefined; i++) {
    const page = await call(base, "GET", `/Sandbox/Messages?registrationId=${payer.registrationId}&limit=100`, {
      token: partner,
    })
    const reminder = (
      page.body as { data: Array<{ template: string; paymentRequestId?: string; sentAt: string }> }
    ).data.find((m) => m.template === "PaymentDueToday" && m.paymentRequestId === dueToday)
    if (reminder !== undefined) sentAt = Date.parse(reminder.sentAt)
    else await sleep(200)
  }
  return { unrelated, accept, ownCommit, acceptStarted, acceptAnswered, sentAt, loginMillis }
}

const check = (label: string, result: Awaited<ReturnType<typeof scenario>>) => {
  const slowest = result.unrelated.reduce((max, t) => (t.millis > max.millis ? t : max), result.unrelated[0]!)
  const late = result.unrelated.filter((t) => t.status !== 200 || t.millis > boundMillis)
  summary(
    label,
    `${result.unrelated.length} unrelated requests, slowest ${slowest.millis} ms (${slowest.what}); accept ${result.accept.status} in ${result.accept.millis} ms; payer's push token ${result.ownCommit.status} in ${result.ownCommit.millis} ms; ` +
      `reminder recorded ${result.sentAt === undefined ? "never" : `${result.sentAt - result.acceptAnswered} ms after the accept answered`}; slow login ${Math.round(result.loginMillis)} ms`,
  )
  assert.isAbove(result.loginMillis, 9_500, "the slow payer's login code took the slow provider's 10 s")
  assert.deepStrictEqual(late, [], "every unrelated request answered 200 within 2 s")
  assert.strictEqual(result.accept.status, 200, "the Accept succeeded")
  assert.isAtMost(result.accept.millis, boundMillis, "the Accept answered within 2 s")
  assert.strictEqual(result.ownCommit.status, 200, "the payer's own commit succeeded")
  assert.isAtMost(result.ownCommit.millis, boundMillis, "the payer's own commit answered within 2 s")
  assert.isDefined(result.sentAt, "the due-today reminder was sent")
  // The sending overlapped the Accept: it ended after the Accept answered and began (10 s earlier) before it.
  assert.isAbove(result.sentAt!, result.acceptAnswered - 1000)
  assert.isBelow(result.sentAt! - 10_000, result.acceptStarted + 1000)
}

describe("a slow message provider (sandbox 0999)", () => {
  it("on PostgreSQL: while a reminder is being sent, requests and the payer's Accept answer within 2 s", async () => {
    const data = tempDir("slow-pg")
    const db = freshDatabase("slow")
    try {
      const service = await start(
        serviceEnv({ clientId, clientSecret, dataDir: data.dir, databaseUrl: db.url, kybDelayMs: 300 }),
      )
      const watch = watchIdleInTransaction(db.url, db.name)
      const result = await scenario(service)
      const idle = await watch.stop()
      summary("slow/pg", `longest idle in transaction: ${idle} ms`)
      check("slow/pg", result)
      assert.isAtMost(idle, 1000, "no session idle in a transaction for more than 1 s")
      await service.stop()
    } finally {
      db.drop()
      data.remove()
    }
  })

  it("on PGlite: while a reminder is being sent, requests and the payer's Accept answer within 2 s", async () => {
    const data = tempDir("slow-pglite")
    try {
      const service = await start(serviceEnv({ clientId, clientSecret, dataDir: data.dir, kybDelayMs: 300 }))
      const result = await scenario(service)
      check("slow/pglite", result)
      await service.stop()
    } finally {
      data.remove()
    }
  })
})
