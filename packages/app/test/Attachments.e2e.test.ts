/**
 * Payment attachments through the running sandbox service: a payment request
 * whose attachmentUrl names a local HTTP server gets its PDF downloaded and
 * stored (sha256 and bytes as served, downloadable by the partner); a document
 * of another type ends Failed with its reason while the create call succeeded.
 */
import { createHash } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { type Json, on, send } from "./Requests.ts"
import { companyBody, eventually, killAll, type RunningService, startService } from "./support.ts"

const clientId = "attachments-client"
const clientSecret = "attachments-secret-0123456789"
const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-attachments-"))
const pdf = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.from(Array.from({ length: 2048 }, (_, i) => i % 256))])
let service: RunningService
let documents: http.Server
let documentsUrl: string

beforeAll(async () => {
  documents = http.createServer((request, response) => {
    if (request.url === "/invoice.pdf") response.writeHead(200, { "content-type": "application/pdf" }).end(pdf)
    else response.writeHead(200, { "content-type": "text/html" }).end("<html></html>")
  })
  await new Promise<void>((ready) => documents.listen(0, "127.0.0.1", ready))
  documentsUrl = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`
  service = await startService({
    PORT: "0",
    PARTNERPAY_DATA_DIR: dataDir,
    PARTNERPAY_KYB_DELAY_MS: "200",
    PARTNERPAY_SANDBOX_CLIENT_ID: clientId,
    PARTNERPAY_SANDBOX_CLIENT_SECRET: clientSecret,
  })
}, 60_000)

afterAll(() => {
  killAll()
  documents.close()
  rmSync(dataDir, { recursive: true, force: true })
})

const { call, ok, verifiedCompany } = on(() => service.url)

/** Polls GET /Payment/{id} until its attachment is no longer Pending. */
const settled = (id: string, token: string) => {
  let last: Json
  let pending = false
  return eventually(() => {
    if (!pending) {
      pending = true
      void ok("GET", `/Payment/${id}`, token).then((body) => {
        last = body
        pending = false
      })
    }
    const attachment = last?.attachments?.[0]
    return attachment !== undefined && attachment.status !== "Pending" ? attachment : undefined
  }, 20_000)
}

describe("payment attachments in the sandbox service", () => {
  it("downloads and keeps the PDF; another type ends Failed with its reason", { timeout: 60_000 }, async () => {
    const token = (await ok("POST", "/auth/token", undefined, { ClientId: clientId, ClientSecret: clientSecret }))
      .AccessToken as string
    const company = { companyId: await verifiedCompany(token, companyBody({ companyReferenceId: "att-001" })) }
    const dueDate = (await ok("GET", "/Sandbox/Clock", token)).now.slice(0, 10)
    // The payer is one of the partner's customers (the first OTP login registers them).
    const phoneNumber = "+14155550190"
    await ok("POST", "/Login/SendOtp", token, { phoneNumber })
    const payer = await ok("PUT", "/Login/CheckOtp", token, { phoneNumber, code: "123456" })
    const create = (attachmentUrl: string) =>
      ok("POST", "/Payment/Create", token, {
        companyId: company.companyId,
        payerRegistrationId: payer.registrationId,
        amount: { value: 10, currencyCode: "USD" },
        description: "Invoice with a document",
        dueDate,
        attachmentUrl,
      })
    const good = await create(`${documentsUrl}/invoice.pdf`)
    const wrong = await create(`${documentsUrl}/page.html`)
    assert.strictEqual(good.status, "Pending")
    assert.strictEqual(wrong.status, "Pending")

    const stored = await settled(good.paymentRequestId, token)
    assert.deepStrictEqual(stored, {
      id: stored.id,
      name: "invoice.pdf",
      contentType: "application/pdf",
      sizeBytes: pdf.byteLength,
      sha256: createHash("sha256").update(pdf).digest("hex"),
      status: "Stored",
    })
    const download = await send(`${service.url}/Payment/${good.paymentRequestId}/Attachments/${stored.id}`, "GET", {
      token,
    })
    assert.strictEqual(download.status, 200)
    assert.strictEqual(download.headers.get("content-type"), "application/pdf")
    assert.isTrue(Buffer.from(await download.arrayBuffer()).equals(pdf))

    const failed = await settled(wrong.paymentRequestId, token)
    assert.strictEqual(failed.status, "Failed")
    assert.include(failed.failureReason, "content type text/html is not accepted")
    const none = await call("GET", `/Payment/${wrong.paymentRequestId}/Attachments/${failed.id}`, token)
    assert.strictEqual(none.status, 404)
  })
})
