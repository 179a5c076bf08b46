/**
 * Scenario 1, concurrency: 200 conflicting commands fired at once at the same
 * aggregates of the real service on PostgreSQL. Payment requests: the payer's
 * accept races the partner's cancel. Consents: the payer's accept races its
 * decline. A debit authorization: limit changes and enable/disable race.
 * Checks: only legal outcomes, refusals are 409 problems, no lost update, and
 * each read model's status equals the status implied by its stream's events.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import {
  call,
  companyBody,
  customer,
  freshDatabase,
  isProblem,
  killAll,
  partnerToken,
  psql,
  serviceEnv,
  sleep,
  start,
  summary,
  tally,
  tempDir,
  tomorrow,
  verifiedCompany,
} from "./support.ts"

const clientId = "faults-concurrency-client"
const clientSecret = "faults-concurrency-secret-0123456789"

afterAll(() => killAll())

interface Outcome {
  readonly kind: string
  readonly status: number
  readonly problem: boolean
  readonly code: string
}

/** The stream's events (type, data) in order, for an aggregate id. */
const streamOf = (url: string, id: string) =>
  psql(url, `SELECT event_type FROM events WHERE stream_id LIKE '%${id}' ORDER BY stream_version`)
    .split("\n")
    .filter((line) => line !== "")

const readModel = (url: string, collection: string, id: string): Record<string, unknown> | undefined => {
  const text = psql(url, `SELECT data::text FROM read_models WHERE collection = '${collection}' AND id = '${id}'`)
  return text === "" ? undefined : (JSON.parse(text) as Record<string, unknown>)
}

