/**
 * Scenario: three instances on one PostgreSQL behind a round-robin proxy
 * (`proxy.ts`), as an operator runs them behind a load balancer.
 *
 * 1. kill -9 of one instance under load: every registration acknowledged
 *    with 2xx is readable afterwards (a client whose request died with the
 *    instance retries it with its Idempotency-Key), every webhook owed is
 *    delivered, and no delivery attempt reaches the receiver twice (one
 *    request per event and attempt number, whichever instance sends it).
 * 2. Conflicting commands spread over the instances (the payer's accept and
 *    the partner's cancel of the same payment request, through different
 *    instances) give only legal outcomes: exactly one wins, the request's
 *    status is the winner's.
 * 3. A rolling restart, one instance at a time (drained by the proxy, then
 *    SIGTERM, then a new process registered once ready), under a load of
 *    registrations and reads, answers no 5xx.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { type Balancer, startProxy } from "./proxy.ts"
import {
  type Answer,
  call,
  callPatiently,
  companyBody,
  customer,
  freshDatabase,
  killAll,
  partnerToken,
  psql,
  type RunningService,
  serviceEnv,
  sleep,
  start,
  startReceiver,
  summary,
  tally,
  tempDir,
  tomorrow,
} from "./support.ts"

afterAll(() => killAll())

const instances = 3

interface Cluster {
  readonly services: Array<RunningService>
  readonly proxy: Balancer
  readonly env: (index: number) => Record<string, string>
  readonly dirs: Array<{ remove: () => void }>
}

const startCluster = async (label: string, databaseUrl: string, webhookUrl?: string): Promise<Cluster> => {
  const dirs = Array.from({ length: instances }, (_, i) => tempDir(`${label}-${i}`))
  const env = (index: number) =>
    serviceEnv({
      clientId: `faults-${label}-client`,
      clientSecret: `faults-${label}-secret-0123456789`,
      dataDir: dirs[index]!.dir,
      databaseUrl,
      webhookUrl,
      kybDelayMs: 300,
    })
  // One at a time: the first migrates, the others find the schema ready.
  const services: Array<RunningService> = []
  for (let i = 0; i < instances; i++) services.push(await start(env(i)))
  const proxy = await startProxy(services.map((service) => service.url))
  return { services, proxy, env, dirs }
}

const stopCluster = async (cluster: Cluster) => {
  killAll()
  await cluster.proxy.close()
  for (const dir of cluster.dirs) dir.remove()
}

const token = (cluster: Cluster, label: string) =>
  partnerToken(
    { url: cluster.proxy.url } as RunningService,
    `faults-${label}-client`,
    `faults-${label}-secret-0123456789`,
  )

/** A registration, retried with its Idempotency-Key while its outcome is unknown (502) or it is told to retry. */
const register = async (base: string, token: string, reference: string): Promise<Answer> => {
  for (let attempt = 0; ; attempt++) {
    const answer = await call(base, "POST", "/Company/Create", {
      token,
      headers: { "idempotency-key": `register-${reference}` },
      body: companyBody({ companyReferenceId: reference, name: `Cluster Co ${reference}` }),
      timeoutMs: 15_000,
    }).catch((): Answer => ({ status: 599, contentType: "", text: "", body: undefined, headers: new Headers() }))
    // Retried as clients are told to: the proxy's 502, no answer, 429, 409 in progress, and the service's 503
    // (a database moment while an instance dies; problem+json with Retry-After), honouring Retry-After.
    const retry = [502, 503, 599, 429, 409].includes(answer.status)
    if (!retry || attempt === 30) return answer
    const retryAfter = Number(answer.headers.get("retry-after") ?? "")
    await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter, 2) * 1000 : 200)
  }
}

