/**
 * Payment requests and transfers through the HTTP interface: create, read,
 * history, cancel (partner); accept, reimbursement (the payer); read a
 * transfer, refund, report (partner). Exact field names, auth, validation,
 * tenancy (404) and state conflicts (409).
 */

import { assert, describe, it } from "@effect/vitest"
import { Attachments, Ids, Outbox, Payments } from "@partnerpay/domain"
import { Fixtures } from "@partnerpay/domain/testing"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { bearer, otherPartnerId, partnerId, send } from "./fixtures.ts"
import {
  customerToken,
  makeSharedServer,
  partnerTokenFor,
  registerCompany,
  registerCustomer,
  registerVerifiedCompany,
} from "./partyFixtures.ts"

const { handler, run, dispose } = await makeSharedServer()
afterAll(dispose)

const companyId = Ids.CompanyId.make("c0c0c0c0-0000-4000-8000-000000000001")
const otherCompanyId = Ids.CompanyId.make("c0c0c0c0-0000-4000-8000-000000000002")
const payer = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-0000000000a1")
const stranger = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-0000000000a2")
const bankAccountId = "8b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a69"
const providerId = "5a5a5a5a-0000-4000-8000-000000000001"

/** A verified customer of the partner with the checking account ****6789 linked: only a Verified payer pays. */
const linkedCustomer = (registrationId: Ids.RegistrationId) =>
  Fixtures.registerVerifiedCustomer(partnerId, registrationId, Ids.BankAccountId.make(bankAccountId))

await Effect.runPromise(
  run(
    Effect.gen(function* () {
      yield* registerVerifiedCompany(partnerId, companyId, "Acme Coffee")
      yield* registerVerifiedCompany(otherPartnerId, otherCompanyId, "Other Co")
      yield* linkedCustomer(payer)
      yield* linkedCustomer(stranger)
    }),
  ),
)

const partner = await Effect.runPromise(partnerTokenFor(partnerId))
const otherPartner = await Effect.runPromise(partnerTokenFor(otherPartnerId))
const payerToken = await Effect.runPromise(customerToken(partnerId, payer))
const strangerToken = await Effect.runPromise(customerToken(partnerId, stranger))

