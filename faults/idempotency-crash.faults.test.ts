/**
 * Scenario: a retried payment is never charged twice. 16 clients create
 * payment requests, each with its own Idempotency-Key, while the service is
 * killed with SIGKILL; after a restart every client retries every key it sent
 * (answered or not), as a client that lost its connection would, until it
 * gets a final answer. Then:
 * - each key answers exactly one paymentRequestId, the one first answered
 *   where the client got an answer before the kill;
 * - no key stays IDEMPOTENCY_REQUEST_IN_PROGRESS more than 10 s after the
 *   restart (the dead process's claims are free within seconds);
 * - the company has exactly one payment request per key (the key is the
 *   request's description), read through the API: no duplicate, none lost.
 * On PostgreSQL and on the embedded PGlite.
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
  tally,
  tempDir,
  tomorrow,
} from "./support.ts"

afterAll(() => killAll())

const clients = 16
/** How long a key may still answer "in progress" after the restart. */
const inProgressLimitMs = 10_000

interface Setup {
  readonly token: string
  readonly companyId: string
  readonly payer: string
}

const setUp = async (service: RunningService, clientId: string, clientSecret: string): Promise<Setup> => {
  const token = await partnerToken(service, clientId, clientSecret)
  const company = await call(service.url, "POST", "/Company/Create", {
    token,
    body: companyBody({ companyReferenceId: `idem-${Date.now()}` }),
  })
  if (company.status !== 200) throw new Error(`Company/Create: ${company.status} ${company.text}`)
  const companyId = (company.body as { companyId: string }).companyId
  // Wait for the sandbox KYB (a company collects once verified).
  for (let i = 0; i < 100; i++) {
    const status = await call(service.url, "GET", `/company/status?companyId=${companyId}`, { token })
    if ((status.body as { Status?: string }).Status === "Verified") break
    await sleep(200)
  }
  const payer = await customer(service.url, token, "+14155550142")
  return { token, companyId, payer: payer.registrationId }
}

const createWithKey = (service: RunningService, setup: Setup, key: string, timeoutMs = 10_000) =>
  call(service.url, "POST", "/Payment/Create", {
    token: setup.token,
    headers: { "idempotency-key": key },
    body: {
      companyId: setup.companyId,
      payerRegistrationId: setup.payer,
      amount: { value: 12.34, currencyCode: "USD" },
      description: key,
      dueDate: tomorrow(),
    },
    timeoutMs,
  })

/** Every payment request of the company, through the API (newest first, all pages). */
const paymentRequests = async (service: RunningService, setup: Setup) => {
  const all: Array<{ paymentRequestId: string; description: string }> = []
  let after: string | undefined
  for (;;) {
    const page = await call(
      service.url,
      "GET",
      `/Payment/History?companyId=${setup.companyId}&limit=100${after === undefined ? "" : `&startingAfter=${after}`}`,
      { token: setup.token },
    )
    if (page.status !== 200) throw new Error(`Payment/History: ${page.status} ${page.text}`)
    const body = page.body as { data: Array<{ paymentRequestId: string; description: string }>; hasMore: boolean }
    all.push(...body.data)
    if (!body.hasMore || body.data.length === 0) return all
    after = body.data[body.data.length - 1]!.paymentRequestId
  }
}

