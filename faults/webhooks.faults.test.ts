/**
 * Scenario 6, webhook receiver failures: the receiver answers the first
 * attempt with 500, closes the connection on the second, never answers the
 * third (the dispatcher gives up after its 10 s timeout) and accepts the
 * fourth. Checks: attempt numbers 1..4 with one event id and one body, the
 * signature verifies on every attempt, the waits between attempts lie within
 * the README schedule (5 s, 10 s, 20 s nominal, jitter factor [0.5, 1)), and a
 * later notification of the same partner is held back until the failing one
 * is delivered.
 */
import { createHmac } from "node:crypto"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, assert, describe, it } from "@effect/vitest"
import {
  call,
  companyBody,
  freshDatabase,
  killAll,
  partnerToken,
  serviceEnv,
  sleep,
  start,
  summary,
  tempDir,
  webhookSecret,
} from "./support.ts"

const clientId = "faults-webhooks-client"
const clientSecret = "faults-webhooks-secret-0123456789"
const deliveryTimeoutMs = 10_000
const slackMs = 1_500 // polling (200 ms), claiming and a loaded machine

afterAll(() => killAll())

interface Attempt {
  readonly at: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly answer: string
}

describe("webhook receiver failures", () => {
  it("500, connection closed, timeout: retries on schedule, same event id, signed every time", async () => {
    const attempts: Array<Attempt> = []
    const hanging: Array<() => void> = []
    const server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8")
        const companyId = (JSON.parse(body) as { Data: { CompanyId: string } }).Data.CompanyId
        const firstCompany = attempts.length === 0 || attempts[0]!.body.includes(companyId)
        const n = attempts.filter((a) => a.body === body).length + 1
        const answer = !firstCompany ? "200" : n === 1 ? "500" : n === 2 ? "close" : n === 3 ? "hang" : "200"
        attempts.push({ at: Date.now(), headers: request.headers, body, answer })
        if (answer === "close") request.socket.destroy()
        else if (answer === "hang") hanging.push(() => response.destroy())
        else response.writeHead(Number(answer)).end()
      })
    })
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`
    const db = freshDatabase("webhooks")
    const data = tempDir("webhooks")
    try {
      const service = await start(
        serviceEnv({
          clientId,
          clientSecret,
          dataDir: data.dir,
          databaseUrl: db.url,
          webhookUrl: url,
          kybDelayMs: 200,
        }),
      )
      const token = await partnerToken(service, clientId, clientSecret)
      const first = await call(service.url, "POST", "/Company/Create", {
        token,
        body: companyBody({ companyReferenceId: "wh-1" }),
      })
      assert.strictEqual(first.status, 200, first.text)
      await sleep(1000)
      const second = await call(service.url, "POST", "/Company/Create", {
        token,
        body: companyBody({ companyReferenceId: "wh-2" }),
      })
      assert.strictEqual(second.status, 200, second.text)
      const firstId = (first.body as { companyId: string }).companyId
      const secondId = (second.body as { companyId: string }).companyId

      const deadline = Date.now() + 70_000
      while (Date.now() < deadline && !attempts.some((a) => a.body.includes(secondId))) await sleep(200)

      const mine = attempts.filter((a) => a.body.includes(firstId))
      const others = attempts.filter((a) => a.body.includes(secondId))
      const problems: Array<string> = []
      const numbers = mine.map((a) => a.headers["x-partnerpay-delivery-attempt"])
      if (JSON.stringify(numbers) !== JSON.stringify(["1", "2", "3", "4"]))
        problems.push(`attempt numbers ${JSON.stringify(numbers)}`)
      if (new Set(mine.map((a) => a.headers["x-partnerpay-event-id"])).size !== 1)
        problems.push("event id changed between attempts")
      if (new Set(mine.map((a) => a.body)).size !== 1) problems.push("body changed between attempts")
      const signaturesOk = attempts.filter(
        (a) =>
          a.headers["x-hmac-signature"] ===
          `sha256=${createHmac("sha256", webhookSecret).update(a.body, "utf8").digest("hex")}`,
      ).length
      if (signaturesOk !== attempts.length)
        problems.push(`${attempts.length - signaturesOk} attempts with a bad signature`)
      // Waits: after failed attempt n the nominal wait is 5 s * 2^(n-1), times [0.5, 1).
      const waits: Array<string> = []
      for (let n = 1; n < mine.length; n++) {
        const failedAt = mine[n - 1]!.at + (mine[n - 1]!.answer === "hang" ? deliveryTimeoutMs : 0)
        const wait = mine[n]!.at - failedAt
        const nominal = 5000 * 2 ** (n - 1)
        waits.push(`${n}->${n + 1}: ${wait} ms (bounds ${nominal / 2}-${nominal})`)
        if (wait < nominal / 2 - 300 || wait > nominal + slackMs)
          problems.push(`wait after attempt ${n}: ${wait} ms, outside [${nominal / 2}, ${nominal}]`)
      }
      const delivered = mine.at(-1)
      if (others.length === 0) problems.push("the second notification never arrived")
      else if (delivered === undefined || others[0]!.at < delivered.at)
        problems.push("the second notification overtook the failing one")
      summary(
        "webhooks",
        `${attempts.length} deliveries received (${mine.length} for the failing notification: ${mine.map((a) => a.answer).join(", ")}; ${others.length} for the next one, after it); attempt headers ${numbers.join(",")}; signatures verified ${signaturesOk}/${attempts.length}; waits ${waits.join("; ")}; problems ${problems.length}`,
      )
      for (const problem of problems) console.log(`[faults] webhooks VIOLATION: ${problem}`)
      assert.deepStrictEqual(problems, [])
    } finally {
      for (const release of hanging) release()
      killAll()
      server.closeAllConnections()
      await new Promise<void>((done) => server.close(() => done()))
      db.drop()
      data.remove()
    }
  })
})
