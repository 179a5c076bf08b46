/**
 * Through HTTP: recurring payment plans (partner) and the payer's consents
 * (customer) (spec 2.16, 3.2, changelog v0.4.1-v0.4.4).
 */
import { assert, describe, it } from "@effect/vitest"
import { Ids, PaymentPlans, PaymentPlansProjection, Payments } from "@partnerpay/domain"
import { Fixtures } from "@partnerpay/domain/testing"
import { Effect } from "effect"
import { afterAll } from "vitest"
import * as PaymentPlanApi from "../src/plans/PaymentPlanApi.ts"
import { otherPartnerId, partnerId, send } from "./fixtures.ts"
import {
  customerToken,
  makeSharedServer,
  partnerTokenFor,
  registerCustomer,
  registerVerifiedCompany,
} from "./partyFixtures.ts"

const server = await makeSharedServer()
afterAll(server.dispose)
const { freshId } = server

const today = () => new Date().toISOString().slice(0, 10)
const bankAccountId = "ba000000-0000-4000-8000-000000000001"

/** A payer of `partnerId`, a company of the partner and one of the other partner, and tokens. */
const world = Effect.gen(function* () {
  const payer = Ids.RegistrationId.make(freshId("7e57ab1e"))
  const otherPayer = Ids.RegistrationId.make(freshId("7e57ab1e"))
  const acme = Ids.CompanyId.make(freshId("c0000000"))
  const foreign = Ids.CompanyId.make(freshId("c0000000"))
  yield* server.run(
    Effect.gen(function* () {
      yield* Fixtures.registerVerifiedCustomer(partnerId, payer, Ids.BankAccountId.make(bankAccountId))
      yield* registerCustomer(partnerId, otherPayer)
      yield* registerVerifiedCompany(partnerId, acme, "Acme Coffee")
      yield* registerVerifiedCompany(otherPartnerId, foreign, "Initech")
    }),
  )
  return {
    payer,
    acme,
    acmeReference: `ref-${acme.slice(-6)}`,
    foreign,
    customer: yield* customerToken(partnerId, payer),
    otherCustomer: yield* customerToken(partnerId, otherPayer),
    partner: yield* partnerTokenFor(partnerId),
    otherPartner: yield* partnerTokenFor(otherPartnerId),
  }
})

