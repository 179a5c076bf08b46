/**
 * The attachment fetcher against a local HTTP server, on PGlite: a PDF is
 * downloaded and kept byte for byte with its sha256; a document of another
 * type, one larger than 10 MiB, a redirect to another host and a refused
 * address end Failed with their reason at the first attempt; an unreachable
 * server is retried and ends Failed after the domain's attempts. Production
 * refuses http and loopback addresses; the sandbox fetches them.
 */
import { createHash } from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Migrations, PgAttachments, PgDatabase } from "@partnerpay/adapters-pg"
import { Attachments } from "@partnerpay/domain"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as AttachmentFetcher from "../src/workers/AttachmentFetcher.ts"

const partner = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b"
const pdf = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 256))])

const serve = (): Promise<{ server: http.Server; base: string }> =>
  new Promise((ready) => {
    const server = http.createServer((request, response) => {
      switch (request.url) {
        case "/invoice.pdf":
          response.writeHead(200, { "content-type": "application/pdf" }).end(pdf)
          return
        case "/moved.pdf":
          response.writeHead(302, { location: "/invoice.pdf" }).end()
          return
        case "/elsewhere.pdf":
          response.writeHead(302, { location: "http://other.example.com/invoice.pdf" }).end()
          return
        case "/page.html":
          response.writeHead(200, { "content-type": "text/html" }).end("<html></html>")
          return
        case "/big.pdf":
          // No Content-Length: the limit applies while the body streams.
          response.writeHead(200, { "content-type": "application/pdf" })
          response.end(Buffer.alloc(Attachments.maxBytes + 1))
          return
        default:
          response.writeHead(404).end()
      }
    })
    server.listen(0, "127.0.0.1", () =>
      ready({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    )
  })

const database = () =>
  PgAttachments.layer.pipe(Layer.provideMerge(Migrations.layer), Layer.provideMerge(PgDatabase.layerPglite()))

/** Registers one attachment per URL, runs the fetcher until nothing is due, and returns each request's attachment. */
const fetchAll = (urls: ReadonlyArray<string>, sandbox: boolean, makeDueAgain = false) =>
  Effect.gen(function* () {
    const store = yield* Attachments.PaymentAttachments
    const sql = yield* SqlClient
    const requests = urls.map((url, index) => {
      const paymentRequestId = `9d2e3f40-5b6c-4d7e-8f90-${index.toString().padStart(12, "0")}`
      return { partnerId: partner, paymentRequestId, url, name: Attachments.allowedContentTypes[0] ?? "a" }
    })
    for (const request of requests) yield* store.register(request)
    let rounds = 0
    while ((yield* AttachmentFetcher.step({ sandbox })) > 0 && rounds < 20) {
      rounds++
      // Retries are scheduled in the future (the schedule is the domain's): bring them forward.
      if (makeDueAgain)
        yield* sql`UPDATE payment_attachments SET next_attempt_at = '-infinity' WHERE status = 'Pending'`
    }
    const views = []
    for (const request of requests) views.push((yield* store.list(partner, request.paymentRequestId))[0])
    return { views, requests, store }
  })

describe("the attachment fetcher", () => {
  it("keeps a PDF byte for byte with its sha256, following a redirect on the same host", {
    timeout: 60_000,
  }, async () => {
    const { server, base } = await serve()
    try {
      await Effect.runPromise(
        Effect.gen(function* () {
          const { views, requests, store } = yield* fetchAll([`${base}/invoice.pdf`, `${base}/moved.pdf`], true)
          for (const [index, view] of views.entries()) {
            assert.strictEqual(view?.status, "Stored")
            assert.strictEqual(view?.contentType, "application/pdf")
            assert.strictEqual(view?.sizeBytes, pdf.byteLength)
            assert.strictEqual(view?.sha256, createHash("sha256").update(pdf).digest("hex"))
            const content = yield* store.content(partner, requests[index]?.paymentRequestId ?? "", view?.id ?? "")
            assert.isTrue(Buffer.from(content?.bytes ?? []).equals(pdf))
          }
        }).pipe(Effect.provide(database())),
      )
    } finally {
      server.close()
    }
  })

  it("records a wrong type, an oversized document and a redirect to another host as Failed at once", {
    timeout: 60_000,
  }, async () => {
    const { server, base } = await serve()
    try {
      await Effect.runPromise(
        Effect.gen(function* () {
          const { views } = yield* fetchAll(
            [`${base}/page.html`, `${base}/big.pdf`, `${base}/elsewhere.pdf`, `${base}/missing.pdf`],
            true,
          )
          assert.deepStrictEqual(
            views.map((view) => view?.status),
            ["Failed", "Failed", "Failed", "Failed"],
          )
          assert.include(views[0]?.failureReason, "content type text/html is not accepted")
          assert.include(views[1]?.failureReason, "larger than 10485760 bytes")
          assert.include(views[2]?.failureReason, "redirected to another host")
          assert.include(views[3]?.failureReason, "404")
          assert.isUndefined(views[0]?.sha256)
        }).pipe(Effect.provide(database())),
      )
    } finally {
      server.close()
    }
  })

  it("retries an unreachable server, then records Failed with the reason", { timeout: 60_000 }, () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient
        const { views } = yield* fetchAll(["http://127.0.0.1:1/invoice.pdf"], true, true)
        assert.strictEqual(views[0]?.status, "Failed")
        assert.include(views[0]?.failureReason, "ECONNREFUSED")
        const rows = yield* sql<{ attempts: number }>`SELECT attempts FROM payment_attachments`
        assert.strictEqual(rows[0]?.attempts, Attachments.maxAttempts)
      }).pipe(Effect.provide(database())),
    ),
  )

  it("in production, refuses http URLs and loopback addresses without connecting", { timeout: 60_000 }, async () => {
    const { server, base } = await serve()
    let connections = 0
    server.on("connection", () => connections++)
    try {
      await Effect.runPromise(
        Effect.gen(function* () {
          const { views } = yield* fetchAll(
            [`${base}/invoice.pdf`, "https://127.0.0.1/invoice.pdf", "https://localhost/a.pdf"],
            false,
          )
          assert.deepStrictEqual(
            views.map((view) => view?.status),
            ["Failed", "Failed", "Failed"],
          )
          assert.include(views[0]?.failureReason, "scheme http is not allowed")
          // One reason whatever the address (no oracle of what a name resolves to).
          assert.strictEqual(views[1]?.failureReason, "address refused: not a public internet address")
          assert.strictEqual(views[2]?.failureReason, "address refused: not a public internet address")
          assert.strictEqual(connections, 0)
        }).pipe(Effect.provide(database())),
      )
    } finally {
      server.close()
    }
  })
})
