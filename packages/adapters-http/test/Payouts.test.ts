/**
 * Balances and payouts through the HTTP interface: GET /Company/{companyId}/Balance
 * (pending, then available; amounts in wire form), GET /Payouts (by company and
 * status, paged), GET /Payouts/{payoutId} and its items (adding up to the
 * payout), the transfer naming the payout account's mask, tenancy (404) and
 * bad queries (400).
 */
import { assert, describe, it } from "@effect/vitest"
import { Companies, Ids, Payments, Payouts } from "@partnerpay/domain"
import { Fixtures } from "@partnerpay/domain/testing"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { bearer, otherPartnerId, partnerId, send } from "./fixtures.ts"
import { customerToken, makeSharedServer, partnerTokenFor, registerCompany } from "./partyFixtures.ts"

const { handler, run, dispose } = await makeSharedServer()
afterAll(dispose)

const companyId = Ids.CompanyId.make("c1c0c0c0-0000-4000-8000-000000000001")
const otherCompanyId = Ids.CompanyId.make("c1c0c0c0-0000-4000-8000-000000000002")
const payer = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-0000000001a1")
const bankAccountId = Ids.BankAccountId.make("8b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5b69")

await Effect.runPromise(
  run(
    Effect.gen(function* () {
      yield* registerCompany(partnerId, companyId, "Acme Coffee")
      yield* registerCompany(otherPartnerId, otherCompanyId, "Other Co")
      yield* Companies.completeKyb(companyId, "Verified")
      yield* Fixtures.registerVerifiedCustomer(partnerId, payer, bankAccountId)
    }),
  ),
)

const partner = await Effect.runPromise(partnerTokenFor(partnerId))
const otherPartner = await Effect.runPromise(partnerTokenFor(otherPartnerId))
const payerToken = await Effect.runPromise(customerToken(partnerId, payer))

const json = (method: string, token: string, body?: unknown): RequestInit => ({
  method,
  headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
})

const get = (path: string, token = partner) => send(handler, path, bearer(token))

/** A payment of `value` USD accepted by the payer; its transfer id. */
const acceptedPayment = (value: number) =>
  Effect.gen(function* () {
    const created = yield* send(
      handler,
      "/Payment/Create",
      json("POST", partner, {
        companyId,
        payerRegistrationId: payer,
        amount: { value, currencyCode: "USD" },
        description: "Invoice",
        dueDate: "2099-01-01",
      }),
    )
    assert.strictEqual(created.status, 200, created.text)
    const id = (created.json as { paymentRequestId: string }).paymentRequestId
    const accepted = yield* send(
      handler,
      `/Transaction/PaymentRequest/${id}/Accept`,
      json("POST", payerToken, { bankAccountId, acceptDebitAuth: false, transferDescription: "" }),
    )
    assert.strictEqual(accepted.status, 200, accepted.text)
    const doc = yield* get(`/Payment/${id}`)
    return Ids.TransferId.make((doc.json as { transferId: string }).transferId)
  })

const amountOf = (value: number) => ({
  value,
  currencyCode: { value: "USD", displayName: "US Dollar", cultureName: "en-US" },
})

