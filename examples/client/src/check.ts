/**
 * The client check's program, run by ../run.ts against the real service with the packed
 * @partnerpay/client: a partner token, a company registered and its status read, a payment
 * request POST whose first answer is lost (the client retries with the same Idempotency-Key and
 * gets the same answer, replayed: one payment request), the company's history paged through,
 * and the KYB webhook the service delivered here verified with `verifyWebhook`.
 *
 * Handshake with run.ts: this program starts its webhook receiver and prints
 * `receiver <url>`; run.ts starts the service with that webhook URL and writes
 * `service <url>` to this program's standard input. Each check prints one `ok ...` line.
 */
import { strict as assert } from "node:assert"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { createInterface } from "node:readline"
import { createPartnerpayClient, PartnerpayError, unwrap, verifyWebhook } from "@partnerpay/client"

interface Delivery {
  readonly body: Buffer
  readonly headers: IncomingHttpHeaders
}

const deliveries: Array<Delivery> = []
const receiver = createServer((request, response) => {
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => chunks.push(chunk))
  request.on("end", () => {
    deliveries.push({ body: Buffer.concat(chunks), headers: request.headers })
    response.writeHead(204).end()
  })
})
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
console.log(`receiver http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`)

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]()
const handshake = (await lines.next()).value as string | undefined
const baseUrl = /^service (\S+)$/.exec(handshake ?? "")?.[1]
if (baseUrl === undefined) throw new Error(`expected "service <url>" on stdin, got ${handshake}`)

const credentials = { clientId: process.env.CLIENT_ID ?? "", clientSecret: process.env.CLIENT_SECRET ?? "" }
const run = `${Date.now().toString(36)}-${process.pid}`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const eventually = async <T>(read: () => Promise<T | undefined>, what: string): Promise<T> => {
  for (let tries = 0; tries < 200; tries++) {
    const value = await read()
    if (value !== undefined) return value
    await sleep(100)
  }
  throw new Error(`${what}: not within 20 s`)
}

// A token, from the client credentials.
const partnerpay = createPartnerpayClient({ baseUrl, ...credentials })
const token = await partnerpay.accessToken()
assert.equal(token.split(".").length, 3)
const refused = await createPartnerpayClient({ baseUrl, clientId: credentials.clientId, clientSecret: "wrong" })
  .accessToken()
  .catch((error: unknown) => error)
assert.ok(refused instanceof PartnerpayError && refused.status === 401 && refused.code === "UNAUTHORIZED")
console.log("ok token: obtained with the client credentials; wrong credentials are a PartnerpayError 401")

// A company, and its status.
const { companyId } = unwrap(
  await partnerpay.POST("/Company/Create", {
    body: {
      companyReferenceId: `client-check-${run}`,
      name: "Client Check Coffee",
      emailAddress: "hello@check.example.com",
      taxId: "12-3456789",
      taxIdType: "EIN",
      streetNumberAndName: "100 Main St",
      zipCode: "94105",
      city: "San Francisco",
      state: "CA",
      contactNumber: "+14155550199",
      companyType: "ForProfit",
      owner: {
        name: "Ada Lovelace",
        emailAddress: "ada@check.example.com",
        contactNumber: "(415) 555-0100",
        title: "CEO",
        documentNumber: "D7654321",
        documentType: "DriversLicense",
        ssn: "987-65-4321",
        dateOfBirth: "1980-12-10",
        streetNumberAndName: "1 Analytical Way",
        zipCode: "94105",
        city: "San Francisco",
        state: "CA",
      },
      employees: [],
      locations: [],
    },
  }),
)
const readStatus = async () =>
  unwrap(await partnerpay.GET("/company/status", { params: { query: { companyId } } })).Status
assert.ok(["Unverified", "Verified"].includes(await readStatus()))
await eventually(async () => ((await readStatus()) === "Verified" ? true : undefined), "company Verified")
console.log("ok company: created, status read, Verified by the sandbox KYB")