describe("three instances behind a balancer", () => {
  it("kill -9 of one instance under load: nothing acknowledged lost, every webhook delivered, no attempt twice", async () => {
    const db = freshDatabase("instances_kill")
    const receiver = await startReceiver()
    const cluster = await startCluster("inst-kill", db.url, receiver.url)
    try {
      const partner = await token(cluster, "inst-kill")
      const acknowledged: Array<string> = []
      const first: Array<number> = []
      const stopAt = Date.now() + 9_000
      let n = 0
      const loop = async (worker: number) => {
        while (Date.now() < stopAt) {
          const answer = await register(cluster.proxy.url, partner, `kill-${worker}-${n++}`)
          first.push(answer.status)
          if (answer.status === 200) acknowledged.push((answer.body as { companyId: string }).companyId)
        }
      }
      const load = Promise.all(Array.from({ length: 6 }, (_, w) => loop(w)))
      await sleep(3_000)
      await cluster.services[1]!.stop("SIGKILL")
      await load

      const missing: Array<string> = []
      for (const companyId of acknowledged) {
        const answer = await callPatiently(cluster.proxy.url, "GET", `/company/status?companyId=${companyId}`, {
          token: partner,
        })
        if (answer.status !== 200) missing.push(`${companyId}: ${answer.status}`)
      }
      // Every owed webhook delivered (the killed instance's claims are free after their 30 s lease).
      const deadline = Date.now() + 75_000
      let undelivered: Array<string> = []
      const deliveredIds = () => new Set(receiver.received.map((hook) => String(hook.headers["x-partnerpay-event-id"])))
      while (Date.now() < deadline) {
        const unverified = Number(
          psql(
            db.url,
            `SELECT count(*) FROM read_models WHERE collection = 'companies' AND data->>'status' = 'Unverified'`,
          ),
        )
        const owed = psql(db.url, "SELECT id FROM outbox")
          .split("\n")
          .filter((l) => l !== "")
        const got = deliveredIds()
        undelivered = owed.filter((id) => !got.has(id))
        if (unverified === 0 && undelivered.length === 0) break
        await sleep(500)
      }
      const attempts = receiver.requests.map(
        (hook) =>
          `${String(hook.headers["x-partnerpay-event-id"])}#${String(hook.headers["x-partnerpay-delivery-attempt"])}`,
      )
      const repeatedAttempts = attempts.length - new Set(attempts).size
      const companiesWithHook = new Set(
        receiver.received.map((hook) => (JSON.parse(hook.body) as { Data: { CompanyId?: string } }).Data.CompanyId),
      )
      const withoutHook = acknowledged.filter((id) => !companiesWithHook.has(id))
      const final = first.filter((status) => status >= 500)
      summary(
        "instances/kill",
        `${instances} instances, one killed under load; ${acknowledged.length} registrations acknowledged [${tally(first)}]; ` +
          `acknowledged missing ${missing.length}; webhooks delivered ${deliveredIds().size}, undelivered ${undelivered.length}, ` +
          `attempts received twice ${repeatedAttempts}, acknowledged companies without webhook ${withoutHook.length}`,
      )
      assert.isAbove(acknowledged.length, 10)
      assert.deepStrictEqual(missing, [])
      assert.deepStrictEqual(undelivered, [])
      assert.strictEqual(repeatedAttempts, 0)
      assert.deepStrictEqual(withoutHook, [])
      assert.deepStrictEqual(final, [], "every registration ends with an answer once retried")
    } finally {
      await stopCluster(cluster)
      await receiver.close()
      db.drop()
    }
  })

  it("conflicting commands through different instances give only legal outcomes", async () => {
    const db = freshDatabase("instances_conflicts")
    const cluster = await startCluster("inst-conflict", db.url)
    try {
      const partner = await token(cluster, "inst-conflict")
      const base = cluster.proxy.url
      const company = await register(base, partner, "conflicts-co")
      const companyId = (company.body as { companyId: string }).companyId
      for (let i = 0; i < 60; i++) {
        const status = await call(base, "GET", `/company/status?companyId=${companyId}`, { token: partner })
        if ((status.body as { Status?: string }).Status === "Verified") break
        await sleep(200)
      }
      const payer = await customer(base, partner, "+14155550177")
      const requests: Array<string> = []
      for (let i = 0; i < 15; i++) {
        const created = await call(base, "POST", "/Payment/Create", {
          token: partner,
          body: {
            companyId,
            payerRegistrationId: payer.registrationId,
            amount: { value: 20 + i, currencyCode: "USD" },
            description: `conflict ${i}`,
            dueDate: tomorrow(),
          },
        })
        assert.strictEqual(created.status, 200, created.text)
        requests.push((created.body as { paymentRequestId: string }).paymentRequestId)
      }
      // Each pair goes out together (the proxy's rotation sends its two halves to different instances),
      // one half a few milliseconds after the other, in turns, so that either may win.
      const outcomes = await Promise.all(
        requests.map(async (id, i) => {
          const lag = (i % 4) * 15
          const [accept, cancel] = await Promise.all([
            sleep(i % 2 === 0 ? 0 : lag).then(() =>
              call(base, "POST", `/Transaction/PaymentRequest/${id}/Accept`, {
                token: payer.token,
                body: { bankAccountId: payer.bankAccountId, acceptDebitAuth: false, transferDescription: "race" },
              }),
            ),
            sleep(i % 2 === 0 ? lag + 40 : 0).then(() =>
              call(base, "PUT", `/Payment/${id}/Cancel`, { token: partner }),
            ),
          ])
          const final = await call(base, "GET", `/Payment/${id}`, { token: partner })
          return { id, accept: accept.status, cancel: cancel.status, status: (final.body as { status: string }).status }
        }),
      )
      const illegal = outcomes.filter((o) => {
        const accepted = o.accept === 200
        const cancelled = o.cancel === 200
        if (accepted === cancelled) return true // both or neither won
        if (o.accept >= 500 || o.cancel >= 500) return true
        return cancelled ? o.status !== "Cancelled" : o.status === "Cancelled" || o.status === "Pending"
      })
      summary(
        "instances/conflicts",
        `${outcomes.length} accept/cancel races over ${instances} instances: accepts [${tally(outcomes.map((o) => o.accept))}], ` +
          `cancels [${tally(outcomes.map((o) => o.cancel))}], final [${outcomes.map((o) => o.status).join(",")}], illegal ${illegal.length}`,
      )
      assert.deepStrictEqual(illegal, [])
    } finally {
      await stopCluster(cluster)
      db.drop()
    }
  })

  it("a rolling restart, one instance at a time, answers no 5xx and loses nothing acknowledged", async () => {
    const db = freshDatabase("instances_rolling")
    const cluster = await startCluster("inst-roll", db.url)
    try {
      const partner = await token(cluster, "inst-roll")
      const base = cluster.proxy.url
      const statuses: Array<number> = []
      const acknowledged: Array<string> = []
      let stop = false
      let n = 0
      const loop = async (worker: number) => {
        while (!stop) {
          const created = await call(base, "POST", "/Company/Create", {
            token: partner,
            headers: { "idempotency-key": `roll-${worker}-${n}` },
            body: companyBody({ companyReferenceId: `roll-${worker}-${n++}` }),
            timeoutMs: 15_000,
          })
          statuses.push(created.status)
          if (created.status === 200) {
            const companyId = (created.body as { companyId: string }).companyId
            acknowledged.push(companyId)
            const read = await call(base, "GET", `/company/status?companyId=${companyId}`, { token: partner })
            statuses.push(read.status)
          }
          if (created.status === 429) await sleep(500)
        }
      }
      const load = Promise.all(Array.from({ length: 4 }, (_, w) => loop(w)))
      const restarts: Array<string> = []
      for (let i = 0; i < instances; i++) {
        const old = cluster.services[i]!
        // Deregister, let its requests finish, stop it; start its successor and register it once ready.
        cluster.proxy.backends.splice(cluster.proxy.backends.indexOf(old.url), 1)
        await cluster.proxy.drained(old.url)
        const began = Date.now()
        await old.stop("SIGTERM")
        const successor = await start(cluster.env(i))
        for (let ready = 0; ready < 100; ready++) {
          const probe = await call(successor.url, "GET", "/readyz").catch(() => undefined)
          if (probe?.status === 200) break
          await sleep(100)
        }
        cluster.services[i] = successor
        cluster.proxy.backends.push(successor.url)
        restarts.push(`${Date.now() - began} ms`)
        await sleep(500)
      }
      stop = true
      await load
      const missing: Array<string> = []
      for (const companyId of acknowledged) {
        const answer = await callPatiently(base, "GET", `/company/status?companyId=${companyId}`, { token: partner })
        if (answer.status !== 200) missing.push(companyId)
      }
      const failures = statuses.filter((status) => status >= 500)
      summary(
        "instances/rolling",
        `${instances} instances restarted one at a time (${restarts.join(", ")}) under load: ${statuses.length} answers [${tally(statuses)}], ` +
          `5xx ${failures.length}; ${acknowledged.length} acknowledged, missing ${missing.length}`,
      )
      assert.isAbove(acknowledged.length, 10)
      assert.deepStrictEqual(failures, [])
      assert.deepStrictEqual(missing, [])
    } finally {
      await stopCluster(cluster)
      db.drop()
    }
  })
})