describe("a company's balance and payouts over HTTP", () => {
  it.effect("pending, then available, then paid out with its items", () =>
    Effect.gen(function* () {
      const put = yield* send(
        handler,
        `/Company/${companyId}/PayoutAccount`,
        json("PUT", partner, {
          accountHolderName: "Acme Coffee LLC",
          routingNumber: "011000015",
          accountNumber: "000123454321",
          accountType: "Checking",
        }),
      )
      assert.strictEqual(put.status, 200, put.text)
      const start = (yield* get(`/Company/${companyId}/Balance`)).json as { available: { value: number } }
      const first = yield* acceptedPayment(40)
      const second = yield* acceptedPayment(2.5)
      const pending = yield* get(`/Company/${companyId}/Balance`)
      assert.strictEqual(pending.status, 200, pending.text)
      assert.deepStrictEqual((pending.json as { pending: unknown }).pending, amountOf(42.5))
      const transfer = yield* get(`/Transaction/${first}`)
      assert.strictEqual((transfer.json as { recipientAccount: string }).recipientAccount, "****4321")

      yield* run(Payments.settleTransfer(first))
      yield* run(Payments.settleTransfer(second))
      const available = (yield* get(`/Company/${companyId}/Balance`)).json
      assert.deepStrictEqual(available, { available: amountOf(start.available.value + 42.5), pending: amountOf(0) })

      const created = yield* run(Payouts.payOutDue(companyId, { minimumMinorUnits: 100, intervalMillis: 0 }))
      assert.strictEqual(created.length, 1)
      const payoutId = created[0]!.payoutId
      const one = yield* get(`/Payouts/${payoutId}`)
      assert.strictEqual(one.status, 200, one.text)
      const payout = one.json as Record<string, unknown>
      assert.strictEqual(payout.status, "Pending")
      assert.strictEqual(payout.companyId, companyId)
      assert.deepStrictEqual(payout.amount, amountOf(start.available.value + 42.5))
      assert.match(payout.arrivalDate as string, /^\d{4}-\d{2}-\d{2}$/)
      assert.includeMembers(Object.keys(payout), ["payoutId", "createdAt", "itemCount", "status"])

      const items = yield* get(`/Payouts/${payoutId}/Items?limit=1`)
      assert.strictEqual(items.status, 200, items.text)
      const page = items.json as {
        data: ReadonlyArray<{ itemId: string; type: string; transferId: string }>
        hasMore: boolean
      }
      assert.strictEqual(page.data.length, 1)
      assert.isTrue(page.hasMore)
      const rest = (yield* get(`/Payouts/${payoutId}/Items?limit=100&startingAfter=${page.data[0]!.itemId}`)).json as {
        data: ReadonlyArray<{ type: string; transferId: string; amount: { value: number } }>
        hasMore: boolean
      }
      const all = [...page.data, ...rest.data] as ReadonlyArray<{
        type: string
        transferId: string
        amount: { value: number }
      }>
      assert.strictEqual(all.length, payout.itemCount)
      assert.includeMembers(
        all.map((item) => item.transferId),
        [first, second],
      )
      assert.isTrue(all.every((item) => item.type === "payment"))
      const sum = all.reduce((total, item) => total + Math.round(item.amount.value * 100), 0)
      assert.strictEqual(sum, Math.round((payout.amount as { value: number }).value * 100))
      assert.deepStrictEqual(
        ((yield* get(`/Company/${companyId}/Balance`)).json as { available: unknown }).available,
        amountOf(0),
      )

      const listed = (yield* get(`/Payouts?companyId=${companyId}&status=Pending&limit=5`)).json as {
        data: ReadonlyArray<{ payoutId: string; itemCount: number }>
      }
      assert.deepStrictEqual(
        listed.data.map((p) => p.payoutId),
        [payoutId],
      )
      const paid = (yield* get(`/Payouts?companyId=${companyId}&status=Paid`)).json as { data: ReadonlyArray<unknown> }
      assert.deepStrictEqual(paid.data, [])
    }),
  )

  it.effect("payouts are listed newest first, a page at a time", () =>
    Effect.gen(function* () {
      for (const value of [3, 4]) {
        const transferId = yield* acceptedPayment(value)
        yield* run(Payments.settleTransfer(transferId))
        const created = yield* run(Payouts.payOutDue(companyId, { minimumMinorUnits: 100, intervalMillis: 0 }))
        assert.strictEqual(created.length, 1)
      }
      const all = (yield* get(`/Payouts?companyId=${companyId}&limit=100`)).json as {
        data: ReadonlyArray<{ payoutId: string; createdAt: string }>
      }
      assert.isAtLeast(all.data.length, 2)
      const first = (yield* get(`/Payouts?companyId=${companyId}&limit=1`)).json as {
        data: ReadonlyArray<{ payoutId: string }>
        hasMore: boolean
      }
      assert.deepStrictEqual(
        first.data.map((p) => p.payoutId),
        [all.data[0]!.payoutId],
      )
      assert.isTrue(first.hasMore)
      const second = (yield* get(`/Payouts?companyId=${companyId}&limit=1&startingAfter=${first.data[0]!.payoutId}`))
        .json as { data: ReadonlyArray<{ payoutId: string }> }
      assert.deepStrictEqual(
        second.data.map((p) => p.payoutId),
        [all.data[1]!.payoutId],
      )
      assert.isTrue(all.data[0]!.createdAt >= all.data[1]!.createdAt)
    }),
  )

  it.effect("another partner's company, payouts and items are 404 like missing ones", () =>
    Effect.gen(function* () {
      const list = (yield* get("/Payouts?limit=100")).json as { data: ReadonlyArray<{ payoutId: string }> }
      const payoutId = list.data[0]?.payoutId ?? "4b6d8f0a-2c4e-4a6c-8e0a-2c4e6a8c0e2a"
      assert.strictEqual((yield* get(`/Company/${companyId}/Balance`, otherPartner)).status, 404)
      assert.strictEqual((yield* get(`/Payouts/${payoutId}`, otherPartner)).status, 404)
      assert.strictEqual((yield* get(`/Payouts/${payoutId}/Items`, otherPartner)).status, 404)
      assert.strictEqual((yield* get(`/Payouts?companyId=${companyId}`, otherPartner)).status, 404)
      assert.strictEqual((yield* get("/Payouts/4b6d8f0a-2c4e-4a6c-8e0a-2c4e6a8c0e2a")).status, 404)
      assert.strictEqual((yield* get(`/Company/${companyId}/Balance`, payerToken)).status, 403)
    }),
  )

  it.effect("a bad status, limit, currency or id is a 400 naming it", () =>
    Effect.gen(function* () {
      for (const [path, field] of [
        ["/Payouts?status=Sent", "status"],
        ["/Payouts?limit=0", "limit"],
        [`/Company/${companyId}/Balance?currencyCode=XYZ`, "currencyCode"],
        ["/Payouts/not-a-uuid", "payoutId"],
      ] as const) {
        const r = yield* get(path)
        assert.strictEqual(r.status, 400, `${path}: ${r.text}`)
        assert.include(r.text, field)
      }
    }),
  )
})