// A payer, for payment requests.
unwrap(await partnerpay.POST("/Login/SendOtp", { body: { phoneNumber: "+14155550142" } }))
const login = unwrap(await partnerpay.PUT("/Login/CheckOtp", { body: { phoneNumber: "+14155550142", code: "123456" } }))
const kyc = unwrap(
  await partnerpay.withCustomerToken(login.accessToken).POST("/Verification/StartKyc", { body: { deviceId: "check" } }),
)
assert.equal(typeof kyc.tokenId, "string")
const today = ((await (await partnerpay.fetch("/Sandbox/Clock")).json()) as { now: string }).now.slice(0, 10)
const paymentRequest = (description: string) => ({
  body: {
    companyId,
    payerRegistrationId: login.registrationId,
    amount: { value: 12.5, currencyCode: "USD" as const },
    description,
    dueDate: today,
  },
})

// An idempotent POST retried: the service commits the first attempt, its answer is lost on the way
// back (a network error), the client sends the request again with the same Idempotency-Key and gets
// the first answer, replayed.
const attempts: Array<{ key: string | null; replayed: string | null; body: string }> = []
let lose = true
const flaky = createPartnerpayClient({
  baseUrl,
  ...credentials,
  fetch: async (request) => {
    const response = await fetch(request)
    if (new URL(request.url).pathname !== "/Payment/Create") return response
    attempts.push({
      key: request.headers.get("idempotency-key"),
      replayed: response.headers.get("idempotent-replayed"),
      body: await response.clone().text(),
    })
    if (!lose) return response
    lose = false
    throw new TypeError("fetch failed: the answer was lost")
  },
})
const created = unwrap(await flaky.POST("/Payment/Create", paymentRequest("Retried once")))
assert.equal(attempts.length, 2)
assert.ok(attempts[0]!.key !== null && attempts[0]!.key === attempts[1]!.key, "the same key on the retry")
assert.equal(attempts[0]!.replayed, null)
assert.equal(attempts[1]!.replayed, "true")
assert.equal(attempts[1]!.body, attempts[0]!.body)
assert.equal(JSON.parse(attempts[0]!.body).paymentRequestId, created.paymentRequestId)
console.log("ok idempotency: a POST whose answer was lost, retried with the same key, replays the first answer")

// History, page after page.
const ids = [created.paymentRequestId]
for (const n of [1, 2, 3, 4])
  ids.push(unwrap(await partnerpay.POST("/Payment/Create", paymentRequest(`Invoice ${n}`))).paymentRequestId)
const paged: Array<string> = []
const pages: Array<string | null> = []
const counting = createPartnerpayClient({
  baseUrl,
  ...credentials,
  fetch: (request) => {
    const url = new URL(request.url)
    if (url.pathname === "/Payment/History") pages.push(url.searchParams.get("startingAfter"))
    return fetch(request)
  },
})
for await (const request of counting.paginate("/Payment/History", { companyId, limit: 2 })) {
  paged.push(request.paymentRequestId)
}
assert.deepEqual([...paged].sort(), [...ids].sort(), "every payment request of the company, each once")
assert.equal(pages.length, 3)
assert.equal(pages[0], null)
console.log(`ok pagination: ${paged.length} payment requests in ${pages.length} pages of 2`)

// The KYB webhook, delivered to this program by the service, verified.
const { signingSecret } = unwrap(await partnerpay.GET("/Webhooks/Endpoint"))
const delivery = await eventually(async () => {
  for (const candidate of deliveries) {
    const payload = JSON.parse(candidate.body.toString("utf8"))
    if (payload.Event === "COMPANY_VERIFICATION_STATUS_CHANGED" && payload.Data.CompanyId === companyId)
      return candidate
  }
  return undefined
}, "the company's KYB webhook")
const verdict = await verifyWebhook(delivery.body, delivery.headers, signingSecret)
assert.ok(verdict.ok, JSON.stringify(verdict))
assert.ok(verdict.payload.Event === "COMPANY_VERIFICATION_STATUS_CHANGED" && verdict.payload.Data.Status === "Verified")
assert.equal(verdict.eventId, delivery.headers["x-partnerpay-event-id"])
const tampered = Buffer.from(delivery.body.toString("utf8").replace("Verified", "Rejected"))
assert.deepEqual(await verifyWebhook(tampered, delivery.headers, signingSecret), {
  ok: false,
  reason: "signature mismatch",
})
assert.deepEqual(await verifyWebhook(delivery.body, delivery.headers, "whsec_wrong"), {
  ok: false,
  reason: "signature mismatch",
})
console.log("ok webhook: the real KYB delivery verifies with the endpoint's secret; a changed body or secret does not")

receiver.close()
process.exit(0)