describe("concurrency", () => {
  it("200 conflicting commands: only legal outcomes, no lost update, events agree with read models", async () => {
    const db = freshDatabase("concurrency")
    const data = tempDir("concurrency")
    const outcomes: Array<Outcome> = []
    const violations: Array<string> = []
    const debitCodes = new Set<string>()
    try {
      const service = await start(
        serviceEnv({ clientId, clientSecret, dataDir: data.dir, databaseUrl: db.url, kybDelayMs: 200 }),
      )
      const base = service.url
      const partner = await partnerToken(service, clientId, clientSecret)
      const company = await verifiedCompany(base, partner, companyBody({ companyReferenceId: "conc-1" }))
      assert.strictEqual(company.status, 200, company.text)
      const companyId = (company.body as { companyId: string }).companyId

      // Payers: one per contested aggregate (a customer token may send 20 requests in a burst).
      const payers = []
      for (let i = 0; i < 5; i++) payers.push(await customer(base, partner, `+1415555${String(1000 + i)}`))
      await sleep(2500) // let the customers' rate-limit buckets refill

      // A. payment requests: 3 x (20 accepts by the payer + 20 cancels by the partner)
      const requests: Array<{ id: string; accepts: Array<Outcome>; cancels: Array<Outcome> }> = []
      for (let i = 0; i < 3; i++) {
        const created = await call(base, "POST", "/Payment/Create", {
          token: partner,
          body: {
            companyId,
            payerRegistrationId: payers[i]!.registrationId,
            amount: { value: 12.34, currencyCode: "USD" },
            description: `contested ${i}`,
            dueDate: tomorrow(),
          },
        })
        assert.strictEqual(created.status, 200, created.text)
        requests.push({ id: (created.body as { paymentRequestId: string }).paymentRequestId, accepts: [], cancels: [] })
      }
      const fire = async (kind: string, bucket: Array<Outcome>, run: () => ReturnType<typeof call>, delay = 0) => {
        if (delay > 0) await sleep(delay)
        const answer = await run()
        const code = String((answer.body as { code?: string } | undefined)?.code ?? "")
        const outcome = { kind, status: answer.status, problem: isProblem(answer), code }
        bucket.push(outcome)
        outcomes.push(outcome)
        if (answer.status >= 400 && !outcome.problem) violations.push(`${kind}: ${answer.status} not problem+json`)
      }
      await Promise.all(
        requests.flatMap((request, i) =>
          Array.from({ length: 40 }, (_, k) =>
            k % 2 === 0
              ? fire("payment.accept", request.accepts, () =>
                  call(base, "POST", `/Transaction/PaymentRequest/${request.id}/Accept`, {
                    token: payers[i]!.token,
                    body: { bankAccountId: payers[i]!.bankAccountId, acceptDebitAuth: false, transferDescription: "" },
                  }),
                )
              : fire(
                  "payment.cancel",
                  request.cancels,
                  () => call(base, "PUT", `/Payment/${request.id}/Cancel`, { token: partner }),
                  i === 0 ? 150 : 0, // give the (slower) accepts a head start on one request
                ),
          ),
        ),
      )
      for (const request of requests) {
        const acceptedOk = request.accepts.filter((o) => o.status === 200).length
        const cancelledOk = request.cancels.filter((o) => o.status === 200).length
        const others = [...request.accepts, ...request.cancels].filter((o) => o.status !== 200 && o.status !== 409)
        if (others.length > 0)
          violations.push(`payment ${request.id}: unexpected statuses ${tally(others.map((o) => o.status))}`)
        if (acceptedOk > 0 && cancelledOk > 0) violations.push(`payment ${request.id}: both accepted and cancelled`)
        if (acceptedOk === 0 && cancelledOk === 0)
          violations.push(`payment ${request.id}: neither accepted nor cancelled`)
        const events = streamOf(db.url, request.id)
        const statusEvents = events.filter((e) => e === "PaymentRequestAccepted" || e === "PaymentRequestCancelled")
        if (statusEvents.length !== 1) violations.push(`payment ${request.id}: status events ${JSON.stringify(events)}`)
        const implied = statusEvents.at(-1) === "PaymentRequestAccepted" ? "Accepted" : "Cancelled"
        const expected = acceptedOk > 0 ? "Accepted" : "Cancelled"
        const model = readModel(db.url, "payment_requests", request.id)
        if (model?.status !== implied || implied !== expected)
          violations.push(
            `payment ${request.id}: read model ${String(model?.status)}, events imply ${implied}, answers imply ${expected}`,
          )
        const got = await call(base, "GET", `/Payment/${request.id}`, { token: partner })
        if ((got.body as { status?: string }).status !== expected)
          violations.push(`payment ${request.id}: GET says ${(got.body as { status?: string }).status}`)
        const transfers = psql(
          db.url,
          `SELECT count(*) FROM events WHERE event_type = 'TransferInitiated' AND data::text LIKE '%${request.id}%'`,
        )
        if (Number(transfers) !== (expected === "Accepted" ? 1 : 0))
          violations.push(`payment ${request.id}: ${transfers} transfers initiated`)
      }

      // B. consents: 2 plans x (10 accepts + 10 declines by the payer)
      const consents: Array<{ id: string; planId: string; accepts: Array<Outcome>; declines: Array<Outcome> }> = []
      for (let i = 3; i < 5; i++) {
        const plan = await call(base, "POST", "/PaymentPlan/Create", {
          token: partner,
          body: {
            companyId,
            payerRegistrationId: payers[i]!.registrationId,
            amount: { value: 25.5, currencyCode: "USD" },
            frequency: "Monthly",
            recurrenceInterval: 1,
            startDate: tomorrow(),
            numberOfPayments: 3,
          },
        })
        assert.strictEqual(plan.status, 200, plan.text)
        const body = plan.body as { consentId: string; paymentPlanId: string }
        consents.push({ id: body.consentId, planId: body.paymentPlanId, accepts: [], declines: [] })
      }
      await Promise.all(
        consents.flatMap((consent, j) =>
          Array.from({ length: 20 }, (_, k) =>
            k % 2 === 0
              ? fire("consent.accept", consent.accepts, () =>
                  call(base, "PUT", `/Consent/${consent.id}/Accept`, {
                    token: payers[3 + j]!.token,
                    body: { bankAccountId: payers[3 + j]!.bankAccountId },
                  }),
                )
              : fire("consent.decline", consent.declines, () =>
                  call(base, "PUT", `/Consent/${consent.id}/Decline`, { token: payers[3 + j]!.token }),
                ),
          ),
        ),
      )
      for (const consent of consents) {
        const acceptedOk = consent.accepts.filter((o) => o.status === 200).length
        const declines = consent.declines.filter((o) => o.status !== 200)
        if (declines.length > 0)
          violations.push(`consent ${consent.id}: declines answered ${tally(declines.map((o) => o.status))}`)
        const badAccepts = consent.accepts.filter((o) => o.status !== 200 && o.status !== 409)
        if (badAccepts.length > 0)
          violations.push(`consent ${consent.id}: accepts answered ${tally(badAccepts.map((o) => o.status))}`)
        const events = streamOf(db.url, consent.id)
        const accepted = events.filter((e) => e === "ConsentAccepted").length
        const ends = events.filter((e) => e === "ConsentDeclined" || e === "ConsentRevoked")
        const expected = acceptedOk > 0 ? "Revoked" : "Declined"
        if (accepted !== (acceptedOk > 0 ? 1 : 0) || ends.length !== 1)
          violations.push(
            `consent ${consent.id}: events ${JSON.stringify(events)} after ${acceptedOk} accepted answers`,
          )
        const implied = ends.at(-1) === "ConsentRevoked" ? "Revoked" : "Declined"
        const model = readModel(db.url, "consents", consent.id)
        if (model?.status !== implied || implied !== expected)
          violations.push(
            `consent ${consent.id}: read model ${String(model?.status)}, events imply ${implied}, answers imply ${expected}`,
          )
        const plan = await call(base, "GET", `/PaymentPlan/${consent.planId}`, { token: partner })
        const planBody = plan.body as { status?: string; consentStatus?: string }
        if (planBody.status !== "Cancelled" || planBody.consentStatus !== expected)
          violations.push(
            `plan ${consent.planId}: ${planBody.status}/${planBody.consentStatus}, expected Cancelled/${expected}`,
          )
      }

      // C. two debit authorizations: 20 concurrent limit changes and enable/disable toggles each, by the payer
      await sleep(2500)
      const debitSummaries: Array<string> = []
      await Promise.all(
        [payers[0]!, payers[1]!].map(async (owner) => {
          const set = await call(base, "POST", "/DebitAuth/Set", {
            token: owner.token,
            body: { companyId, limit: { value: 100, currencyCode: "USD" } },
          })
          assert.strictEqual(set.status, 200, set.text)
          const debitAuthId = (set.body as { debitAuthId: string }).debitAuthId
          await sleep(1500)
          const debit: Array<Outcome> = []
          const byIndex: Array<number> = []
          await Promise.all(
            Array.from({ length: 20 }, (_, k) =>
              fire("debitAuth.update", debit, async () => {
                const answer = await call(base, "PUT", `/DebitAuth/${debitAuthId}/Update`, {
                  token: owner.token,
                  body: k % 4 === 3 ? { enabled: k % 8 === 3 } : { limit: { value: 200 + k, currencyCode: "USD" } },
                })
                byIndex[k] = answer.status
                return answer
              }),
            ),
          )
          const badDebit = debit.filter((o) => o.status !== 200 && o.status !== 409)
          if (badDebit.length > 0) violations.push(`debit auth: answered ${tally(badDebit.map((o) => o.status))}`)
          const rows = psql(
            db.url,
            `SELECT event_type || ' ' || data::text FROM events WHERE stream_id LIKE '%${debitAuthId}' ORDER BY stream_version`,
          )
            .split("\n")
            .filter((l) => l !== "")
          const lastLimit = rows
            .filter((r) => r.startsWith("DebitAuthLimitUpdated") || r.startsWith("DebitAuthSet"))
            .at(-1)!
          const lastToggle = rows.filter((r) => /^DebitAuth(Set|Enabled|Disabled) /.test(r)).at(-1)!
          const model = readModel(db.url, "debit_auths", debitAuthId)
          const impliedEnabled = !lastToggle.startsWith("DebitAuthDisabled")
          const limitData = JSON.parse(lastLimit.slice(lastLimit.indexOf(" ") + 1)) as { limit: { minorUnits: number } }
          const impliedStatus = impliedEnabled ? "Active" : "Disabled"
          const modelText = JSON.stringify(model)
          const modelLimit = (model as { limit?: { minorUnits?: number } } | undefined)?.limit?.minorUnits
          if (model === undefined || modelLimit !== limitData.limit.minorUnits || model.status !== impliedStatus)
            violations.push(
              `debit auth ${debitAuthId}: read model ${modelText} vs last limit ${lastLimit} / last toggle ${lastToggle}`,
            )
          const limitEvents = rows.filter((r) => r.startsWith("DebitAuthLimitUpdated")).length
          const okLimits = byIndex.filter((status, k) => status === 200 && k % 4 !== 3).length
          // Every limit change answered 200 is a distinct limit, so it must be exactly one event (no lost update).
          if (limitEvents !== okLimits)
            violations.push(
              `debit auth ${debitAuthId}: ${limitEvents} limit events for ${okLimits} limit changes answered 200`,
            )
          for (const o of debit) if (o.status === 409) debitCodes.add(o.code)
          debitSummaries.push(
            `${okLimits}/15 limit changes answered 200 = ${limitEvents} events [${tally(debit.map((o) => o.status))}]`,
          )
        }),
      )

      const byStatus = tally(outcomes.map((o) => o.status))
      const accepted = outcomes.filter((o) => o.status === 200).length
      const refused = outcomes.filter((o) => o.status === 409).length
      summary(
        "concurrency",
        `${outcomes.length} commands, ${accepted} answered 200 (incl. idempotent repeats), ${refused} refused (409), ${outcomes.length - accepted - refused} other [${byStatus}]; payment requests ${requests.map((r) => `${r.accepts.filter((o) => o.status === 200).length}A/${r.cancels.filter((o) => o.status === 200).length}C`).join(" ")}; consents ${consents.map((c) => `${c.accepts.filter((o) => o.status === 200).length} accepts ok`).join(" ")}; debit auths: ${debitSummaries.join("; ")}; 409 codes: debit ${[...debitCodes].join(",")} others ${[...new Set(outcomes.filter((o) => o.status === 409 && o.kind !== "debitAuth.update").map((o) => o.code))].join(",")}; violations ${violations.length}`,
      )
      for (const violation of violations) console.log(`[faults] concurrency VIOLATION: ${violation}`)
      assert.deepStrictEqual(violations, [])
      assert.strictEqual(outcomes.length, 200)
    } finally {
      killAll()
      db.drop()
      data.remove()
    }
  })
})