const json = (method: string, token: string | undefined, body?: unknown): RequestInit => ({
  method,
  headers: {
    "content-type": "application/json",
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
})

const createBody = (overrides: Record<string, unknown> = {}) => ({
  companyId,
  payerRegistrationId: payer,
  amount: { value: 125.5, currencyCode: "USD" },
  description: "Invoice 42",
  dueDate: "2099-01-01",
  attachmentUrl: "https://files.example.com/invoice-42.pdf",
  ...overrides,
})

const createRequest = Effect.gen(function* () {
  const r = yield* send(handler, "/Payment/Create", json("POST", partner, createBody()))
  assert.strictEqual(r.status, 200, r.text)
  return (r.json as { paymentRequestId: string }).paymentRequestId
})

const acceptRequest = (id: string, token = payerToken) =>
  send(
    handler,
    `/Transaction/PaymentRequest/${id}/Accept`,
    json("POST", token, { bankAccountId, acceptDebitAuth: false, transferDescription: "" }),
  )

const acceptedTransfer = Effect.gen(function* () {
  const id = yield* createRequest
  const r = yield* acceptRequest(id)
  assert.strictEqual(r.status, 200, r.text)
  const doc = yield* send(handler, `/Payment/${id}`, bearer(partner))
  return { id, transferId: (doc.json as { transferId: string }).transferId }
})

const settledTransfer = Effect.gen(function* () {
  const ids = yield* acceptedTransfer
  yield* run(Payments.settleTransfer(Ids.TransferId.make(ids.transferId)))
  return ids
})

describe("POST /Payment/Create", () => {
  it.effect("answers paymentRequestId and Pending", () =>
    Effect.gen(function* () {
      const r = yield* send(handler, "/Payment/Create", json("POST", partner, createBody()))
      assert.strictEqual(r.status, 200)
      const body = r.json as Record<string, unknown>
      assert.deepStrictEqual(Object.keys(body).sort(), ["paymentRequestId", "status"])
      assert.strictEqual(body.status, "Pending")
    }),
  )

  it.effect("needs a token (401) of a partner (403)", () =>
    Effect.gen(function* () {
      assert.strictEqual((yield* send(handler, "/Payment/Create", json("POST", undefined, createBody()))).status, 401)
      assert.strictEqual((yield* send(handler, "/Payment/Create", json("POST", payerToken, createBody()))).status, 403)
    }),
  )

  it.effect("autopay and a debit authorization together are 422 naming both flags", () =>
    Effect.gen(function* () {
      const r = yield* send(
        handler,
        "/Payment/Create",
        json(
          "POST",
          partner,
          createBody({
            enableAutoPay: true,
            autoPayLimit: { value: 100, currencyCode: "USD" },
            enableDebitAuth: true,
            debitAuthLimit: { value: 100, currencyCode: "USD" },
          }),
        ),
      )
      assert.strictEqual(r.status, 422)
      const fields = (r.json as { errors: Array<{ field: string }> }).errors.map((e) => e.field)
      assert.include(fields, "enableAutoPay")
      assert.include(fields, "enableDebitAuth")
    }),
  )

  it.effect("a malformed body is 400; another partner's company is 404", () =>
    Effect.gen(function* () {
      const bad = yield* send(handler, "/Payment/Create", json("POST", partner, createBody({ dueDate: "01/02/2099" })))
      assert.strictEqual(bad.status, 400)
      const other = yield* send(
        handler,
        "/Payment/Create",
        json("POST", partner, createBody({ companyId: otherCompanyId })),
      )
      assert.strictEqual(other.status, 404)
    }),
  )

  it.effect(
    "another partner's customer as payer gets the same 404 as an unknown registration id; nothing is created",
    () =>
      Effect.gen(function* () {
        const foreign = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-0000000000a3")
        const unknown = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-0000000000a4")
        yield* run(registerCustomer(otherPartnerId, foreign))
        const answers = []
        for (const payerRegistrationId of [foreign, unknown]) {
          const r = yield* send(handler, "/Payment/Create", json("POST", partner, createBody({ payerRegistrationId })))
          const { instance: _instance, ...problem } = r.json as { instance: string }
          answers.push({ status: r.status, contentType: r.headers.get("content-type"), problem })
        }
        assert.deepStrictEqual(answers[0], answers[1])
        assert.deepStrictEqual(answers[0], {
          status: 404,
          contentType: "application/problem+json",
          problem: {
            type: "/docs/problems/not-found",
            title: "Not Found",
            status: 404,
            detail: "Customer not found.",
            code: "NOT_FOUND",
          },
        })
        for (const payerRegistrationId of [foreign, unknown]) {
          const history = yield* send(
            handler,
            `/Payment/History?payerRegistrationId=${payerRegistrationId}`,
            bearer(partner),
          )
          assert.deepStrictEqual((history.json as { data: Array<unknown> }).data, [])
        }
      }),
  )
})

describe("who may collect", () => {
  const unverifiedCompany = Ids.CompanyId.make("c0c0c0c0-0000-4000-8000-000000000003")
  const pendingPayer = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-0000000000a5")

  it.effect("a company whose KYB has not completed is a 422 COMPANY_NOT_VERIFIED problem; nothing is created", () =>
    Effect.gen(function* () {
      yield* run(registerCompany(partnerId, unverifiedCompany, "Slow Co"))
      const r = yield* send(
        handler,
        "/Payment/Create",
        json("POST", partner, createBody({ companyId: unverifiedCompany })),
      )
      assert.strictEqual(r.status, 422, r.text)
      assert.strictEqual(r.headers.get("content-type"), "application/problem+json")
      const problem = r.json as { type: string; code: string }
      assert.deepStrictEqual([problem.type, problem.code], ["/docs/problems/rule-violated", "COMPANY_NOT_VERIFIED"])
      const history = yield* send(handler, `/Payment/History?companyId=${unverifiedCompany}`, bearer(partner))
      assert.deepStrictEqual((history.json as { data: Array<unknown> }).data, [])
    }),
  )

  it.effect(
    "a payer whose KYC is not Verified cannot accept: 422 CUSTOMER_NOT_VERIFIED, the request stays Pending",
    () =>
      Effect.gen(function* () {
        yield* run(
          Effect.gen(function* () {
            yield* registerCustomer(partnerId, pendingPayer)
            yield* Fixtures.linkBankAccount(pendingPayer, Ids.BankAccountId.make(bankAccountId))
          }),
        )
        const r = yield* send(
          handler,
          "/Payment/Create",
          json("POST", partner, createBody({ payerRegistrationId: pendingPayer })),
        )
        const id = (r.json as { paymentRequestId: string }).paymentRequestId
        const refused = yield* acceptRequest(id, yield* customerToken(partnerId, pendingPayer))
        assert.strictEqual(refused.status, 422, refused.text)
        assert.strictEqual((refused.json as { code: string }).code, "CUSTOMER_NOT_VERIFIED")
        const doc = yield* send(handler, `/Payment/${id}`, bearer(partner))
        assert.strictEqual((doc.json as { status: string }).status, "Pending")
      }),
  )
})

describe("a required field left out", () => {
  it.effect("is a 400 naming it as required, in the service's words (not the library's)", () =>
    Effect.gen(function* () {
      const { description: _description, ...body } = createBody()
      const r = yield* send(handler, "/Payment/Create", json("POST", partner, body))
      assert.strictEqual(r.status, 400, r.text)
      assert.deepStrictEqual((r.json as { errors: unknown }).errors, [{ field: "description", message: "is required" }])
      assert.notInclude(r.text, "Missing key")
    }),
  )
})

describe("a payment request's metadata", () => {
  it.effect("set on create is answered by GET /Payment/{id} and the history; none is {}", () =>
    Effect.gen(function* () {
      const metadata = { orderId: "ord_1042", "customer ref": "Café ☕" }
      const created = yield* send(handler, "/Payment/Create", json("POST", partner, createBody({ metadata })))
      assert.strictEqual(created.status, 200, created.text)
      const id = (created.json as { paymentRequestId: string }).paymentRequestId
      const read = yield* send(handler, `/Payment/${id}`, bearer(partner))
      assert.deepStrictEqual((read.json as { metadata: unknown }).metadata, metadata)
      const history = yield* send(handler, "/Payment/History?limit=100", bearer(partner))
      const listed = (history.json as { data: Array<{ paymentRequestId: string; metadata: unknown }> }).data
      assert.deepStrictEqual(listed.find((item) => item.paymentRequestId === id)?.metadata, metadata)
      const plain = yield* createRequest
      const plainRead = yield* send(handler, `/Payment/${plain}`, bearer(partner))
      assert.deepStrictEqual((plainRead.json as { metadata: unknown }).metadata, {})
    }),
  )

  it.effect("PUT /Payment/{id}/Metadata replaces it in any status; another partner's request is 404", () =>
    Effect.gen(function* () {
      const created = yield* send(
        handler,
        "/Payment/Create",
        json("POST", partner, createBody({ metadata: { orderId: "ord_1", keep: "no" } })),
      )
      const id = (created.json as { paymentRequestId: string }).paymentRequestId
      const put = (metadata: unknown, token = partner) =>
        send(handler, `/Payment/${id}/Metadata`, json("PUT", token, { metadata }))
      const replaced = yield* put({ orderId: "ord_2" })
      assert.strictEqual(replaced.status, 200, replaced.text)
      assert.deepStrictEqual(replaced.json, { metadata: { orderId: "ord_2" } })
      const read = yield* send(handler, `/Payment/${id}`, bearer(partner))
      assert.deepStrictEqual((read.json as { metadata: unknown }).metadata, { orderId: "ord_2" })
      // After the request was cancelled too.
      assert.strictEqual((yield* send(handler, `/Payment/${id}/Cancel`, json("PUT", partner))).status, 200)
      assert.strictEqual((yield* put({})).status, 200)
      const cleared = yield* send(handler, `/Payment/${id}`, bearer(partner))
      assert.deepStrictEqual((cleared.json as { metadata: unknown }).metadata, {})
      const bad = yield* put({ note: "v".repeat(501) })
      assert.strictEqual(bad.status, 400)
      assert.deepStrictEqual(
        (bad.json as { errors: Array<{ field: string }> }).errors.map((e) => e.field),
        ["metadata.note"],
      )
      assert.strictEqual((yield* put({ a: "b" }, otherPartner)).status, 404)
    }),
  )

  it.effect("a key over 40 characters, a value over 500, a non-string value or 51 keys is 400 naming it", () =>
    Effect.gen(function* () {
      const refused = (metadata: unknown) =>
        Effect.map(send(handler, "/Payment/Create", json("POST", partner, createBody({ metadata }))), (r) => {
          assert.strictEqual(r.status, 400, r.text)
          return (r.json as { errors: Array<{ field: string }> }).errors.map((e) => e.field)
        })
      const longKey = "k".repeat(41)
      assert.include(yield* refused({ [longKey]: "v" }), `metadata.${longKey}`)
      assert.deepStrictEqual(yield* refused({ note: "v".repeat(501) }), ["metadata.note"])
      assert.deepStrictEqual(yield* refused({ count: 3 }), ["metadata.count"])
      const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"]))
      assert.deepStrictEqual(yield* refused(many), ["metadata"])
    }),
  )
})

describe("GET /Payment/{paymentRequestId} and /Payment/History", () => {
  it.effect("reads the request with its amount, history and settings; another partner gets 404", () =>
    Effect.gen(function* () {
      const id = yield* createRequest
      const r = yield* send(handler, `/Payment/${id}`, bearer(partner))
      assert.strictEqual(r.status, 200)
      const body = r.json as Record<string, unknown>
      assert.deepStrictEqual(Object.keys(body).sort(), [
        "amount",
        "attachmentUrl",
        "attachments",
        "companyId",
        "createdAt",
        "description",
        "dueDate",
        "enableAutoPay",
        "enableDebitAuth",
        "metadata",
        "payerRegistrationId",
        "paymentRequestId",
        "refundedAmount",
        "status",
        "statusHistory",
      ])
      assert.deepStrictEqual(body.amount, {
        value: 125.5,
        currencyCode: { value: "USD", displayName: "US Dollar", cultureName: "en-US" },
      })
      assert.deepStrictEqual(
        (body.statusHistory as Array<{ status: string }>).map((s) => s.status),
        ["Pending"],
      )
      assert.strictEqual((yield* send(handler, `/Payment/${id}`, bearer(otherPartner))).status, 404)
      assert.strictEqual((yield* send(handler, `/Payment/${id}`)).status, 401)
    }),
  )

  it.effect("takes ids in upper case and the currency as responses show it, and answers in canonical form", () =>
    Effect.gen(function* () {
      const created = yield* send(
        handler,
        "/Payment/Create",
        json(
          "POST",
          partner,
          createBody({
            companyId: companyId.toUpperCase(),
            payerRegistrationId: payer.toUpperCase(),
            amount: { value: 125.5, currencyCode: { value: "USD", displayName: "US Dollar", cultureName: "en-US" } },
          }),
        ),
      )
      assert.strictEqual(created.status, 200, created.text)
      const id = (created.json as { paymentRequestId: string }).paymentRequestId
      const r = yield* send(handler, `/Payment/${id.toUpperCase()}`, bearer(partner))
      assert.strictEqual(r.status, 200, r.text)
      const body = r.json as Record<string, unknown>
      assert.strictEqual(body.paymentRequestId, id)
      assert.strictEqual(body.companyId, companyId)
      assert.strictEqual(body.payerRegistrationId, payer)
      assert.deepStrictEqual(body.amount, {
        value: 125.5,
        currencyCode: { value: "USD", displayName: "US Dollar", cultureName: "en-US" },
      })
    }),
  )

  it.effect("lists the attachment Pending until stored; its bytes go to the partner and the payer only", () =>
    Effect.gen(function* () {
      const id = yield* createRequest
      const r = yield* send(handler, `/Payment/${id}`, bearer(partner))
      const [attachment] = (r.json as { attachments: Array<Record<string, unknown>> }).attachments
      const attachmentId = String(attachment?.id)
      assert.deepStrictEqual(attachment, {
        id: attachmentId,
        name: "invoice-42.pdf",
        contentType: "application/pdf",
        status: "Pending",
      })
      const download = (token: string) => send(handler, `/Payment/${id}/Attachments/${attachmentId}`, bearer(token))
      // Not downloaded yet: nothing to read.
      assert.strictEqual((yield* download(partner)).status, 404)
      const bytes = new TextEncoder().encode("%PDF-1.7 invoice 42")
      yield* run(
        Effect.gen(function* () {
          const store = yield* Attachments.PaymentAttachments
          yield* store.recordStored(attachmentId, { contentType: "application/pdf", bytes, sha256: "ab".repeat(32) })
        }),
      )
      const listed = yield* send(handler, `/Payment/${id}`, bearer(partner))
      assert.deepStrictEqual((listed.json as { attachments: Array<unknown> }).attachments, [
        {
          id: attachmentId,
          name: "invoice-42.pdf",
          contentType: "application/pdf",
          sizeBytes: bytes.byteLength,
          sha256: "ab".repeat(32),
          status: "Stored",
        },
      ])
      for (const token of [partner, payerToken]) {
        const ok = yield* download(token)
        assert.strictEqual(ok.status, 200)
        assert.strictEqual(ok.headers.get("content-type"), "application/pdf")
        assert.strictEqual(ok.text, "%PDF-1.7 invoice 42")
      }
      // Another partner, a customer who is not the payer, another id: 404, as if nothing existed.
      assert.strictEqual((yield* download(otherPartner)).status, 404)
      assert.strictEqual((yield* download(strangerToken)).status, 404)
      const unknown = yield* send(handler, `/Payment/${id}/Attachments/${id}`, bearer(partner))
      assert.strictEqual(unknown.status, 404)
      assert.strictEqual((yield* send(handler, `/Payment/${id}/Attachments/${attachmentId}`)).status, 401)
    }),
  )

  it.effect("history pages by cursor and filters by status", () =>
    Effect.gen(function* () {
      const id = yield* createRequest
      yield* send(handler, `/Payment/${id}/Cancel`, json("PUT", partner))
      const page = yield* send(handler, "/Payment/History?status=Cancelled&limit=1", bearer(partner))
      assert.strictEqual(page.status, 200, page.text)
      const body = page.json as { data: Array<{ paymentRequestId: string; status: string }>; hasMore: boolean }
      assert.deepStrictEqual(Object.keys(body).sort(), ["data", "hasMore"])
      assert.strictEqual(body.data[0]?.status, "Cancelled")
      assert.strictEqual((yield* send(handler, "/Payment/History?limit=0", bearer(partner))).status, 400)
      const other = yield* send(handler, "/Payment/History", bearer(otherPartner))
      assert.strictEqual((other.json as { data: Array<unknown> }).data.length, 0)
    }),
  )
})

describe("PUT /Payment/{paymentRequestId}/Cancel", () => {
  it.effect("cancels with 200 and no body; twice is 200; after accept 409; another partner 404", () =>
    Effect.gen(function* () {
      const id = yield* createRequest
      const first = yield* send(handler, `/Payment/${id}/Cancel`, json("PUT", partner))
      assert.deepStrictEqual([first.status, first.text], [200, ""])
      assert.strictEqual((yield* send(handler, `/Payment/${id}/Cancel`, json("PUT", partner))).status, 200)
      assert.strictEqual((yield* acceptRequest(id)).status, 409)
      const { id: acceptedId } = yield* acceptedTransfer
      assert.strictEqual((yield* send(handler, `/Payment/${acceptedId}/Cancel`, json("PUT", partner))).status, 409)
      assert.strictEqual((yield* send(handler, `/Payment/${acceptedId}/Cancel`, json("PUT", otherPartner))).status, 404)
    }),
  )
})

describe("POST /Transaction/PaymentRequest/{paymentRequestId}/Accept", () => {
  it.effect("the payer accepts: status Accepted; a stranger gets 404; a partner token 403", () =>
    Effect.gen(function* () {
      const id = yield* createRequest
      assert.strictEqual((yield* acceptRequest(id, strangerToken)).status, 404)
      assert.strictEqual((yield* acceptRequest(id, partner)).status, 403)
      const r = yield* acceptRequest(id)
      assert.strictEqual(r.status, 200)
      assert.deepStrictEqual(r.json, { status: "Accepted" })
      const unlinked = yield* send(
        handler,
        `/Transaction/PaymentRequest/${yield* createRequest}/Accept`,
        json("POST", payerToken, {
          bankAccountId: "8b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a00",
          acceptDebitAuth: false,
          transferDescription: "",
        }),
      )
      assert.deepStrictEqual(
        [unlinked.status, (unlinked.json as { code: string }).code],
        [422, "BANK_ACCOUNT_NOT_LINKED"],
      )
    }),
  )
})

describe("GET /Transaction/{transferId}", () => {
  it.effect("answers spec 2.9 with masked accounts to the partner and the payer; others get 404", () =>
    Effect.gen(function* () {
      const { id, transferId } = yield* acceptedTransfer
      const r = yield* send(handler, `/Transaction/${transferId}`, bearer(partner))
      assert.strictEqual(r.status, 200, r.text)
      const body = r.json as Record<string, unknown>
      assert.deepStrictEqual(Object.keys(body).sort(), [
        "amount",
        "appliedForReimbursement",
        "attachments",
        "date",
        "externalTransferId",
        "fee",
        "isRefunded",
        "isReimbursed",
        "recipientAccount",
        "recipientAddress",
        "recipientName",
        "senderAccount",
        "senderName",
        "status",
      ])
      assert.strictEqual(body.senderAccount, "****6789")
      // No fee schedule set for the partner: no platform fee.
      assert.strictEqual(body.fee, null)
      assert.strictEqual(body.recipientName, "Acme Coffee")
      assert.deepStrictEqual(Object.keys(body.recipientAddress as object).sort(), [
        "apartmentNumber",
        "city",
        "country",
        "state",
        "streetNumberAndName",
        "zipCode",
      ])
      assert.deepStrictEqual(body.attachments, [
        {
          id: (body.attachments as Array<{ id: string }>)[0]!.id,
          name: "invoice-42.pdf",
          contentType: "application/pdf",
        },
      ])
      // The transfer names the payment request's document, by the same id.
      const request = yield* send(handler, `/Payment/${id}`, bearer(partner))
      assert.deepStrictEqual(
        (request.json as { attachments: Array<{ id: string }> }).attachments.map((attachment) => attachment.id),
        (body.attachments as Array<{ id: string }>).map((attachment) => attachment.id),
      )
      assert.strictEqual((yield* send(handler, `/Transaction/${transferId}`, bearer(payerToken))).status, 200)
      assert.strictEqual((yield* send(handler, `/Transaction/${transferId}`, bearer(strangerToken))).status, 404)
      assert.strictEqual((yield* send(handler, `/Transaction/${transferId}`, bearer(otherPartner))).status, 404)
      assert.strictEqual((yield* send(handler, "/Transaction/not-a-uuid", bearer(partner))).status, 400)
    }),
  )
})

describe("POST /Transaction/{transferId}/Refund", () => {
  it.effect("refunds a settled transfer; over-refund 422; before settlement 409", () =>
    Effect.gen(function* () {
      const pendingTransfer = yield* acceptedTransfer
      const early = yield* send(handler, `/Transaction/${pendingTransfer.transferId}/Refund`, json("POST", partner, {}))
      assert.strictEqual(early.status, 409)
      const { id, transferId } = yield* settledTransfer
      const r = yield* send(
        handler,
        `/Transaction/${transferId}/Refund`,
        json("POST", partner, { amount: { value: 25.5, currencyCode: "USD" }, reason: "damaged" }),
      )
      assert.strictEqual(r.status, 200, r.text)
      const body = r.json as Record<string, unknown>
      assert.deepStrictEqual(Object.keys(body).sort(), ["amount", "refundId", "refundedAmount", "status"])
      // The refund moves money: Pending until its credit completes (the money-movement workers).
      assert.strictEqual(body.status, "Pending")
      assert.strictEqual((body.amount as { value: number }).value, 25.5)
      assert.strictEqual((body.refundedAmount as { value: number }).value, 0)
      const over = yield* send(
        handler,
        `/Transaction/${transferId}/Refund`,
        json("POST", partner, { amount: { value: 500, currencyCode: "USD" } }),
      )
      assert.strictEqual(over.status, 422)
      // The pending refund holds its amount: 100 of the 125.50 are left.
      const rest = yield* send(
        handler,
        `/Transaction/${transferId}/Refund`,
        json("POST", partner, { amount: { value: 100.01, currencyCode: "USD" } }),
      )
      assert.strictEqual(rest.status, 422)
      assert.strictEqual(
        (yield* send(handler, `/Transaction/${transferId}/Refund`, json("POST", otherPartner, {}))).status,
        404,
      )
      assert.strictEqual(
        (yield* send(handler, `/Transaction/${transferId}/Refund`, json("POST", payerToken, {}))).status,
        403,
      )
      const doc = yield* send(handler, `/Payment/${id}`, bearer(partner))
      assert.deepStrictEqual(
        (doc.json as { statusHistory: Array<{ status: string }> }).statusHistory.map((s) => s.status),
        ["Pending", "Accepted", "Paid"],
      )
    }),
  )
})

describe("GET /Transaction/Report", () => {
  it.effect("totals settled transfers per currency; from and to are required", () =>
    Effect.gen(function* () {
      yield* settledTransfer
      const today = new Date().toISOString().slice(0, 10)
      const r = yield* send(handler, `/Transaction/Report?from=${today}&to=${today}`, bearer(partner))
      assert.strictEqual(r.status, 200, r.text)
      const body = r.json as { currencyTotals: Array<Record<string, unknown>>; items: Array<unknown>; hasMore: boolean }
      // The spec's fields, and the balance lines added by payouts (docs/api/payments.md).
      assert.deepStrictEqual(Object.keys(body).sort(), [
        "currencyTotals",
        "from",
        "hasMore",
        "items",
        "lineTotals",
        "lines",
        "linesHaveMore",
        "to",
      ])
      assert.deepStrictEqual(Object.keys(body.currencyTotals[0]!).sort(), [
        "count",
        "currencyCode",
        "netAmount",
        "refundedAmount",
        "totalAmount",
      ])
      assert.isAbove(body.items.length, 0)
      assert.strictEqual((yield* send(handler, "/Transaction/Report", bearer(partner))).status, 400)
      assert.strictEqual(
        (yield* send(handler, `/Transaction/Report?from=${today}&to=2000-01-01`, bearer(partner))).status,
        422,
      )
    }),
  )
})

describe("POST /Reimbursement/Create", () => {
  it.effect("the payer of a settled transfer gets a signing URL; others 404; unsettled 409", () =>
    Effect.gen(function* () {
      const { transferId } = yield* settledTransfer
      const r = yield* send(handler, "/Reimbursement/Create", json("POST", payerToken, { transferId, providerId }))
      assert.strictEqual(r.status, 200, r.text)
      assert.deepStrictEqual(r.json, {
        signingUrl: `https://sandbox.partnerpay.dev/sign/rb-${transferId}-${providerId}`,
      })
      assert.strictEqual(
        (yield* send(handler, "/Reimbursement/Create", json("POST", strangerToken, { transferId, providerId }))).status,
        404,
      )
      assert.strictEqual(
        (yield* send(handler, "/Reimbursement/Create", json("POST", partner, { transferId, providerId }))).status,
        403,
      )
      const pending = yield* acceptedTransfer
      const early = yield* send(
        handler,
        "/Reimbursement/Create",
        json("POST", payerToken, { transferId: pending.transferId, providerId }),
      )
      assert.strictEqual(early.status, 409)
    }),
  )
})

describe("PAYMENT_REQUEST_STATUS_CHANGED", () => {
  it.effect("create, accept, settle each put one notification in the outbox", () =>
    Effect.gen(function* () {
      const { id } = yield* settledTransfer
      const recorded = yield* run(Effect.map(Effect.service(Outbox.MemoryOutbox), (o) => o.recorded))
      const mine = recorded.filter((n) => n.data.PaymentRequestId === id)
      assert.deepStrictEqual(
        mine.map((n) => [n.eventType, n.partnerId, n.data.Status]),
        [
          ["PAYMENT_REQUEST_STATUS_CHANGED", partnerId, "Pending"],
          ["PAYMENT_REQUEST_STATUS_CHANGED", partnerId, "Accepted"],
          ["PAYMENT_REQUEST_STATUS_CHANGED", partnerId, "Paid"],
        ],
      )
      assert.strictEqual(mine[1]!.data.AccountNumberMasked, "****6789")
    }),
  )
})