const scenario = async (label: string, databaseUrl: string | undefined) => {
  const clientId = `faults-idem-${label}-client`
  const clientSecret = `faults-idem-${label}-secret-0123456789`
  const data = tempDir(`idem-${label}`)
  const env = serviceEnv({ clientId, clientSecret, dataDir: data.dir, databaseUrl, kybDelayMs: 200 })
  try {
    const first = await start(env)
    const setup = await setUp(first, clientId, clientSecret)
    // Keys in the order sent; the first answer each got before the kill.
    const sent: Array<string> = []
    const answered = new Map<string, string>()
    const before: Array<number> = []
    let stop = false
    const loop = async (client: number) => {
      for (let n = 0; !stop; n++) {
        const key = `idem-${label}-${client}-${n}`
        sent.push(key)
        try {
          const answer = await createWithKey(first, setup, key)
          before.push(answer.status)
          if (answer.status === 200) answered.set(key, (answer.body as { paymentRequestId: string }).paymentRequestId)
        } catch {
          return // the process is gone
        }
      }
    }
    const running = Promise.all(Array.from({ length: clients }, (_, c) => loop(c)))
    // Kill once the load runs (at least 40 answers), at a moment the test does not choose.
    const waitUntil = Date.now() + 20_000
    while (answered.size < 40 && Date.now() < waitUntil) await sleep(20)
    await sleep(Math.floor(Math.random() * 300))
    await first.stop("SIGKILL")
    stop = true
    await running

    const second = await start(env)
    const restarted = Date.now()
    const finalAnswers = new Map<string, { status: number; id: string | undefined }>()
    let inProgressAnswers = 0
    let lateInProgress = 0
    const queue = [...sent]
    const retry = async () => {
      for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
        for (;;) {
          const answer = await createWithKey(second, setup, key, 30_000)
          if (answer.status === 409 && (answer.body as { code?: string }).code === "IDEMPOTENCY_REQUEST_IN_PROGRESS") {
            inProgressAnswers++
            if (Date.now() - restarted > inProgressLimitMs) lateInProgress++
            if (Date.now() - restarted > 60_000) break
            await sleep(250)
            continue
          }
          finalAnswers.set(key, {
            status: answer.status,
            id: answer.status === 200 ? (answer.body as { paymentRequestId: string }).paymentRequestId : undefined,
          })
          break
        }
      }
    }
    await Promise.all(Array.from({ length: clients }, () => retry()))

    const notOk = [...finalAnswers].filter(([, a]) => a.status !== 200).map(([k, a]) => `${k}:${a.status}`)
    const changed = [...answered].filter(([key, id]) => finalAnswers.get(key)?.id !== id)
    const stuck = sent.filter((key) => !finalAnswers.has(key))
    const requests = await paymentRequests(second, setup)
    const perKey = new Map<string, Array<string>>()
    for (const request of requests)
      perKey.set(request.description, [...(perKey.get(request.description) ?? []), request.paymentRequestId])
    const duplicated = [...perKey].filter(([, ids]) => ids.length > 1).map(([key]) => key)
    const mismatched = sent.filter((key) => {
      const ids = perKey.get(key) ?? []
      return ids.length !== 1 || ids[0] !== finalAnswers.get(key)?.id
    })
    summary(
      `idempotency-crash/${label}`,
      `${sent.length} keys sent, ${answered.size} answered before the kill [${tally(before)}]; after the restart: ` +
        `${finalAnswers.size} final answers, ${inProgressAnswers} in-progress answers (${lateInProgress} after ${inProgressLimitMs / 1000} s), ` +
        `${notOk.length} not 200, ${changed.length} answered another id than before the kill, ${stuck.length} never final; ` +
        `${requests.length} payment requests, ${duplicated.length} keys with two or more, ${mismatched.length} keys whose request differs from their answer`,
    )
    assert.isAbove(answered.size, 10)
    assert.deepStrictEqual(notOk, [])
    assert.deepStrictEqual(changed, [])
    assert.deepStrictEqual(stuck, [])
    assert.strictEqual(lateInProgress, 0)
    assert.deepStrictEqual(duplicated, [])
    assert.deepStrictEqual(mismatched, [])
  } finally {
    killAll()
    data.remove()
  }
}

describe("idempotency across a crash", () => {
  it("PostgreSQL: every key retried after kill -9 answers one payment request, the first answer's", async () => {
    const db = freshDatabase("idem")
    try {
      await scenario("postgres", db.url)
    } finally {
      db.drop()
    }
  })

  it("PGlite: every key retried after kill -9 answers one payment request, the first answer's", async () => {
    await scenario("pglite", undefined)
  })
})