const request = (method: string, token: string | undefined, body?: unknown): RequestInit => ({
  method,
  headers: {
    ...(body === undefined ? {} : { "content-type": "application/json" }),
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
})

type Json = Record<string, unknown>

const call = (method: string, path: string, token: string | undefined, body?: unknown) =>
  send(server.handler, path, request(method, token, body))

const planBody = (companyId: string, payer: string, overrides: Json = {}): Json => ({
  companyId,
  payerRegistrationId: payer,
  amount: { value: 25.5, currencyCode: "USD" },
  frequency: "Monthly",
  recurrenceInterval: 1,
  startDate: today(),
  numberOfPayments: 6,
  ...overrides,
})

type World = Effect.Success<typeof world>

/** Creates a plan for the world's payer; returns its ids. */
const createPlan = (w: World, overrides: Json = {}) =>
  Effect.map(call("POST", "/PaymentPlan/Create", w.partner, planBody(w.acme, w.payer, overrides)), (r) => {
    assert.strictEqual(r.status, 200, r.text)
    return r.json as { paymentPlanId: string; consentId: string; status: string }
  })

const keys = (value: unknown) => Object.keys(value as Json).sort()

const amountShape = {
  value: 25.5,
  currencyCode: { value: "USD", displayName: "US Dollar", cultureName: "en-US" },
}

const expectProblem = (r: { status: number; json: unknown; text: string }, status: number, code?: string) => {
  assert.strictEqual(r.status, status, r.text)
  if (code !== undefined) assert.strictEqual((r.json as Json).code, code, r.text)
}

describe("POST /PaymentPlan/Create", () => {
  it.effect("creates a Draft plan and its Pending consent", () =>
    Effect.gen(function* () {
      const w = yield* world
      const created = yield* createPlan(w)
      assert.deepStrictEqual(keys(created), ["consentId", "paymentPlanId", "status"])
      assert.strictEqual(created.status, "Draft")
      const consent = yield* call("GET", `/Consent/${created.consentId}`, w.customer)
      assert.strictEqual(consent.status, 200, consent.text)
      assert.strictEqual((consent.json as Json).status, "Pending")
    }),
  )

  it.effect("names the company by its reference id instead, and keeps the description", () =>
    Effect.gen(function* () {
      const w = yield* world
      const created = yield* createPlan(w, {
        companyId: undefined,
        companyReferenceId: w.acmeReference,
        description: "Monthly coffee beans",
      })
      const plan = yield* call("GET", `/PaymentPlan/${created.paymentPlanId}`, w.partner)
      assert.strictEqual((plan.json as Json).companyId, w.acme)
      assert.strictEqual((plan.json as Json).description, "Monthly coffee beans")
    }),
  )

  it.effect("keeps the metadata set on create and answers it on every read ({} when none)", () =>
    Effect.gen(function* () {
      const w = yield* world
      const created = yield* createPlan(w, { metadata: { subscriptionRef: "sub_77" } })
      const plan = yield* call("GET", `/PaymentPlan/${created.paymentPlanId}`, w.partner)
      assert.deepStrictEqual((plan.json as Json).metadata, { subscriptionRef: "sub_77" })
      const plain = yield* createPlan(w)
      const plainPlan = yield* call("GET", `/PaymentPlan/${plain.paymentPlanId}`, w.partner)
      assert.deepStrictEqual((plainPlan.json as Json).metadata, {})
      const refused = yield* call(
        "POST",
        "/PaymentPlan/Create",
        w.partner,
        planBody(w.acme, w.payer, { metadata: { ["k".repeat(41)]: "v" } }),
      )
      assert.strictEqual(refused.status, 400, refused.text)
    }),
  )

  it.effect("PUT /PaymentPlan/{id}/Metadata replaces it in any status; another partner's plan is 404", () =>
    Effect.gen(function* () {
      const w = yield* world
      const created = yield* createPlan(w, { metadata: { subscriptionRef: "sub_1", keep: "no" } })
      const path = `/PaymentPlan/${created.paymentPlanId}/Metadata`
      const replaced = yield* call("PUT", path, w.partner, { metadata: { subscriptionRef: "sub_2" } })
      assert.strictEqual(replaced.status, 200, replaced.text)
      assert.deepStrictEqual(replaced.json, { metadata: { subscriptionRef: "sub_2" } })
      const read = yield* call("GET", `/PaymentPlan/${created.paymentPlanId}`, w.partner)
      assert.deepStrictEqual((read.json as Json).metadata, { subscriptionRef: "sub_2" })
      // After the plan was cancelled too.
      assert.strictEqual((yield* call("PUT", `/PaymentPlan/${created.paymentPlanId}/Cancel`, w.partner)).status, 200)
      assert.strictEqual((yield* call("PUT", path, w.partner, { metadata: {} })).status, 200)
      const cleared = yield* call("GET", `/PaymentPlan/${created.paymentPlanId}`, w.partner)
      assert.deepStrictEqual((cleared.json as Json).metadata, {})
      const bad = yield* call("PUT", path, w.partner, { metadata: { note: "v".repeat(501) } })
      assert.strictEqual(bad.status, 400, bad.text)
      assert.deepStrictEqual(
        (bad.json as { errors: Array<{ field: string }> }).errors.map((e) => e.field),
        ["metadata.note"],
      )
      expectProblem(yield* call("PUT", path, w.otherPartner, { metadata: { a: "b" } }), 404)
      expectProblem(
        yield* call("PUT", `/PaymentPlan/${crypto.randomUUID()}/Metadata`, w.partner, { metadata: {} }),
        404,
      )
    }),
  )

  it.effect("needs a partner token: none is 401, a customer's is 403", () =>
    Effect.gen(function* () {
      const w = yield* world
      expectProblem(yield* call("POST", "/PaymentPlan/Create", undefined, planBody(w.acme, w.payer)), 401)
      expectProblem(yield* call("POST", "/PaymentPlan/Create", w.customer, planBody(w.acme, w.payer)), 403)
    }),
  )

  it.effect("refuses bad terms with every field named (422), and malformed input (400)", () =>
    Effect.gen(function* () {
      const w = yield* world
      const bad = yield* call(
        "POST",
        "/PaymentPlan/Create",
        w.partner,
        planBody(w.acme, w.payer, { recurrenceInterval: 0, startDate: "2020-01-01", numberOfPayments: 0 }),
      )
      expectProblem(bad, 422, "VALIDATION_FAILED")
      const fields = ((bad.json as Json).errors as Array<{ field: string }>).map((e) => e.field).sort()
      assert.deepStrictEqual(fields, ["numberOfPayments", "recurrenceInterval", "startDate"])
      const both = yield* call(
        "POST",
        "/PaymentPlan/Create",
        w.partner,
        planBody(w.acme, w.payer, { companyReferenceId: w.acmeReference }),
      )
      expectProblem(both, 422, "VALIDATION_FAILED")
      const neither = yield* call(
        "POST",
        "/PaymentPlan/Create",
        w.partner,
        planBody(w.acme, w.payer, { companyId: undefined }),
      )
      expectProblem(neither, 422, "VALIDATION_FAILED")
      const malformed = yield* call(
        "POST",
        "/PaymentPlan/Create",
        w.partner,
        planBody(w.acme, w.payer, { frequency: "Daily", amount: { value: 1.234, currencyCode: "USD" } }),
      )
      expectProblem(malformed, 400, "BAD_REQUEST")
      const malformedFields = ((malformed.json as Json).errors as Array<{ field: string }>).map((e) => e.field).sort()
      assert.deepStrictEqual(malformedFields, ["amount.value", "frequency"])
    }),
  )

  it.effect("another partner's customer as payer gets the same 404 as an unknown registration id", () =>
    Effect.gen(function* () {
      const w = yield* world
      const foreignPayer = Ids.RegistrationId.make(freshId("7e57ab1e"))
      const unknownPayer = Ids.RegistrationId.make(freshId("7e57ab1e"))
      yield* server.run(registerCustomer(otherPartnerId, foreignPayer))
      const answers = []
      for (const payer of [foreignPayer, unknownPayer]) {
        const r = yield* call("POST", "/PaymentPlan/Create", w.partner, planBody(w.acme, payer))
        expectProblem(r, 404, "NOT_FOUND")
        const { instance: _instance, ...problem } = r.json as Json
        answers.push(problem)
      }
      assert.deepStrictEqual(answers[0], answers[1])
      assert.strictEqual(answers[0]?.detail, "Customer not found.")
    }),
  )

  it.effect("another partner's company is not found (404)", () =>
    Effect.gen(function* () {
      const w = yield* world
      expectProblem(
        yield* call("POST", "/PaymentPlan/Create", w.partner, planBody(w.foreign, w.payer)),
        404,
        "NOT_FOUND",
      )
    }),
  )
})

describe("GET /PaymentPlan/{paymentPlanId}", () => {
  it.effect("answers the plan with the interface's field names", () =>
    Effect.gen(function* () {
      const w = yield* world
      const created = yield* createPlan(w)
      const r = yield* call("GET", `/PaymentPlan/${created.paymentPlanId}`, w.partner)
      assert.strictEqual(r.status, 200, r.text)
      const plan = r.json as Json
      assert.deepStrictEqual(keys(plan), [
        "amount",
        "collectedCount",
        "companyId",
        "consentId",
        "consentStatus",
        "createdAt",
        "failedCount",
        "frequency",
        "instalments",
        "metadata",
        "nextDueDate",
        "numberOfPayments",
        "payerRegistrationId",
        "paymentPlanId",
        "recurrenceInterval",
        "settledCount",
        "startDate",
        "status",
      ])
      assert.deepStrictEqual(plan.amount, amountShape)
      assert.strictEqual(plan.status, "Draft")
      assert.strictEqual(plan.consentStatus, "Pending")
      assert.strictEqual(plan.nextDueDate, today())
      assert.strictEqual(plan.collectedCount, 0)
      assert.deepStrictEqual(plan.instalments, [])
      assert.strictEqual(plan.payerRegistrationId, w.payer)
    }),
  )

  it.effect("another partner's plan is 404; a customer token is 403; an id that is no uuid is 400", () =>
    Effect.gen(function* () {
      const w = yield* world
      const created = yield* createPlan(w)
      expectProblem(yield* call("GET", `/PaymentPlan/${created.paymentPlanId}`, w.otherPartner), 404, "NOT_FOUND")
      for (const move of ["Activate", "Pause", "Resume", "Cancel"]) {
        expectProblem(
          yield* call("PUT", `/PaymentPlan/${created.paymentPlanId}/${move}`, w.otherPartner),
          404,
          "NOT_FOUND",
        )
        expectProblem(yield* call("PUT", `/PaymentPlan/${created.paymentPlanId}/${move}`, w.customer), 403)
      }
      expectProblem(yield* call("GET", `/PaymentPlan/${created.paymentPlanId}`, w.customer), 403)
      expectProblem(yield* call("GET", "/PaymentPlan/not-a-uuid", w.partner), 400)
    }),
  )
})

describe("a plan's life through its consent", () => {
  it.effect("activation needs the payer's Accepted consent (409 CONSENT_NOT_ACCEPTED until then)", () =>
    Effect.gen(function* () {
      const w = yield* world
      const { paymentPlanId, consentId } = yield* createPlan(w)
      expectProblem(
        yield* call("PUT", `/PaymentPlan/${paymentPlanId}/Activate`, w.partner),
        409,
        "CONSENT_NOT_ACCEPTED",
      )
      const accepted = yield* call("PUT", `/Consent/${consentId}/Accept`, w.customer, { bankAccountId })
      assert.strictEqual(accepted.status, 200, accepted.text)
      assert.strictEqual((accepted.json as Json).status, "Accepted")
      assert.isString((accepted.json as Json).acceptedAt)
      const active = yield* call("PUT", `/PaymentPlan/${paymentPlanId}/Activate`, w.partner)
      assert.strictEqual(active.status, 200, active.text)
      assert.strictEqual((active.json as Json).status, "Active")
      assert.strictEqual((active.json as Json).consentStatus, "Accepted")
    }),
  )

  it.effect("pause, resume and cancel; illegal moves are 409", () =>
    Effect.gen(function* () {
      const w = yield* world
      const { paymentPlanId, consentId } = yield* createPlan(w)
      const move = (name: string) => call("PUT", `/PaymentPlan/${paymentPlanId}/${name}`, w.partner)
      const status = (r: { json: unknown }) => (r.json as Json).status
      expectProblem(yield* move("Pause"), 409, "ILLEGAL_TRANSITION")
      expectProblem(yield* move("Resume"), 409, "ILLEGAL_TRANSITION")
      yield* call("PUT", `/Consent/${consentId}/Accept`, w.customer, { bankAccountId })
      assert.strictEqual(status(yield* move("Activate")), "Active")
      assert.strictEqual(status(yield* move("Pause")), "Paused")
      assert.strictEqual(status(yield* move("Pause")), "Paused") // a repeat changes nothing
      expectProblem(yield* move("Activate"), 409, "ILLEGAL_TRANSITION")
      assert.strictEqual(status(yield* move("Resume")), "Active")
      const cancelled = yield* move("Cancel")
      assert.strictEqual(status(cancelled), "Cancelled")
      assert.strictEqual((cancelled.json as Json).cancellationReason, "CancelledByCompany")
      assert.isUndefined((cancelled.json as Json).nextDueDate)
      assert.strictEqual(status(yield* move("Cancel")), "Cancelled")
      expectProblem(yield* move("Resume"), 409, "ILLEGAL_TRANSITION")
      expectProblem(yield* move("Activate"), 409, "ILLEGAL_TRANSITION")
    }),
  )
})

describe("GET /Consent/List and GET /Consent/{consentId}", () => {
  it.effect("the payer's consent with its recipient company, exact field names", () =>
    Effect.gen(function* () {
      const w = yield* world
      const { paymentPlanId, consentId } = yield* createPlan(w)
      const list = yield* call("GET", "/Consent/List", w.customer)
      assert.strictEqual(list.status, 200, list.text)
      assert.deepStrictEqual(keys(list.json), ["data", "hasMore"])
      const page = list.json as { data: Array<Json>; hasMore: boolean }
      assert.strictEqual(page.hasMore, false)
      assert.deepStrictEqual(
        page.data.map((c) => c.consentId),
        [consentId],
      )
      const r = yield* call("GET", `/Consent/${consentId}`, w.customer)
      assert.strictEqual(r.status, 200, r.text)
      const consent = r.json as Json
      assert.deepStrictEqual(consent, page.data[0])
      assert.deepStrictEqual(keys(consent), [
        "amount",
        "consentId",
        "createdAt",
        "frequency",
        "paymentPlanId",
        "recipientCompany",
        "recurrenceInterval",
        "startDate",
        "status",
      ])
      assert.strictEqual(consent.paymentPlanId, paymentPlanId)
      assert.strictEqual(consent.status, "Pending")
      assert.deepStrictEqual(consent.amount, amountShape)
      assert.strictEqual(consent.frequency, "Monthly")
      assert.strictEqual(consent.recurrenceInterval, 1)
      assert.strictEqual(consent.startDate, today())
      const company = consent.recipientCompany as Json
      assert.deepStrictEqual(keys(company), ["address", "contactNumber", "emailAddress", "name"])
      assert.strictEqual(company.name, "Acme Coffee")
      assert.deepStrictEqual(keys(company.address), [
        "apartmentNumber",
        "city",
        "state",
        "streetNumberAndName",
        "zipCode",
      ])
    }),
  )

  it.effect("pages with limit and startingAfter, newest first", () =>
    Effect.gen(function* () {
      const w = yield* world
      const first = yield* createPlan(w)
      const second = yield* createPlan(w)
      const third = yield* createPlan(w)
      const page1 = yield* call("GET", "/Consent/List?limit=2", w.customer)
      const p1 = page1.json as { data: Array<Json>; hasMore: boolean }
      assert.strictEqual(p1.hasMore, true)
      assert.strictEqual(p1.data.length, 2)
      const last = p1.data[1]?.consentId as string
      const page2 = yield* call("GET", `/Consent/List?limit=2&startingAfter=${last}`, w.customer)
      const p2 = page2.json as { data: Array<Json>; hasMore: boolean }
      assert.strictEqual(p2.hasMore, false)
      assert.deepStrictEqual(
        [...p1.data, ...p2.data].map((c) => c.consentId).sort(),
        [first.consentId, second.consentId, third.consentId].sort(),
      )
      expectProblem(yield* call("GET", "/Consent/List?limit=0", w.customer), 400)
      expectProblem(yield* call("GET", "/Consent/List?limit=101", w.customer), 400)
    }),
  )

  it.effect("another customer's consent is 404; a partner token is 403; no token is 401", () =>
    Effect.gen(function* () {
      const w = yield* world
      const { consentId } = yield* createPlan(w)
      expectProblem(yield* call("GET", `/Consent/${consentId}`, w.otherCustomer), 404, "NOT_FOUND")
      expectProblem(yield* call("PUT", `/Consent/${consentId}/Accept`, w.otherCustomer, { bankAccountId }), 404)
      expectProblem(yield* call("PUT", `/Consent/${consentId}/Decline`, w.otherCustomer), 404)
      const others = yield* call("GET", "/Consent/List", w.otherCustomer)
      assert.deepStrictEqual((others.json as Json).data, [])
      expectProblem(yield* call("GET", "/Consent/List", w.partner), 403)
      expectProblem(yield* call("GET", `/Consent/${consentId}`, w.partner), 403)
      expectProblem(yield* call("PUT", `/Consent/${consentId}/Accept`, w.partner, { bankAccountId }), 403)
      expectProblem(yield* call("PUT", `/Consent/${consentId}/Decline`, w.partner), 403)
      expectProblem(yield* call("GET", "/Consent/List", undefined), 401)
      // still Pending for its payer
      assert.strictEqual(((yield* call("GET", `/Consent/${consentId}`, w.customer)).json as Json).status, "Pending")
    }),
  )
})

describe("PUT /Consent/{consentId}/Accept and /Decline", () => {
  it.effect("accept needs a bank account id (400)", () =>
    Effect.gen(function* () {
      const w = yield* world
      const { consentId } = yield* createPlan(w)
      expectProblem(yield* call("PUT", `/Consent/${consentId}/Accept`, w.customer, {}), 400, "BAD_REQUEST")
    }),
  )

  it.effect("a Declined consent disappears from the list, and its plan is cancelled", () =>
    Effect.gen(function* () {
      const w = yield* world
      const { paymentPlanId, consentId } = yield* createPlan(w)
      const declined = yield* call("PUT", `/Consent/${consentId}/Decline`, w.customer)
      assert.strictEqual(declined.status, 200, declined.text)
      assert.strictEqual((declined.json as Json).status, "Declined")
      assert.isString((declined.json as Json).declinedAt)
      const list = yield* call("GET", "/Consent/List", w.customer)
      assert.deepStrictEqual((list.json as Json).data, [])
      const plan = (yield* call("GET", `/PaymentPlan/${paymentPlanId}`, w.partner)).json as Json
      assert.strictEqual(plan.status, "Cancelled")
      assert.strictEqual(plan.consentStatus, "Declined")
      assert.strictEqual(plan.cancellationReason, "ConsentDeclined")
      // declining again changes nothing; accepting now is a conflict
      assert.strictEqual(
        ((yield* call("PUT", `/Consent/${consentId}/Decline`, w.customer)).json as Json).status,
        "Declined",
      )
      expectProblem(
        yield* call("PUT", `/Consent/${consentId}/Accept`, w.customer, { bankAccountId }),
        409,
        "ILLEGAL_TRANSITION",
      )
    }),
  )

  it.effect("decline of an Accepted consent then shows Revoked, and the Active plan is cancelled", () =>
    Effect.gen(function* () {
      const w = yield* world
      const { paymentPlanId, consentId } = yield* createPlan(w)
      yield* call("PUT", `/Consent/${consentId}/Accept`, w.customer, { bankAccountId })
      yield* call("PUT", `/PaymentPlan/${paymentPlanId}/Activate`, w.partner)
      const revoked = yield* call("PUT", `/Consent/${consentId}/Decline`, w.customer)
      assert.strictEqual(revoked.status, 200, revoked.text)
      assert.strictEqual((revoked.json as Json).status, "Revoked")
      assert.isString((revoked.json as Json).acceptedAt)
      assert.isString((revoked.json as Json).revokedAt)
      const read = (yield* call("GET", `/Consent/${consentId}`, w.customer)).json as Json
      assert.strictEqual(read.status, "Revoked")
      assert.deepStrictEqual(((yield* call("GET", "/Consent/List", w.customer)).json as Json).data, [])
      const plan = (yield* call("GET", `/PaymentPlan/${paymentPlanId}`, w.partner)).json as Json
      assert.strictEqual(plan.status, "Cancelled")
      assert.strictEqual(plan.consentStatus, "Revoked")
      expectProblem(yield* call("PUT", `/PaymentPlan/${paymentPlanId}/Resume`, w.partner), 409)
    }),
  )

  it.effect(
    "accepting again with the same bank account changes nothing; an account that is not the payer's is 404",
    () =>
      Effect.gen(function* () {
        const w = yield* world
        const { consentId } = yield* createPlan(w)
        yield* call("PUT", `/Consent/${consentId}/Accept`, w.customer, { bankAccountId })
        const again = yield* call("PUT", `/Consent/${consentId}/Accept`, w.customer, { bankAccountId })
        assert.strictEqual(again.status, 200, again.text)
        assert.strictEqual((again.json as Json).status, "Accepted")
        expectProblem(
          yield* call("PUT", `/Consent/${consentId}/Accept`, w.customer, {
            bankAccountId: "ba000000-0000-4000-8000-000000000002",
          }),
          404,
          "NOT_FOUND",
        )
      }),
  )

  it.effect(
    "accepting with a bank account that is not one of the payer's linked accounts is 404, and changes nothing",
    () =>
      Effect.gen(function* () {
        const w = yield* world
        const { consentId } = yield* createPlan(w)
        const refused = yield* call("PUT", `/Consent/${consentId}/Accept`, w.customer, {
          bankAccountId: "ba000000-0000-4000-8000-0000000000ff",
        })
        expectProblem(refused, 404, "NOT_FOUND")
        assert.strictEqual(((yield* call("GET", `/Consent/${consentId}`, w.customer)).json as Json).status, "Pending")
      }),
  )
})

describe("a plan's instalments through HTTP", () => {
  /** An Active plan of `value` USD with the payer's consent, and its first instalment collected by the scheduler. */
  const collectedFirst = (w: World, value: number) =>
    Effect.gen(function* () {
      const { paymentPlanId, consentId } = yield* createPlan(w, { amount: { value, currencyCode: "USD" } })
      yield* call("PUT", `/Consent/${consentId}/Accept`, w.customer, { bankAccountId })
      yield* call("PUT", `/PaymentPlan/${paymentPlanId}/Activate`, w.partner)
      const collected = yield* server.run(PaymentPlans.collectDue(paymentPlanId))
      assert.strictEqual(collected._tag, "Some")
      const transferId = collected._tag === "Some" ? collected.value.transferId : ""
      return { paymentPlanId, transferId }
    })

  it.effect("each instalment is a transfer, read at GET /Transaction/{transferId} by the partner and the payer", () =>
    Effect.gen(function* () {
      const w = yield* world
      const { paymentPlanId, transferId } = yield* collectedFirst(w, 25.5)
      const plan = (yield* call("GET", `/PaymentPlan/${paymentPlanId}`, w.partner)).json as Json
      const [instalment] = plan.instalments as Array<Json>
      assert.deepStrictEqual(
        [instalment?.instalmentNumber, instalment?.dueDate, instalment?.transferId, instalment?.status],
        [1, today(), transferId, "Pending"],
      )
      const byPartner = yield* call("GET", `/Transaction/${transferId}`, w.partner)
      assert.strictEqual(byPartner.status, 200, byPartner.text)
      const transfer = byPartner.json as Json
      assert.deepStrictEqual(
        [transfer.externalTransferId, transfer.status, transfer.senderAccount, transfer.recipientName],
        [transferId, "Pending", "****6789", "Acme Coffee"],
      )
      assert.deepStrictEqual(transfer.amount, amountShape)
      assert.strictEqual((yield* call("GET", `/Transaction/${transferId}`, w.customer)).status, 200)
      expectProblem(yield* call("GET", `/Transaction/${transferId}`, w.otherCustomer), 404)
      expectProblem(yield* call("GET", `/Transaction/${transferId}`, w.otherPartner), 404)
    }),
  )

  it.effect("a settled instalment shows Settled, appears in the report and can be refunded", () =>
    Effect.gen(function* () {
      const w = yield* world
      const { paymentPlanId, transferId } = yield* collectedFirst(w, 25.5)
      yield* server.run(Payments.settleTransfer(Ids.TransferId.make(transferId)))
      assert.strictEqual(((yield* call("GET", `/Transaction/${transferId}`, w.partner)).json as Json).status, "Settled")
      const plan = (yield* call("GET", `/PaymentPlan/${paymentPlanId}`, w.partner)).json as Json
      assert.deepStrictEqual(
        [plan.settledCount, plan.failedCount, (plan.instalments as Array<Json>)[0]?.status],
        [1, 0, "Settled"],
      )
      const report = yield* call(
        "GET",
        `/Transaction/Report?from=${today()}&to=${today()}&companyId=${w.acme}`,
        w.partner,
      )
      assert.strictEqual(report.status, 200, report.text)
      const items = (report.json as Json).items as Array<Json>
      assert.deepStrictEqual(
        items.map((item) => [item.externalTransferId, item.paymentPlanId]),
        [[transferId, paymentPlanId]],
      )
      const refund = yield* call("POST", `/Transaction/${transferId}/Refund`, w.partner, {
        amount: { value: 5, currencyCode: "USD" },
      })
      assert.strictEqual(refund.status, 200, refund.text)
    }),
  )

  it.effect(
    "a failed instalment (an amount ending in .13) shows Failed and counts in failedCount; the plan goes on",
    () =>
      Effect.gen(function* () {
        const w = yield* world
        const { paymentPlanId, transferId } = yield* collectedFirst(w, 10.13)
        yield* server.run(Payments.failTransfer(Ids.TransferId.make(transferId), "R01", "insufficient funds"))
        const plan = (yield* call("GET", `/PaymentPlan/${paymentPlanId}`, w.partner)).json as Json
        const [instalment] = plan.instalments as Array<Json>
        assert.deepStrictEqual([instalment?.status, instalment?.returnCode], ["Failed", "R01"])
        assert.deepStrictEqual([plan.status, plan.failedCount, plan.collectedCount], ["Active", 1, 1])
        assert.isString(plan.nextDueDate)
        assert.notStrictEqual(plan.nextDueDate, today())
      }),
  )
})

describe("a plan's response Schema", () => {
  const document: Record<string, unknown> = PaymentPlansProjection.PaymentPlanDocument.fields
  const response: Record<string, unknown> = PaymentPlanApi.PaymentPlanResponse.fields

  it("has the read model document's fields in its order, less partnerId, nextIndex and updatedAt", () => {
    const hidden = ["partnerId", "nextIndex", "updatedAt"]
    assert.deepStrictEqual(
      Object.keys(response),
      Object.keys(document).filter((name) => !hidden.includes(name)),
    )
  })

  it("takes every field the wire does not refine from the domain's Schema (the cancellation reasons among them)", () => {
    // wire form of the amount, integers for the counts, descriptions, the metadata always answered ({} when none)
    const refined = [
      "metadata",
      "amount",
      "recurrenceInterval",
      "numberOfPayments",
      "nextDueDate",
      "collectedCount",
      "settledCount",
      "failedCount",
      "instalments",
    ]
    for (const name of Object.keys(response).filter((name) => !refined.includes(name)))
      assert.strictEqual(response[name], document[name], name)
    assert.strictEqual(PaymentPlanApi.CreatePaymentPlanResponse.fields.status, document.status)
  })
})