describe("GET /Transaction/Report with the balance lines", () => {
  it.effect("gains the lines and their totals, and answers CSV to Accept: text/csv", () =>
    Effect.gen(function* () {
      const transferId = yield* acceptedPayment(17.25)
      yield* run(Payments.settleTransfer(transferId))
      const refund = yield* send(
        handler,
        `/Transaction/${transferId}/Refund`,
        json("POST", partner, { amount: { value: 2.25, currencyCode: "USD" } }),
      )
      assert.strictEqual(refund.status, 200, refund.text)
      const day = new Date().toISOString().slice(0, 10)
      const r = yield* get(`/Transaction/Report?from=${day}&to=${day}&companyId=${companyId}&limit=100`)
      assert.strictEqual(r.status, 200, r.text)
      const report = r.json as {
        lines: ReadonlyArray<{ type: string; transferId: string; amount: { value: number } }>
        lineTotals: ReadonlyArray<{ collected: { value: number }; refunded: { value: number }; net: { value: number } }>
      }
      const mine = report.lines.filter((line) => line.transferId === transferId)
      assert.sameDeepMembers(
        mine.map((line) => [line.type, line.amount.value]),
        [
          ["payment", 17.25],
          ["refund", -2.25],
        ],
      )
      const totals = report.lineTotals[0]!
      assert.strictEqual(
        Math.round(totals.net.value * 100),
        Math.round(totals.collected.value * 100) - Math.round(totals.refunded.value * 100),
      )

      const csv = yield* send(handler, `/Transaction/Report?from=${day}&to=${day}&companyId=${companyId}`, {
        headers: { authorization: `Bearer ${partner}`, accept: "text/csv" },
      })
      assert.strictEqual(csv.status, 200, csv.text)
      assert.match(csv.headers.get("content-type") ?? "", /^text\/csv/)
      const rows = csv.text.trimEnd().split("\r\n")
      assert.strictEqual(rows[0], "date,companyId,type,transferId,refundId,cardPaymentId,currencyCode,amount")
      assert.isTrue(rows.some((row) => row.includes(`,payment,${transferId},,,USD,17.25`)))
      assert.isTrue(rows.some((row) => row.includes(",refund,") && row.endsWith(",USD,-2.25")))
      // Every line of the window, one per row (the JSON page above held them all).
      assert.strictEqual(rows.length - 1, report.lines.length)
      const bad = yield* send(handler, `/Transaction/Report?from=${day}&to=2000-01-01`, {
        headers: { authorization: `Bearer ${partner}`, accept: "text/csv" },
      })
      assert.strictEqual(bad.status, 422)
    }),
  )
})
